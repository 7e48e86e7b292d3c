/**
 * The OpenAI Responses API (`POST /v1/responses`) through the official `openai` SDK. Events
 * are translated by {@link ResponsesEventTranslator}: each call's end is the API's own
 * `function_call_arguments.done` / `output_item.done`. Stateless by default (`store: false`): the
 * conversation is ours, sent whole every round, reasoning items included (their encrypted
 * content is asked for with `include: ["reasoning.encrypted_content"]`), and so are the items of
 * the provider's own tools (`providerTools`, sent beside the function tools). `OPENAI_API_KEY` and
 * `OPENAI_BASE_URL` are the SDK's own variables.
 */

import OpenAI from "openai";
import type {
  FunctionTool,
  ResponseCreateParamsNonStreaming,
  ResponseCreateParamsStreaming,
  ResponseIncludable,
  Tool,
} from "openai/resources/responses/responses";
import type { ModelClient, ModelRequest } from "../../agent/model-client.js";
import type { ToolChoice } from "../../agent/tool-choice.js";
import { sdkResponse } from "../sdk-errors.js";
import { sseModel } from "../sse-model.js";
import { openaiFrames } from "./openai-frames.js";
import {
  ResponsesEventTranslator,
  type ResponsesStreamEvent,
} from "./responses-event-translator.js";
import { toResponsesInput } from "./responses-input.js";

/**
 * The Responses API's own request fields, typed by the SDK: `reasoning`, `temperature`,
 * `parallel_tool_calls`, `service_tier`, `text` (its `verbosity`; its `format` is the output's),
 * `include`, `metadata`, `prompt_cache_key`, `truncation`... The runtime owns the rest: the model,
 * the input, the instructions (system prompt), the tools and the tool choice (`toolChoice`), the
 * output limit (`maxTokens`), `store` (its own option) and `stream`.
 */
export type OpenAIResponsesProviderOptions = Partial<
  Omit<
    ResponseCreateParamsStreaming,
    | "model"
    | "input"
    | "instructions"
    | "tools"
    | "tool_choice"
    | "max_output_tokens"
    | "store"
    | "stream"
  >
>;

/** Options of {@link openaiResponsesModel}. */
export interface OpenAIResponsesModelOptions {
  /**
   * A configured client; by default one is made from the environment (key, base URL). The SDK
   * sends the request; overlap reads the response's body through its web stream, or straight
   * from the socket when the client's fetch is `nodeHttpFetch` (`overlap-runtime/node`).
   */
  client?: OpenAI;
  model: string;
  /** `max_output_tokens` of every request unless the request sets one; none by default. */
  maxTokens?: number;
  /**
   * Let OpenAI store the responses (`store`). Default false: the conversation is kept by overlap
   * and sent whole, so nothing depends on OpenAI's copy; reasoning items then carry their
   * encrypted content (`include: ["reasoning.encrypted_content"]`) to be sent back.
   */
  store?: boolean;
  /**
   * The provider's own request fields, typed (`reasoning`, `temperature`, `parallel_tool_calls`,
   * `service_tier`...); for another set in one round, return another model from `prepareRound`.
   */
  providerOptions?: OpenAIResponsesProviderOptions;
  /**
   * Extra request fields, untyped, sent under the runtime's own.
   * @deprecated Use the typed `providerOptions`; `params` stays for fields the SDK's types do not
   * name yet, and `toolChoice` replaces `params.tool_choice`.
   */
  params?: Record<string, unknown>;
  /**
   * Tools the provider runs itself (`{ type: "web_search" }`, `file_search`, `code_interpreter`,
   * `mcp`, `image_generation`...), sent after the executor's function tools in every request.
   * Their calls come back as `server_tool_use` + `openai_tool_result` blocks (shown as
   * `server-tool` events, never run here) and go back to the API in the next request. Tools the
   * client must answer (computer use, local shell, apply_patch, custom tools) are not run by
   * overlap: their calls are kept the same way, but nothing answers them.
   */
  providerTools?: readonly Tool[];
}

/** A ModelClient for the OpenAI Responses API (or a server speaking it, like overlap-sim). */
export function openaiResponsesModel(options: OpenAIResponsesModelOptions): ModelClient {
  // Made at the first request: without a key the SDK's constructor throws, and a turn reports
  // that (an `authentication` error in its result) instead of the setup throwing.
  let made: OpenAI | undefined;
  const clientOf = (): OpenAI => {
    made ??= options.client ?? new OpenAI();
    return made;
  };
  const body = (request: ModelRequest) => ({
    ...responsesParams(request, options),
    stream: true as const,
  });
  return sseModel({
    label: options.model,
    provider: "openai",
    send: (request, signal) =>
      sdkResponse(
        () => clientOf().responses.create(body(request), { signal }).asResponse(),
        signal,
      ),
    translation: () => {
      const translator = new ResponsesEventTranslator();
      return {
        frame: openaiFrames((event) => translator.push(event as ResponsesStreamEvent)),
        finish: () => translator.end(),
      };
    },
  });
}

/** The Responses API request body for a neutral request (without `stream`). */
export function responsesParams(
  request: ModelRequest,
  options: Omit<OpenAIResponsesModelOptions, "client">,
): ResponseCreateParamsNonStreaming {
  // `store` may also come in `params`; the option wins, and false is the default.
  const asked = options.params?.store;
  const store = options.store ?? (typeof asked === "boolean" ? asked : false);
  const params: ResponseCreateParamsNonStreaming = {
    ...options.params,
    ...(options.providerOptions as Partial<ResponseCreateParamsNonStreaming> | undefined),
    model: options.model,
    input: toResponsesInput(request.messages),
    store,
  };
  if (!store) {
    const wanted: ResponseIncludable = "reasoning.encrypted_content";
    const include = params.include ?? [];
    params.include = include.includes(wanted) ? include : [...include, wanted];
  }
  if (request.system) params.instructions = request.system;
  const providerTools = options.providerTools ?? [];
  if (request.tools.length > 0 || providerTools.length > 0) {
    params.tools = [
      ...request.tools.map(
        (tool): FunctionTool => ({
          type: "function",
          name: tool.name,
          description: tool.description,
          parameters: tool.input_schema as Record<string, unknown>,
          // Our schemas are not all strict-mode schemas; inputs are validated by each tool.
          strict: false,
        }),
      ),
      ...structuredClone(providerTools),
    ];
  }
  if (request.toolChoice !== undefined) {
    params.tool_choice = responsesToolChoice(request.toolChoice);
  }
  if (request.output) {
    // Validated by the turn against the zod schema; strict mode would reject optional fields.
    const { name, description, schema } = request.output;
    params.text = {
      ...params.text,
      format: { type: "json_schema", name, description, schema, strict: false },
    };
  }
  const limit = request.maxTokens ?? options.maxTokens;
  if (limit !== undefined) params.max_output_tokens = limit;
  return params;
}

/** The Responses API's `tool_choice` for a neutral one. */
export function responsesToolChoice(
  choice: ToolChoice,
): NonNullable<ResponseCreateParamsNonStreaming["tool_choice"]> {
  if (typeof choice === "string") return choice;
  return { type: "function", name: choice.toolName };
}
