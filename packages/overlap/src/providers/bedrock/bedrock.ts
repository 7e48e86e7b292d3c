/**
 * Amazon Bedrock's Converse API through the AWS SDK (`@aws-sdk/client-bedrock-runtime`,
 * `ConverseStreamCommand`), for every model Converse serves (Claude, Nova, Llama, Mistral...).
 * Events are translated by {@link BedrockStreamTranslator}: a call is complete at its
 * `contentBlockStop` and dispatched then, while the model writes on.
 *
 * The SDK signs and sends the request (with its retries and its errors before the stream); when
 * its HTTP handler is Node's, overlap reads the response's event stream itself
 * (`EventStreamBatchReader`: the binary messages of each read decoded and translated in one
 * synchronous pass, one array of events per read), the same events and failures as the SDK's own
 * event stream, which any other handler (a browser's or an edge runtime's fetch) reads instead.
 *
 * Without a `client`, one is made with the SDK's usual chains: the region from `region` or the
 * environment / shared config (`AWS_REGION`, profiles), credentials from the default provider
 * chain (environment, SSO, shared files, instance and container roles). The SDK retries
 * throttling and 5xx answers before the stream (its `maxAttempts`, 3 by default).
 *
 * Typed failures, as the other adapters: an exception before the stream (ValidationException,
 * AccessDeniedException, ThrottlingException after the SDK's retries, a missing region or
 * credentials, an unreachable endpoint...) throws `provider_error` with the service's message,
 * its HTTP status and the exception's name as `type`; an exception the service sends inside the
 * stream (`modelStreamErrorException`, `internalServerException`, `throttlingException`,
 * `validationException`, `serviceUnavailableException`) becomes a neutral `error` event (the
 * round repairs; never retried); a stream cut before `messageStop` throws `stream_interrupted`;
 * aborting the signal aborts the request and ends the stream quietly.
 */

import type { Readable } from "node:stream";
import {
  BedrockRuntimeClient,
  type BedrockRuntimeClientConfig,
  ConverseStreamCommand,
  type ConverseStreamCommandOutput,
} from "@aws-sdk/client-bedrock-runtime";
import type { ModelClient, ModelRequest } from "../../agent/model-client.js";
import { OverlapError } from "../../errors.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { incomingBatches } from "../node/incoming-batches.js";
import { outputThroughTool } from "../output-through-tool.js";
import { providerError, streamCut } from "../provider-errors.js";
import {
  type BedrockProviderOptions,
  type BedrockRequestOptions,
  converseStreamInput,
} from "./bedrock-request.js";
import { BEDROCK_STREAM_EXCEPTIONS, BedrockStreamTranslator } from "./bedrock-stream-translator.js";
import {
  EventStreamBatchReader,
  firstMessageType,
  MAX_EVENT_STREAM_MESSAGE_BYTES,
} from "./event-stream-batch-reader.js";

/** Options of {@link bedrockModel}. */
export interface BedrockModelOptions {
  /** A configured client; by default one is made from `region` and the SDK's default chains. */
  client?: BedrockRuntimeClient;
  /** The region of the default client (else the SDK's: `AWS_REGION`, the shared config...). */
  region?: string;
  /** The model id, inference profile id or ARN (e.g. `us.anthropic.claude-sonnet-4-5-…-v1:0`). */
  modelId: string;
  /** `inferenceConfig.maxTokens` unless the request sets a limit (else the model's default). */
  maxTokens?: number;
  /**
   * ConverseStream's own fields, typed by the AWS SDK: `inferenceConfig` (merged; temperature,
   * stopSequences...), `additionalModelRequestFields` (e.g. `{ thinking: { type: "enabled",
   * budget_tokens: 4000 } }` for Claude), `guardrailConfig`, `performanceConfig`...; for another
   * set in one round, return another model from `prepareRound`.
   */
  providerOptions?: BedrockProviderOptions;
  /**
   * Extra ConverseStream fields (`inferenceConfig` merged, `toolConfig.tools` added).
   * @deprecated Use `providerOptions`, and `toolChoice` instead of `toolConfig.toolChoice`.
   */
  params?: BedrockRequestOptions["params"];
  /**
   * The provider's own tools, sent beside the executor's tools (see
   * {@link BedrockRequestOptions.providerTools}): e.g. `[{ systemTool: { name:
   * "nova_code_interpreter" } }]`. Their calls and results come back as `server_tool_use` and
   * `bedrock_tool_result` blocks (shown, never run here).
   */
  providerTools?: BedrockRequestOptions["providerTools"];
}

