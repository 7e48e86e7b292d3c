/**
 * Any Vercel AI SDK provider model (`LanguageModelV3`, provider specification v3: `@ai-sdk/anthropic`,
 * `@ai-sdk/openai`, `@ai-sdk/google`, `@ai-sdk/amazon-bedrock`, community providers...) as a
 * {@link ModelClient}. It calls the model's `doStream` directly (not `streamText`: overlap runs
 * the tools and the round loop itself) and translates its parts with {@link AiSdkStreamTranslator}.
 *
 * Typed failures, as the other adapters: `doStream` rejecting (HTTP 4xx/5xx, after up to
 * `maxRetries` retries of what the provider marks retryable, honouring `retry-after`) throws
 * `provider_error` with the status; an `error` part mid-stream becomes a neutral `error` event
 * (the round repairs; never retried); a stream that fails while being read, or ends without a
 * `finish` part, throws `stream_interrupted`; aborting the signal (forwarded as `abortSignal`)
 * ends the stream quietly.
 *
 * Whether calls start early depends on when the provider package ends each call: see the
 * provider table in docs/architecture.md.
 */

import type { ModelClient, ModelRequest } from "../../agent/model-client.js";
import { OverlapError } from "../../errors.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { describeError, providerError, streamCut } from "../provider-errors.js";
import { retryDelayMs, sleepUnlessAborted } from "../retry-before-stream.js";
import { toLanguageModelV3Prompt, toLanguageModelV3Tools } from "./ai-sdk-prompt.js";
import { AiSdkStreamTranslator } from "./ai-sdk-stream-translator.js";
import type {
  JSONSchema7,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
  SharedV3ProviderMetadata,
} from "./language-model-v3.js";

/**
 * Call options of `doStream` that {@link aiSdkModel} passes through (`temperature`, `seed`,
 * `providerOptions`...): the AI SDK's own typed call options, without what the runtime owns (the
 * prompt, the tools, the output limit, the abort signal). A turn's `toolChoice` and `output`
 * replace `toolChoice` and `responseFormat` given here, for the rounds that have them.
 */
export type AiSdkCallOptions = Omit<
  LanguageModelV3CallOptions,
  "prompt" | "tools" | "abortSignal" | "maxOutputTokens"
>;

/** Options of {@link aiSdkModel}. */
export interface AiSdkModelOptions {
  /** `maxOutputTokens` of every request unless the request sets a limit. */
  maxTokens?: number;
  /**
   * Extra call options: `temperature`, `stopSequences`, `seed`, `headers`, `providerOptions`
   * (e.g. `{ anthropic: { thinking: { type: "enabled", budgetTokens } } }`)...; for other ones in
   * one round, return another model from `prepareRound`.
   */
  callOptions?: AiSdkCallOptions;
  /**
   * The `providerOptions` key a thinking block's signature (and redacted thinking) is sent back
   * under. Default: from `model.provider` (`anthropic.messages` → `anthropic`,
   * `amazon-bedrock` → `bedrock`).
   */
  reasoningKey?: string;
  /** Retries of a request the provider marks retryable (429, 5xx), before its stream. Default 2. */
  maxRetries?: number;
  /** The label for UIs and logs. Default: the model's `modelId`. */
  label?: string;
}

/** How many calls' late provider metadata a model keeps (see {@link aiSdkModel}). */
const CALL_METADATA_LIMIT = 1000;

/**
 * A ModelClient for any AI SDK provider model.
 *
 * Provider metadata a call's `tool-call` part brings after its block started (the OpenAI
 * Responses model's `itemId`) is kept by this client, for its last 1000 calls, and sent back
 * with the call in later requests through the same client; it is not part of the stored
 * conversation.
 */
export function aiSdkModel(model: LanguageModelV3, options: AiSdkModelOptions = {}): ModelClient {
  const callMetadata = new Map<string, SharedV3ProviderMetadata>();
  const remember = (callId: string, metadata: SharedV3ProviderMetadata) => {
    callMetadata.delete(callId);
    callMetadata.set(callId, metadata);
    if (callMetadata.size > CALL_METADATA_LIMIT) {
      callMetadata.delete(callMetadata.keys().next().value as string);
    }
  };
  const lookup = (callId: string) => callMetadata.get(callId);
  return {
    label: options.label ?? model.modelId,
    stream: (request, { signal }) =>
      aiSdkBatches(model, request, options, signal, remember, lookup),
  };
}

