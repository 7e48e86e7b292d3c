/**
 * The official SDKs' failures as overlap's typed ones (the Anthropic and OpenAI SDKs share the
 * shape of their APIError): failures before the stream (HTTP 4xx/5xx, after the SDK's own retry
 * policy for 429/529/5xx) are `provider_error`; an error the provider sent inside the stream is
 * a neutral `error` event (the round repairs; nothing is retried blindly).
 */

import { OverlapError } from "../errors.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { providerError } from "./provider-errors.js";

/** The fields of the SDKs' APIError classes that we read (both SDKs share the shape). */
interface SdkApiError {
  status?: number | undefined;
  type?: string | null;
  error?: unknown;
  message: string;
  name: string;
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
 * The response of an SDK request sent by `send` (the SDK builds, signs and sends it, with its
 * retries and its errors before the stream), or undefined once `signal` is aborted; any other
 * failure before the stream is `provider_error`.
 */
export async function sdkResponse(
  send: () => Promise<Response>,
  signal: AbortSignal,
): Promise<Response | undefined> {
  try {
    return await send();
  } catch (err) {
    if (signal.aborted) return undefined;
    // Overlap's own verdict on the request (a part the provider cannot carry) stays as it is.
    if (err instanceof OverlapError) throw err;
    throw sdkProviderError(err);
  }
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
