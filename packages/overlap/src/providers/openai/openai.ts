/**
 * OpenAI-compatible Chat Completions through the official `openai` SDK: OpenAI, Ollama,
 * vLLM, llama.cpp's server. Chunks are translated by {@link ChatChunkTranslator}, which
 * synthesises the end-of-call signal Chat Completions lacks. `OPENAI_API_KEY` and
 * `OPENAI_BASE_URL` are the SDK's own variables.
 */

import OpenAI from "openai";
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionToolChoiceOption,
} from "openai/resources/chat/completions";
import type { ModelClient, ModelRequest } from "../../agent/model-client.js";
import type { ToolChoice } from "../../agent/tool-choice.js";
import { sdkResponse } from "../sdk-errors.js";
import { sseModel } from "../sse-model.js";
import { type ChatChunk, ChatChunkTranslator } from "./chat-chunk-translator.js";
import { toChatMessages } from "./chat-messages.js";
import { openaiFrames } from "./openai-frames.js";

/**
 * The Chat Completions API's own request fields, typed by the SDK: `temperature`,
 * `reasoning_effort`, `seed`, `parallel_tool_calls`, `service_tier`, `top_p`, `stop`, `user`,
 * `verbosity`... The runtime owns the rest: the model, the messages, the tools and the tool
 * choice (`toolChoice`), the response format (`output`), the output limit (`maxTokens`), `stream`
 * and `stream_options` (`includeUsage`).
 */
export type OpenAIChatProviderOptions = Partial<
  Omit<
    ChatCompletionCreateParamsStreaming,
    | "model"
    | "messages"
    | "tools"
    | "tool_choice"
    | "response_format"
    | "max_tokens"
    | "max_completion_tokens"
    | "stream"
    | "stream_options"
  >
>;

/** Options of {@link openaiChatModel}. */
export interface OpenAIChatModelOptions {
  /**
   * A configured client; by default one is made from the environment (key, base URL). The SDK
   * sends the request; overlap reads the response's body through its web stream, or straight
   * from the socket when the client's fetch is `nodeHttpFetch` (`overlap-runtime/node`).
   */
  client?: OpenAI;
  model: string;
  /** Output limit per request, when wanted. */
  maxTokens?: number;
  /** Which parameter carries the limit: `max_tokens` (most compatible) or `max_completion_tokens`. */
  maxTokensParam?: "max_tokens" | "max_completion_tokens";
  /** Ask for a usage chunk at the end (`stream_options.include_usage`). Default true. */
  includeUsage?: boolean;
  /**
   * The provider's own request fields, typed (`temperature`, `reasoning_effort`, `seed`,
   * `parallel_tool_calls`...); for another set in one round, return another model from
   * `prepareRound`.
   */
  providerOptions?: OpenAIChatProviderOptions;
  /**
   * Extra request fields, untyped, sent under the runtime's own.
   * @deprecated Use the typed `providerOptions`; `params` stays for fields the SDK's types do not
   * name (a compatible server's own, such as vLLM's `top_k`).
   */
  params?: Record<string, unknown>;
}

/** A ModelClient for an OpenAI-compatible Chat Completions server. */
export function openaiChatModel(options: OpenAIChatModelOptions): ModelClient {
  // Made at the first request: without a key the SDK's constructor throws, and a turn reports
  // that (an `authentication` error in its result) instead of the setup throwing.
  let made: OpenAI | undefined;
  const clientOf = (): OpenAI => {
    made ??= options.client ?? new OpenAI();
    return made;
  };
  return sseModel({
    label: options.model,
    provider: "openai",
    send: (request, signal) =>
      sdkResponse(
        () =>
          clientOf().chat.completions.create(chatParams(request, options), { signal }).asResponse(),
        signal,
      ),
    translation: () => {
      const translator = new ChatChunkTranslator();
      return {
        frame: openaiFrames((chunk) => translator.push(chunk as ChatChunk)),
        finish: () => translator.end(),
      };
    },
  });
}

/** The Chat Completions request body for a neutral request. */
export function chatParams(
  request: ModelRequest,
  options: Omit<OpenAIChatModelOptions, "client">,
): ChatCompletionCreateParamsStreaming {
  const params: ChatCompletionCreateParamsStreaming = {
    ...options.params,
    ...options.providerOptions,
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
  if (request.toolChoice !== undefined) params.tool_choice = chatToolChoice(request.toolChoice);
  if (request.output) {
    // Validated by the turn against the zod schema; strict mode would reject optional fields.
    const { name, description, schema } = request.output;
    params.response_format = {
      type: "json_schema",
      json_schema: { name, description, schema, strict: false },
    };
  }
  const limit = request.maxTokens ?? options.maxTokens;
  if (limit !== undefined) params[options.maxTokensParam ?? "max_tokens"] = limit;
  return params;
}

/** Chat Completions' `tool_choice` for a neutral one. */
export function chatToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  if (typeof choice === "string") return choice;
  return { type: "function", function: { name: choice.toolName } };
}

export { type ChatChunk, ChatChunkTranslator } from "./chat-chunk-translator.js";
export { toChatMessages } from "./chat-messages.js";
export {
  type OpenAIResponsesModelOptions,
  type OpenAIResponsesProviderOptions,
  openaiResponsesModel,
  responsesParams,
  responsesToolChoice,
} from "./openai-responses.js";
export {
  ResponsesEventTranslator,
  type ResponsesItem,
  type ResponsesResponse,
  type ResponsesStreamEvent,
} from "./responses-event-translator.js";
export { toResponsesInput } from "./responses-input.js";
