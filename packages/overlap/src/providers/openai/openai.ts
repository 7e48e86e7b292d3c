/**
 * OpenAI-compatible Chat Completions through the official `openai` SDK: OpenAI, Ollama,
 * vLLM, llama.cpp's server. Chunks are translated by {@link ChatChunkTranslator}, which
 * synthesises the end-of-call signal Chat Completions lacks. `OPENAI_API_KEY` and
 * `OPENAI_BASE_URL` are the SDK's own variables.
 */

import OpenAI from "openai";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import type { ModelClient, ModelRequest } from "../../agent/model-client.js";
import { nodeHttpFetch } from "../node-http-fetch.js";
import { responseBatches, sdkEventStream } from "../sdk-stream.js";
import { eachEvent } from "../sse-batches.js";
import { type ChatChunk, ChatChunkTranslator } from "./chat-chunk-translator.js";
import { toChatMessages } from "./chat-messages.js";
import { openaiFrames } from "./openai-frames.js";

/** Options of {@link openaiChatModel}. */
export interface OpenAIChatModelOptions {
  /**
   * A configured client; by default one is made from the environment (key, base URL) with
   * `fetch: nodeHttpFetch`, so that overlap reads the response straight from the socket, in
   * paced reads on a fast stream (see `nodeHttpFetch`). Give your own client that fetch for the
   * same read; with any other fetch the response is read through its web stream.
   */
  client?: OpenAI;
  model: string;
  /** Output limit per request, when wanted. */
  maxTokens?: number;
  /** Which parameter carries the limit: `max_tokens` (most compatible) or `max_completion_tokens`. */
  maxTokensParam?: "max_tokens" | "max_completion_tokens";
  /** Ask for a usage chunk at the end (`stream_options.include_usage`). Default true. */
  includeUsage?: boolean;
  /** Extra request parameters (temperature, parallel_tool_calls...). */
  params?: Record<string, unknown>;
  /**
   * Read the response through the SDK's own stream (one async step per chunk) instead of
   * overlap's reader (default false). Overlap's reader takes the SDK's raw `Response` (the SDK
   * still builds, signs and sends the request, retries and reports errors before the stream) and
   * turns each network chunk into events in one synchronous pass, with the same events and
   * errors; the round then awaits once per network chunk. Set it to rule the reader out when
   * diagnosing.
   */
  sdkStream?: boolean;
}

/** A ModelClient for an OpenAI-compatible Chat Completions server. */
export function openaiChatModel(options: OpenAIChatModelOptions): ModelClient {
  const client = options.client ?? new OpenAI({ fetch: nodeHttpFetch });
  if (options.sdkStream) {
    return {
      label: options.model,
      provider: "openai",
      stream(request: ModelRequest, { signal }) {
        const translator = new ChatChunkTranslator();
        return sdkEventStream(
          async () => client.chat.completions.create(chatParams(request, options), { signal }),
          (chunk) => translator.push(chunk as ChatChunk),
          () => translator.end(),
          signal,
        );
      },
    };
  }
  const batches = (request: ModelRequest, signal: AbortSignal) => {
    const translator = new ChatChunkTranslator();
    return responseBatches(
      () => client.chat.completions.create(chatParams(request, options), { signal }).asResponse(),
      openaiFrames((chunk) => translator.push(chunk as ChatChunk)),
      signal,
      { finish: () => translator.end() },
    );
  };
  return {
    label: options.model,
    provider: "openai",
    stream: (request, { signal }) => eachEvent(batches(request, signal)),
    streamBatches: (request, { signal }) => batches(request, signal),
  };
}

/** The Chat Completions request body for a neutral request. */
export function chatParams(
  request: ModelRequest,
  options: Omit<OpenAIChatModelOptions, "client">,
): ChatCompletionCreateParamsStreaming {
  const params: ChatCompletionCreateParamsStreaming = {
    ...options.params,
    model: options.model,
    messages: toChatMessages(request.system, request.messages),
    stream: true,
  };
  if (options.includeUsage ?? true) params.stream_options = { include_usage: true };
  if (request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({
      type: "function" as const,
      function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
    }));
  }
  const limit = request.maxTokens ?? options.maxTokens;
  if (limit !== undefined) params[options.maxTokensParam ?? "max_tokens"] = limit;
  return params;
}

export {
  createNodeHttpFetch,
  DEFAULT_MIN_READ_INTERVAL_MS,
  incomingBodyOf,
  type NodeHttpFetchOptions,
  nodeHttpFetch,
} from "../node-http-fetch.js";
export { type ChatChunk, ChatChunkTranslator } from "./chat-chunk-translator.js";
export { toChatMessages } from "./chat-messages.js";
export {
  type OpenAIResponsesModelOptions,
  openaiResponsesModel,
  responsesParams,
} from "./openai-responses.js";
export {
  ResponsesEventTranslator,
  type ResponsesItem,
  type ResponsesResponse,
  type ResponsesStreamEvent,
} from "./responses-event-translator.js";
export { toResponsesInput } from "./responses-input.js";
