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

/** Answers 429 with `retry-after` once a key used up its window. */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler<AppEnv> {
  const windowMs = options.windowMs ?? 60_000;
  const windows = new Map<string, Window>();
  let sweptAt = Date.now();
  return async (c, next) => {
    const now = Date.now();
    if (now - sweptAt > windowMs) {
      // Old windows are dropped as time passes, so idle keys do not accumulate.
      for (const [key, w] of windows) if (now - w.startedAt >= windowMs) windows.delete(key);
      sweptAt = now;
    }
    const key = options.key(c);
    let w = windows.get(key);
    if (!w || now - w.startedAt >= windowMs) {
      w = { startedAt: now, count: 0 };
      windows.set(key, w);
    }
    w.count++;
    if (w.count > options.limit) {
      const retryAfter = Math.ceil((w.startedAt + windowMs - now) / 1000);
      c.header("retry-after", String(retryAfter));
      throw new HttpError(
        429,
        "rate_limited",
        `Too many ${options.what}. Try again in ${retryAfter} s.`,
      );
    }
    await next();
  };
}

/** The client's address as the Node adapter saw it (`local` when there is no socket: tests). */
export function clientAddress(c: Context<AppEnv>): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)
    ?.incoming;
  return incoming?.socket?.remoteAddress ?? "local";
}
