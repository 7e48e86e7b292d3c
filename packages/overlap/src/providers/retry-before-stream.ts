/**
 * Retries before the stream, shared by the adapters that retry themselves (`aiSdkModel`,
 * `geminiModel`): how long to wait before a retry, and a wait that an abort cuts short. What is
 * retryable, and how many times, stays with each adapter.
 */

/** The server's hint of when to retry, as read from its response headers. */
export interface RetryHint {
  /** The `retry-after-ms` header (milliseconds), when the adapter reads it. */
  retryAfterMs?: string | null | undefined;
  /** The `retry-after` header (seconds). */
  retryAfter?: string | null | undefined;
}

/**
 * How long to wait before retry number `attempt` (0 for the first retry): the hint when it is a
 * number ≥ 0 (`retryAfterMs` first, then `retryAfter` in seconds), at most a minute; else an
 * exponential backoff from 500 ms, at most 8 s.
 *
 * An absent header (`undefined`, or `null` from `Headers.get`), an empty one and text that is not
 * a number are no hint.
 */
export function retryDelayMs(attempt: number, hint: RetryHint): number {
  const ms = numberOf(hint.retryAfterMs);
  if (Number.isFinite(ms) && ms >= 0) return Math.min(ms, 60_000);
  const seconds = numberOf(hint.retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, 60_000);
  return Math.min(500 * 2 ** attempt, 8_000);
}

/** A header's number; NaN when it is absent or empty (`Number(null)` would be 0). */
function numberOf(value: string | null | undefined): number {
  return value == null || value.trim() === "" ? Number.NaN : Number(value);
}

/** Waits `ms`; true when the wait ran out, false as soon as `signal` is (or was) aborted. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
