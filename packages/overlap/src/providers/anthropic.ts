/**
 * The Anthropic Messages API through the official SDK (B7). The SDK's raw stream events are
 * already the neutral vocabulary; we read them raw (not the SDK's accumulating helper, which
 * re-parses the whole tool input on every delta). `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL`
 * are the SDK's own variables.
 */

import Anthropic from "@anthropic-ai/sdk";
import type { ModelClient, ModelRequest } from "../agent/model-client.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { sdkEventStream } from "./sdk-stream.js";

/** Options of {@link anthropicModel}. */
export interface AnthropicModelOptions {
  /** A configured client; by default one is made from the environment (key, base URL). */
  client?: Anthropic;
  /** The model id. */
  model: string;
  /** `max_tokens` of every request unless the request sets one. Default 4096. */
  maxTokens?: number;
  /** Extra request parameters (thinking, temperature, tool_choice, metadata...). */
  params?: Record<string, unknown>;
}

/** A ModelClient for Claude (or any server speaking the Messages API, like overlap-sim). */
export function anthropicModel(options: AnthropicModelOptions): ModelClient {
  const client = options.client ?? new Anthropic();
  return {
    label: options.model,
    stream(request: ModelRequest, { signal }) {
      return sdkEventStream(
        async () =>
          client.messages.create(
            { ...options.params, ...anthropicParams(request, options), stream: true },
            { signal },
          ) as unknown as Promise<AsyncIterable<StreamEvent>>,
        (event) => [event],
        () => [],
        signal,
      );
    },
  };
}

/** The Messages API request body for a neutral request (our conversation shape is its own). */
export function anthropicParams(
  request: ModelRequest,
  options: Pick<AnthropicModelOptions, "model" | "maxTokens">,
): Anthropic.MessageCreateParamsNonStreaming {
  const params: Anthropic.MessageCreateParamsNonStreaming = {
    model: options.model,
    max_tokens: request.maxTokens ?? options.maxTokens ?? 4096,
    messages: request.messages as Anthropic.MessageParam[],
  };
  if (request.system) params.system = request.system;
  if (request.tools.length > 0) params.tools = request.tools as Anthropic.Tool[];
  return params;
}