/** The `doStream` call options for a neutral request. */
export function aiSdkCallOptions(
  model: Pick<LanguageModelV3, "provider">,
  request: ModelRequest,
  options: Omit<AiSdkModelOptions, "maxRetries" | "label"> = {},
  callMetadata?: (callId: string) => SharedV3ProviderMetadata | undefined,
): LanguageModelV3CallOptions {
  const call: LanguageModelV3CallOptions = {
    ...options.callOptions,
    prompt: toLanguageModelV3Prompt(request.system, request.messages, {
      reasoningKey: options.reasoningKey ?? reasoningKeyOf(model.provider),
      ...(callMetadata ? { callMetadata } : {}),
    }),
  };
  if (request.tools.length > 0) call.tools = toLanguageModelV3Tools(request.tools);
  const choice = request.toolChoice;
  if (choice !== undefined) {
    call.toolChoice = typeof choice === "string" ? { type: choice } : choice;
  }
  if (request.output) {
    // The provider package asks its API the way it can (JSON schema mode, or a forced tool whose
    // call it reports as text), as the AI SDK's own structured output does.
    const { name, description, schema } = request.output;
    call.responseFormat = { type: "json", schema: schema as JSONSchema7, name, description };
  }
  const limit = request.maxTokens ?? options.maxTokens;
  if (limit !== undefined) call.maxOutputTokens = limit;
  return call;
}

/** The `providerOptions` key of a provider id: its first segment (`openai.chat` → `openai`). */
export function reasoningKeyOf(provider: string): string {
  const key = provider.split(".")[0] ?? provider;
  return key === "amazon-bedrock" ? "bedrock" : key;
}

/** The parts of one `doStream`, translated: one array of events per read of its stream. */
async function* aiSdkBatches(
  model: LanguageModelV3,
  request: ModelRequest,
  options: AiSdkModelOptions,
  signal: AbortSignal,
  remember: (callId: string, metadata: SharedV3ProviderMetadata) => void,
  lookup: (callId: string) => SharedV3ProviderMetadata | undefined,
): AsyncGenerator<StreamEvent[]> {
  const call = { ...aiSdkCallOptions(model, request, options, lookup), abortSignal: signal };
  const stream = await open(model, call, options.maxRetries ?? 2, signal);
  if (!stream) return; // aborted
  const reader = stream.getReader();
  const translator = new AiSdkStreamTranslator({ model: model.modelId, onCallMetadata: remember });
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (signal.aborted) return;
        throw streamCut(err);
      }
      if (signal.aborted) return;
      if (chunk.done) break;
      const events = translator.push(chunk.value);
      if (events.length > 0) yield events;
      if (translator.failed) return; // an error part: the round repairs
    }
  } finally {
    // Leaving early (the round stopped reading, or an error part) closes the HTTP response.
    reader.cancel().catch(() => {});
  }
  if (!translator.finished) {
    throw streamCut(undefined, "ended before its finish part");
  }
}

/** Calls doStream, retrying what the provider marks retryable; undefined when aborted. */
async function open(
  model: LanguageModelV3,
  call: LanguageModelV3CallOptions,
  maxRetries: number,
  signal: AbortSignal,
): Promise<ReadableStream<LanguageModelV3StreamPart> | undefined> {
  for (let attempt = 0; ; attempt++) {
    try {
      return (await model.doStream(call)).stream;
    } catch (err) {
      if (signal.aborted) return undefined;
      const api = apiCallError(err);
      if (api?.isRetryable === true && attempt < maxRetries) {
        const headers = api.responseHeaders ?? {};
        const hint = {
          retryAfterMs: headers["retry-after-ms"],
          retryAfter: headers["retry-after"],
        };
        if (!(await sleepUnlessAborted(retryDelayMs(attempt, hint), signal))) return undefined;
        continue;
      }
      const status = api?.statusCode;
      if (status !== undefined && status >= 200 && status < 300) {
        // The response was accepted, then failed before its first part reached us (some
        // providers read ahead inside doStream): a cut stream, or an error event in it.
        const inStream = api?.data !== undefined;
        throw new OverlapError(
          inStream ? "stream_error" : "stream_interrupted",
          `The model stream failed before its first part: ${describeError(err)}`,
          { cause: err, details: { status, type: api ? errorType(api) : undefined } },
        );
      }
      throw providerError(err, { status, type: api ? errorType(api) : undefined });
    }
  }
}

/** The fields of the AI SDK's `APICallError` we read (duck-typed: no runtime import). */
interface ApiCallErrorLike {
  statusCode?: number;
  isRetryable?: boolean;
  responseHeaders?: Record<string, string>;
  data?: unknown;
}

function apiCallError(err: unknown): ApiCallErrorLike | undefined {
  return err instanceof Error && ("statusCode" in err || "isRetryable" in err)
    ? (err as ApiCallErrorLike)
    : undefined;
}

/** The provider's error type (`invalid_request_error`...) from the parsed body, when it has one. */
function errorType(api: ApiCallErrorLike): string {
  const data = api.data as { type?: unknown; error?: { type?: unknown; status?: unknown } };
  const type = data?.error?.type ?? data?.error?.status ?? data?.type;
  return typeof type === "string" ? type : "api_error";
}
