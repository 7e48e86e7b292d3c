/**
 * The Anthropic Messages API through the official SDK. The SDK's raw stream events are
 * already the neutral vocabulary; we read them raw (not the SDK's accumulating helper, which
 * re-parses the whole tool input on every delta). `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL`
 * are the SDK's own variables.
 */

import Anthropic from "@anthropic-ai/sdk";
import type { ModelClient, ModelRequest } from "../../agent/model-client.js";
import type { ToolChoice } from "../../agent/tool-choice.js";
import type { SseFrame } from "../../sse/sse-decoder.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { outputThroughTool } from "../output-through-tool.js";
import { sdkResponse, streamErrorEvent } from "../sdk-errors.js";
import { sseModel } from "../sse-model.js";
import { withoutResponsesData } from "../without-responses-data.js";
import { messagesForClaude } from "./messages-for-claude.js";
import { parseDeltaData } from "./parse-delta-data.js";

/**
 * The Messages API's own request fields, as the installed SDK types them: `thinking`, `metadata`,
 * `stop_sequences`, `service_tier`, `container`, `output_config`... (sampling fields such as
 * `temperature` where the SDK still names them). The runtime owns the rest: the model, the conversation, the system prompt, the tools and the tool
 * choice (`toolChoice` of the turn or the round), the output limit (`maxTokens`) and `stream`.
 */
export type AnthropicProviderOptions = Partial<
  Omit<
    Anthropic.MessageCreateParamsStreaming,
    "model" | "messages" | "system" | "tools" | "tool_choice" | "max_tokens" | "stream"
  >
>;

/** Options of {@link anthropicModel}. */
export interface AnthropicModelOptions {
  /**
   * A configured client; by default one is made from the environment (key, base URL). The SDK
   * sends the request; overlap reads the response's body through its web stream, or straight
   * from the socket when the client's fetch is `nodeHttpFetch` (`overlap-runtime/node`).
   */
  client?: Anthropic;
  /** The model id. */
  model: string;
  /** `max_tokens` of every request unless the request sets one. Default 4096. */
  maxTokens?: number;
  /**
   * The provider's own request fields, typed (`thinking`, `metadata`, `stop_sequences`...);
   * for another set in one round, return another model from `prepareRound`.
   */
  providerOptions?: AnthropicProviderOptions;
  /**
   * Extra request fields, untyped, sent under the runtime's own.
   * @deprecated Use the typed `providerOptions`; `params` stays for fields the SDK's types do not
   * name yet (a gateway's own), and `toolChoice` replaces `params.tool_choice`.
   */
  params?: Record<string, unknown>;
  /**
   * Fine-grained tool streaming: sends `eager_input_streaming: true` on every tool definition
   * (default true), so each call's input streams as the model writes it (progressive previews,
   * earlier block stops). Without it the API buffers and validates each parameter value before
   * sending it, so input arrives late and in large chunks.
   *
   * The per-tool field is generally available: no `anthropic-beta` header is needed (the legacy
   * `fine-grained-tool-streaming-2025-05-14` header turned it on for tools leaving the field
   * unset; an explicit `false` keeps buffering even with that header). The SDK types it on
   * `Anthropic.Tool` as `eager_input_streaming?: boolean | null` (checked with
   * @anthropic-ai/sdk 1.16.0). Only client tools (an `input_schema`, no `type` or
   * `type: "custom"`) get it; a value the caller set on a tool is kept.
   *
   * Eager input is not validated by the API: it may be invalid JSON, or cut by `max_tokens`. The
   * runtime parses it strictly at the block's stop and answers such a call with an
   * `invalid_input` error result; it never runs. Set `false` for a server that rejects the field
   * (some gateways answer "Extra inputs are not permitted").
   */
  eagerInputStreaming?: boolean;
  /**
   * Tools Anthropic runs itself (`{ type: "web_search_20250305", name: "web_search" }`, code
   * execution, web fetch...), sent after the executor's tools in every request. Their calls and
   * results come back as `server_tool_use` and result blocks (shown as `server-tool` events,
   * never run here) and go back to the API in the next request; their citations stay on the text.
   */
  providerTools?: readonly Anthropic.ToolUnion[];
  /**
   * How a turn's `output` is asked for: `"tool"` (default; every Claude model) forces an answer
   * tool whose input streams as the answer's text; `"outputFormat"` uses the Messages API's own
   * JSON schema mode (`output_config.format`), for the models that support it, which also works
   * with extended thinking.
   */
  structuredOutput?: "tool" | "outputFormat";
}

