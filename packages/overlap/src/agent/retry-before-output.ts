/**
 * Retries a model request that failed before any output: a rate limit, an overloaded or failing
 * service, a connection that never opened or was cut before the first event. Before the first
 * event nothing was shown, no block started and no tool ran, so sending the same request again
 * is safe; once anything arrived, a failure ends the round as it always did (the conversation is
 * repaired, nothing is repeated). The wait honours the service's Retry-After; without one it
 * backs off exponentially.
 *
 * A `provider_error` is the adapter's verdict after its own retries (the official SDKs retry rate
 * limits and server errors twice, honouring Retry-After; `geminiModel` and `aiSdkModel` too): it
 * is retried again only when asked (`retryProviderErrors`), so retries do not multiply.
 */

import { isOverlapError, OverlapError } from "../errors.js";
import {
  type ErrorCategory,
  errorCategoryOf,
  headersOf,
  isRetryableCategory,
  retryAfterMsOf,
} from "../protocol/error-category.js";
import { type Logger, safeLog } from "../tools/logger.js";

/** How a request that failed before any output is retried (runAgentTurn's `retry`). */
export interface RetrySettings {
  /** Retries after the first attempt; 0 turns retrying off. Default 2. */
  maxRetries?: number;
  /** The first wait without a Retry-After, doubled at each retry (at most 8 s). Default 500 ms. */
  initialDelayMs?: number;
  /**
   * The longest wait overlap accepts: a Retry-After longer than this ends the turn at once (with
   * `rate_limited` and `retryAfterMs`, for the host to tell the user). Default 20 s.
   */
  maxDelayMs?: number;
  /**
   * Also retry `provider_error`s, which adapters report after their own retries: set it when you
   * turned those off (the SDK client's `maxRetries: 0`), to have one policy for every provider.
   * Default false.
   */
  retryProviderErrors?: boolean;
}

/**
 * The events of `open()`, retried with `settings` while it fails before its first event with a
 * failure worth retrying (rate limited, overloaded, server, network). Costs nothing once the
 * first event arrived: later reads go straight to the stream.
 */
export function retryBeforeOutput<T>(
  open: () => AsyncIterable<T>,
  settings: RetrySettings,
  signal: AbortSignal,
  logger: Logger | false,
): AsyncIterable<T> {
  const maxRetries = Math.max(0, settings.maxRetries ?? 2);
  return {
    [Symbol.asyncIterator]() {
      let inner: AsyncIterator<T> | undefined;
      return {
        async next() {
          if (inner) return inner.next();
          for (let attempt = 0; ; attempt++) {
            try {
              const candidate = open()[Symbol.asyncIterator]();
              const first = await candidate.next();
              inner = candidate;
              return first;
            } catch (err) {
              const wait = attempt < maxRetries ? waitBefore(err, attempt, settings) : undefined;
              if (wait === undefined || signal.aborted) throw err;
              safeLog(
                logger,
                "warn",
                `overlap: the model request failed before any output (${categoryOf(err)}); retry ${attempt + 1} of ${maxRetries} in ${wait} ms.`,
                err,
              );
              if (!(await sleep(wait, signal))) throw err;
            }
          }
        },
        async return(value?: unknown) {
          await inner?.return?.(value);
          return { done: true as const, value: undefined };
        },
      };
    },
  };
}

/** The wait before retry number `attempt`, or undefined when this failure is not retried. */
function waitBefore(err: unknown, attempt: number, settings: RetrySettings): number | undefined {
  if (!isRetryableCategory(categoryOf(err))) return undefined;
  if (isOverlapError(err, "provider_error") && !settings.retryProviderErrors) return undefined;
  const asked = err instanceof OverlapError ? err.retryAfterMs : retryAfterMsOf(headersOf(err));
  const wait = asked ?? Math.min((settings.initialDelayMs ?? 500) * 2 ** attempt, 8_000);
  return wait <= (settings.maxDelayMs ?? 20_000) ? wait : undefined;
}

function categoryOf(err: unknown): ErrorCategory | undefined {
  if (err instanceof OverlapError) return err.category;
  const status = (err as { status?: unknown } | undefined)?.status;
  return errorCategoryOf({
    status: typeof status === "number" ? status : undefined,
    message: err instanceof Error ? err.message : String(err),
    name: err instanceof Error ? err.name : undefined,
  });
}

/** Waits `ms`; false as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
