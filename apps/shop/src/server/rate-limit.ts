/**
 * A fixed-window rate limit per key (B12): bounds how fast one client can create sessions and one
 * session can start turns (each turn costs model tokens when a real model is configured). In
 * memory, per process: a coarse guard in front, not an accounting system.
 */

import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "./app-env.js";
import { HttpError } from "./http-error.js";

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  /** Requests allowed per key and window. */
  limit: number;
  /** Window length in ms. Default one minute. */
  windowMs?: number;
  /** The key of a request (a client address, a session id). */
  key: (c: Context<AppEnv>) => string;
  /** What the refusal says the limit is about. */
  what: string;
}

interface Window {
  startedAt: number;
  count: number;
}

/** Counts uses per key in fixed windows. */
export class FixedWindowLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #what: string;
  readonly #windows = new Map<string, Window>();
  #sweptAt = Date.now();

  constructor(options: Omit<RateLimitOptions, "key">) {
    this.#limit = options.limit;
    this.#windowMs = options.windowMs ?? 60_000;
    this.#what = options.what;
  }

  /** Counts one use of `key`; throws a 429 HttpError (setting `retry-after`) past the limit. */
  take(c: Context<AppEnv>, key: string): void {
    const now = Date.now();
    if (now - this.#sweptAt > this.#windowMs) {
      // Old windows are dropped as time passes, so idle keys do not accumulate.
      for (const [k, w] of this.#windows) {
        if (now - w.startedAt >= this.#windowMs) this.#windows.delete(k);
      }
      this.#sweptAt = now;
    }
    let w = this.#windows.get(key);
    if (!w || now - w.startedAt >= this.#windowMs) {
      w = { startedAt: now, count: 0 };
      this.#windows.set(key, w);
    }
    w.count++;
    if (w.count > this.#limit) {
      const retryAfter = Math.ceil((w.startedAt + this.#windowMs - now) / 1000);
      c.header("retry-after", String(retryAfter));
      throw new HttpError(
        429,
        "rate_limited",
        `Too many ${this.#what}. Try again in ${retryAfter} s.`,
      );
    }
  }
}

/** Middleware answering 429 with `retry-after` once a key used up its window. */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler<AppEnv> {
  const limiter = new FixedWindowLimiter(options);
  return async (c, next) => {
    limiter.take(c, options.key(c));
    await next();
  };
}

/** The client's address as the Node adapter saw it (`local` when there is no socket: tests). */
export function clientAddress(c: Context<AppEnv>): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)
    ?.incoming;
  return incoming?.socket?.remoteAddress ?? "local";
}