/** A ModelClient for Amazon Bedrock's Converse API (or a server speaking it, like overlap-sim). */
export function bedrockModel(options: BedrockModelOptions): ModelClient {
  const config: BedrockRuntimeClientConfig = options.region ? { region: options.region } : {};
  const client = options.client ?? new BedrockRuntimeClient(config);
  const model: ModelClient = {
    label: options.modelId,
    provider: "aws.bedrock",
    stream: (request, { signal }) => bedrockBatches(client, request, options, signal),
  };
  // Converse has no JSON schema mode for every model: structured output is a forced answer tool
  // (which Claude refuses with thinking on, as on Anthropic's own API).
  type Fields = { thinking?: { type?: unknown } } | undefined;
  const thinking =
    (options.providerOptions?.additionalModelRequestFields as Fields)?.thinking ??
    (options.params?.additionalModelRequestFields as Fields)?.thinking;
  const thinks = thinking?.type === "enabled";
  return outputThroughTool(model, { mayForce: () => !thinks });
}

/** The exceptions the stream carries, by the names the SDK gives them. */
const STREAM_EXCEPTION_NAMES: ReadonlySet<string> = new Set(
  Object.values(BEDROCK_STREAM_EXCEPTIONS),
);

async function* bedrockBatches(
  client: BedrockRuntimeClient,
  request: ModelRequest,
  options: BedrockModelOptions,
  signal: AbortSignal,
): AsyncGenerator<StreamEvent[]> {
  if (signal.aborted) return;
  // Our own controller: it follows the caller's signal and also closes the HTTP stream when the
  // round stops reading early.
  const controller = new AbortController();
  const abort = () => controller.abort(signal.reason);
  signal.addEventListener("abort", abort, { once: true });
  let complete = false;
  try {
    const command = new ConverseStreamCommand(converseStreamInput(request, options));
    let body: { stream: Readable; first: Uint8Array } | undefined;
    command.middlewareStack.add(
      takeNodeBody((stream, first) => {
        body = { stream, first };
      }),
      TAKE_BODY,
    );
    let response: ConverseStreamCommandOutput;
    try {
      response = await client.send(command, { abortSignal: controller.signal });
    } catch (err) {
      if (signal.aborted) return;
      // The SDK reads the first event before `send` resolves: a failure there is mid-stream.
      if (!streamStarted(err)) throw bedrockProviderError(err);
      const event = streamErrorEvent(err);
      if (event) {
        yield [event];
        return;
      }
      throw streamCut(err);
    }
    const translator = new BedrockStreamTranslator({
      id: response.$metadata.requestId ?? "",
      model: options.modelId,
    });
    if (body) {
      const { crc32 } = await import("node:zlib");
      const reader = new EventStreamBatchReader(translator, crc32);
      yield* incomingBatches(body.stream, reader, signal, body.first);
      complete = reader.over;
      return;
    }
    if (!response.stream) throw streamCut(undefined, "had no body");
    try {
      for await (const event of response.stream) {
        const events = translator.push(event);
        if (events.length > 0) yield events;
        if (translator.failed) return;
      }
    } catch (err) {
      if (signal.aborted) return;
      if (err instanceof OverlapError) throw err;
      const event = streamErrorEvent(err);
      if (event) {
        yield [event];
        return;
      }
      throw streamCut(err);
    }
    if (signal.aborted) return;
    if (!translator.finished) {
      throw streamCut(undefined, "ended before messageStop");
    }
    const last = translator.end();
    if (last.length > 0) yield last;
    complete = true;
  } finally {
    signal.removeEventListener("abort", abort);
    if (!complete) controller.abort();
  }
}

/** A deserialize-step middleware of the command (the stack's own type, no Smithy import). */
type TakeBodyMiddleware = Parameters<ConverseStreamCommand["middlewareStack"]["add"]>[0];

/** Where {@link takeNodeBody} sits: just inside the SDK's deserializer, which it hides the body from. */
const TAKE_BODY = {
  step: "deserialize",
  priority: "low",
  name: "overlapTakeNodeBody",
} as const;

/**
 * A middleware of one command that takes the body of a successful response when the SDK's HTTP
 * handler is Node's (a `Readable`) and its first message is an event, handing the SDK an empty
 * body instead: overlap reads the event stream itself. Any other answer is left to the SDK as it
 * came (the bytes read to see the first message given back first): an error status, a handler of
 * another kind, and a stream whose first message is an exception, which the SDK throws inside
 * its retries (a throttled or unavailable model is then asked again, as without overlap's read).
 */