/** A ModelClient for Claude (or any server speaking the Messages API, like overlap-sim). */
export function anthropicModel(options: AnthropicModelOptions): ModelClient {
  const client = options.client ?? new Anthropic();
  const body = (request: ModelRequest) => ({
    ...options.params,
    ...options.providerOptions,
    ...anthropicParams(request, options),
    stream: true as const,
  });
  const model = sseModel({
    label: options.model,
    provider: "anthropic",
    send: (request, signal) =>
      sdkResponse(() => client.messages.create(body(request), { signal }).asResponse(), signal),
    translation: () => ({ frame: messagesFrame }),
  });
  if (options.structuredOutput === "outputFormat") return model;
  // A forced answer tool works with every Claude model; extended thinking does not allow forcing
  // it (it accepts only `auto`).
  const thinking = options.providerOptions?.thinking ?? options.params?.thinking;
  const thinks = (thinking as { type?: unknown } | undefined)?.type === "enabled";
  return outputThroughTool(model, { mayForce: () => !thinks });
}

/**
 * One Messages API SSE frame as the SDK's stream reads it: `ping` and unnamed frames are skipped,
 * an `error` frame (e.g. overloaded_error mid-stream) becomes a neutral `error` event and ends
 * the stream, every other frame's data is the event itself.
 */
function messagesFrame(frame: SseFrame, out: StreamEvent[]): boolean | undefined {
  if (frame.event === undefined || frame.event === "ping") return undefined;
  if (frame.event === "error") {
    out.push(streamErrorEvent(frame.data));
    return true;
  }
  if (frame.data === "") return undefined;
  const delta = frame.event === "content_block_delta" ? parseDeltaData(frame.data) : undefined;
  out.push(delta ?? (JSON.parse(frame.data) as StreamEvent));
  return undefined;
}

/** The Messages API request body for a neutral request (our conversation shape is its own). */
export function anthropicParams(
  request: ModelRequest,
  options: Pick<
    AnthropicModelOptions,
    "model" | "maxTokens" | "eagerInputStreaming" | "providerTools" | "providerOptions"
  >,
): Anthropic.MessageCreateParamsNonStreaming {
  const params: Anthropic.MessageCreateParamsNonStreaming = {
    model: options.model,
    max_tokens: request.maxTokens ?? options.maxTokens ?? 4096,
    // Blocks and fields only the OpenAI Responses API reads are not the Messages API's.
    // Gemini signatures and unsigned thinking neither: Claude rejects both.
    messages: withoutResponsesData(messagesForClaude(request.messages)) as Anthropic.MessageParam[],
  };
  if (request.system) params.system = request.system;
  const providerTools = options.providerTools ?? [];
  if (request.tools.length > 0 || providerTools.length > 0) {
    const tools = request.tools as readonly Anthropic.ToolUnion[];
    params.tools = [
      ...(options.eagerInputStreaming === false ? tools : tools.map(eagerInput)),
      ...structuredClone(providerTools),
    ];
  }
  if (request.toolChoice !== undefined) {
    params.tool_choice = anthropicToolChoice(request.toolChoice);
  }
  if (request.output) {
    // Reached only without the answer tool (`structuredOutput: "outputFormat"`).
    const format = { type: "json_schema" as const, schema: request.output.schema };
    params.output_config = { ...options.providerOptions?.output_config, format };
  }
  return params;
}

/** The Messages API's `tool_choice` for a neutral one (`required` is its `any`). */
export function anthropicToolChoice(choice: ToolChoice): Anthropic.ToolChoice {
  if (typeof choice === "object") return { type: "tool", name: choice.toolName };
  return { type: choice === "required" ? "any" : choice };
}

/** A client tool with `eager_input_streaming: true`, unless the caller set the field (even null). */
function eagerInput(tool: Anthropic.ToolUnion): Anthropic.ToolUnion {
  const custom = "input_schema" in tool && (tool.type ?? "custom") === "custom";
  if (!custom || tool.eager_input_streaming !== undefined) return tool;
  return { ...tool, eager_input_streaming: true };
}
