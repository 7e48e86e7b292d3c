/**
 * What both provider adapters share: turning an official SDK's request + stream into neutral
 * events with typed failures. Failures before the stream (HTTP 4xx/5xx, after the SDK's own retry
 * policy for 429/529/5xx) throw `provider_error`; a provider `error` event mid-stream becomes a
 * neutral `error` event (the round repairs; nothing is retried blindly); a dropped connection
 * throws `stream_interrupted`; an abort ends the stream quietly (the round knows it aborted).
 */

import type { OverlapError } from "../errors.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { incomingBodyOf } from "./node-http-fetch.js";
import { providerError, streamCut } from "./provider-errors.js";
import type { FrameTranslator, SseBatchesOptions } from "./sse-batch-reader.js";
import { sseBatches } from "./sse-batches.js";

/** The fields of the SDKs' APIError classes that we read (both SDKs share the shape). */
interface SdkApiError {
  status?: number | undefined;
  type?: string | null;
  error?: unknown;
  message: string;
  name: string;
}

/**
 * Opens the SDK stream with `open`, then yields what `translate` makes of each SDK item, then
 * `finish()`'s events. `signal` aborts the HTTP request (the SDKs take it per request).
 */
export async function* sdkEventStream<T>(
  open: () => Promise<AsyncIterable<T>>,
  translate: (item: T) => Iterable<StreamEvent>,
  finish: () => Iterable<StreamEvent>,
  signal: AbortSignal,
): AsyncGenerator<StreamEvent> {
  let items: AsyncIterable<T>;
  try {
    items = await open();
  } catch (err) {
    if (signal.aborted) return;
    throw sdkProviderError(err);
  }
  try {
    // A plain loop, not `yield*`: delegating to a sync iterable costs extra awaits per event.
    for await (const item of items) for (const event of translate(item)) yield event;
  } catch (err) {
    if (signal.aborted) return;
    const sent = sentErrorEvent(err);
    if (sent) {
      // An error the provider sent inside the stream (e.g. overloaded_error).
      yield sent;
      return;
    }
    throw streamCut(err);
  }
  yield* finish();
}

/**
 * The neutral `error` event of an SDK error that the provider sent inside the stream (an
 * APIError without an HTTP status), or undefined for any other failure.
 */
export function sentErrorEvent(err: unknown): StreamEvent | undefined {
  const api = asApiError(err);
  if (!api || api.status !== undefined || api.error === undefined) return undefined;
  return { type: "error", error: { type: errorType(api), message: errorMessage(api) } };
}

/** A failure of an SDK request before the stream started, with the HTTP status when there was one. */
export function sdkProviderError(err: unknown): OverlapError {
  const api = asApiError(err);
  return providerError(err, { status: api?.status, type: api ? errorType(api) : undefined });
}

function asApiError(err: unknown): SdkApiError | undefined {
  return err instanceof Error && "status" in err && "error" in err
    ? (err as SdkApiError)
    : undefined;
}

function errorType(api: SdkApiError): string {
  if (api.type) return api.type;
  const body = api.error as { type?: unknown; error?: { type?: unknown } } | undefined;
  const type = body?.error?.type ?? body?.type;
  return typeof type === "string" ? type : "api_error";
}

function errorMessage(api: SdkApiError): string {
  const body = api.error as { message?: unknown; error?: { message?: unknown } } | undefined;
  const message = body?.error?.message ?? body?.message;
  return typeof message === "string" ? message : api.message;
}

/**
 * Overlap's fast read of an SDK request: `open` sends it through the SDK and resolves with the
 * raw `Response` (failures before the stream are `provider_error`, as above); its SSE body is
 * read by {@link sseBatches} with `translate`, one array of events per network chunk (straight
 * from the socket when the SDK's fetch is `nodeHttpFetch`).
 */
export function responseBatches(
  open: () => Promise<Response>,
  translate: FrameTranslator,
  signal: AbortSignal,
  options: SseBatchesOptions = {},
): AsyncGenerator<StreamEvent[]> {
  const body = async () => {
    let response: Response;
    try {
      response = await open();
    } catch (err) {
      if (signal.aborted) return undefined;
      throw sdkProviderError(err);
    }
    const incoming = incomingBodyOf(response);
    if (incoming) return incoming;
    if (!response.body) throw streamCut(undefined, "was cut: the response has no body");
    return response.body;
  };
  return sseBatches(body, translate, signal, options);
}

/**
 * The neutral `error` event of an error the provider sent inside the stream, from the frame's
 * data, with the type and message the SDK's own stream reports for it.
 */
export function streamErrorEvent(data: string): StreamEvent {
  let body: unknown = data;
  try {
    body = JSON.parse(data);
  } catch {
    // Not JSON: the text itself is the error.
  }
  const parsed = (typeof body === "object" && body !== null ? body : {}) as {
    type?: unknown;
    message?: unknown;
    error?: { type?: unknown; message?: unknown };
  };
  const type = parsed.error?.type ?? parsed.type;
  const message = parsed.error?.message ?? parsed.message;
  return {
    type: "error",
    error: {
      type: typeof type === "string" && type !== "" ? type : "api_error",
      // As the SDK's APIError words it: the body as JSON when it has no message.
      message: typeof message === "string" ? message : JSON.stringify(body),
    },
  };
}
