/**
 * How every adapter reports a failed model request, in one place: each reads its SDK's (or the
 * HTTP answer's) status and error type its own way, and these build the same `OverlapError` from
 * them, so a host handles every provider alike.
 * - `provider_error`: the request failed before a stream started (after the adapter's retries);
 *   `category` says which kind of failure (a refused key, a rate limit...), `retryAfterMs` the
 *   service's Retry-After; `details.status` (HTTP, when there was one) and `details.type` (the
 *   provider's error type).
 * - `stream_interrupted`: the stream started and was cut, or ended without its final event.
 */

import { OverlapError } from "../errors.js";
import {
  errorCategoryOf,
  type HeadersLike,
  headersOf,
  retryAfterMsOf,
} from "../protocol/error-category.js";

export { retryAfterMsOf };

/** What an adapter read off a failure: the HTTP status and the provider's error type, if any. */
export interface FailureFacts {
  status?: number | undefined;
  type?: string | undefined;
  /** The response's headers, for Retry-After (read off the error itself when absent). */
  headers?: HeadersLike | undefined;
}

/** A request that failed before its stream started. */
export function providerError(err: unknown, facts: FailureFacts = {}): OverlapError {
  const said = describeError(err);
  const category = errorCategoryOf({
    status: facts.status,
    type: facts.type,
    message: said,
    name: errorName(err),
  });
  const retryAfterMs = retryAfterMsOf(facts.headers ?? headersOf(err));
  return new OverlapError("provider_error", `The model request failed: ${said}`, {
    cause: err,
    details: { status: facts.status, type: facts.type },
    category,
    retryAfterMs,
  });
}

/** A request answered with a non-2xx HTTP status and the provider's message (no SDK error). */
export function httpProviderError(
  status: number,
  message: string,
  type: string | undefined,
  headers?: HeadersLike,
): OverlapError {
  const category = errorCategoryOf({ status, type, message });
  return new OverlapError("provider_error", `The model request failed: ${status} ${message}`, {
    details: { status, type: type ?? "api_error" },
    category,
    retryAfterMs: retryAfterMsOf(headers),
  });
}

/** A stream that started and was cut (`err`: why, when known), or ended early (`what` says how). */
export function streamCut(err: unknown, what = "was cut"): OverlapError {
  return err === undefined
    ? new OverlapError("stream_interrupted", `The model stream ${what}.`, { category: "network" })
    : new OverlapError("stream_interrupted", `The model stream ${what}: ${describeError(err)}`, {
        cause: err,
        category: "network",
      });
}

function errorName(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  const cause = (err as { cause?: { code?: unknown } }).cause?.code;
  return [err.name, code, cause].filter((v) => typeof v === "string").join(" ");
}

/**
 * An error's message for ours: its first line (SDKs append hints about their internals to some),
 * prefixed by its name when that says more than "Error".
 */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const message = err.message.split("\n")[0] ?? "";
  return err.name && err.name !== "Error" && !message.startsWith(err.name)
    ? `${err.name}: ${message}`
    : message;
}