function takeNodeBody(take: (body: Readable, first: Uint8Array) => void): TakeBodyMiddleware {
  return (next) => async (args) => {
    const result = await next(args);
    const response = result.response as { statusCode?: number; body?: unknown };
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300 || !isNodeReadable(response.body)) return result;
    const body = response.body;
    const first = await firstMessageBytes(body);
    if (firstMessageType(first) === "event") {
      take(body, first);
      response.body = emptyBody();
    } else {
      response.body = prefixedBody(first, body);
    }
    return result;
  };
}

/**
 * The bytes of `body` up to its first whole event stream message (or fewer, if it ends, fails or
 * announces a length past the limit first). What is read is the caller's to hand on.
 */
async function firstMessageBytes(body: Readable): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  let length = 0;
  /** The first message's length, once its first four bytes came. */
  let total: number | undefined;
  const enough = (): boolean => {
    if (total === undefined && length >= 4) {
      const head = concat(pieces, length);
      total = new DataView(head.buffer, head.byteOffset, 4).getUint32(0);
    }
    return total !== undefined && (length >= total || total > MAX_EVENT_STREAM_MESSAGE_BYTES);
  };
  for (;;) {
    const piece = body.read() as Uint8Array | null;
    if (piece !== null) {
      pieces.push(piece);
      length += piece.length;
      if (enough()) break;
      continue;
    }
    if (body.readableEnded || body.destroyed) break;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        for (const event of ["readable", "end", "error", "close"]) body.off(event, done);
        resolve();
      };
      for (const event of ["readable", "end", "error", "close"]) body.once(event, done);
    });
  }
  return concat(pieces, length);
}

function concat(pieces: readonly Uint8Array[], length: number): Uint8Array {
  if (pieces.length === 1) return pieces[0] as Uint8Array;
  const out = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

function isNodeReadable(body: unknown): body is Readable {
  return (
    typeof body === "object" &&
    body !== null &&
    typeof (body as Readable).read === "function" &&
    typeof (body as Readable).on === "function" &&
    typeof (body as Readable).readableEnded === "boolean"
  );
}

/** A body with nothing in it, for the SDK's event stream reader (which takes any async iterable). */
async function* emptyBody(): AsyncGenerator<Uint8Array> {}

/** The bytes already read, then the rest of `body`, for the SDK's reader. */
async function* prefixedBody(first: Uint8Array, body: Readable): AsyncGenerator<Uint8Array> {
  if (first.length > 0) yield first;
  yield* body;
}

/** The fields of the SDK's errors that we read. */
interface SdkError {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  $response?: { statusCode?: number };
}

/** True when the failure came after a 2xx answer started (its first event, or its body, failed). */
function streamStarted(err: unknown): boolean {
  const sdk = err as SdkError | undefined;
  const status = sdk?.$response?.statusCode ?? sdk?.$metadata?.httpStatusCode;
  return typeof status === "number" && status >= 200 && status < 300;
}

/** A neutral `error` event for an exception the service sent inside the stream. */
function streamErrorEvent(err: unknown): StreamEvent | undefined {
  const sdk = err as SdkError | undefined;
  if (!(err instanceof Error) || !STREAM_EXCEPTION_NAMES.has(String(sdk?.name))) return undefined;
  return {
    type: "error",
    // "Unknown" is the SDK's word for an exception that came without a message.
    error: {
      type: err.name,
      message: err.message && err.message !== "Unknown" ? err.message : `${err.name} from Bedrock.`,
    },
  };
}

/** A failure before the stream, with the service's message, HTTP status and exception name. */
function bedrockProviderError(err: unknown): OverlapError {
  const sdk = err as SdkError | undefined;
  const status = sdk?.$metadata?.httpStatusCode ?? sdk?.$response?.statusCode;
  return providerError(err, { status, type: err instanceof Error ? err.name : undefined });
}

export {
  type BedrockProviderOptions,
  type BedrockRequestOptions,
  converseId,
  converseStreamInput,
  converseToolChoice,
  toConverseMessages,
} from "./bedrock-request.js";
export {
  BEDROCK_CITATION,
  BEDROCK_STREAM_EXCEPTIONS,
  BEDROCK_TOOL_RESULT,
  type BedrockStreamEvent,
  BedrockStreamTranslator,
  type BedrockStreamTranslatorOptions,
  type BedrockToolResultBlock,
} from "./bedrock-stream-translator.js";
