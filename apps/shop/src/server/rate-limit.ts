/**
 * A fixed-window rate limit per key: bounds how fast one client can create sessions and one
 * session can start turns (each turn costs model tokens when a real model is configured). The
 * counts live in this process ({@link MemoryRateCounter}) or, with `REDIS_URL`, in Redis, shared by
 * every instance (`redis-rate-counter.ts`): a coarse guard in front, not an accounting system.
 */

import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "./app-env.js";
import { HttpError } from "./http-error.js";
import { forwardedClient, type TrustProxy } from "./trust-proxy.js";

/** One counted use: the uses of the key in its current window so far, this one included. */
export interface RateCount {
  count: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
}

/** Where the uses per key and window are counted. */
export interface RateCounter {
  /** Counts one use of `key` in its current fixed window of `windowMs`. */
  hit(key: string, windowMs: number): RateCount | Promise<RateCount>;
}

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
  /** Names the limit in the counter's keys (two limits never share a count). Default `what`. */
  name?: string;
  /** Where uses are counted. Default a {@link MemoryRateCounter} of this limit's own. */
  counter?: RateCounter;
}

interface Window {
  startedAt: number;
  count: number;
}

/** Counts uses per key in fixed windows, in this process. */
export class MemoryRateCounter implements RateCounter {
  readonly #windows = new Map<string, Window>();
  #sweptAt = Date.now();
  #longestWindowMs = 0;

  hit(key: string, windowMs: number): RateCount {
    const now = Date.now();
    this.#longestWindowMs = Math.max(this.#longestWindowMs, windowMs);
    if (now - this.#sweptAt > this.#longestWindowMs) {
      // Old windows are dropped as time passes, so idle keys do not accumulate.
      for (const [k, w] of this.#windows) {
        if (now - w.startedAt >= this.#longestWindowMs) this.#windows.delete(k);
      }
      this.#sweptAt = now;
    }
    let w = this.#windows.get(key);
    if (!w || now - w.startedAt >= windowMs) {
      w = { startedAt: now, count: 0 };
      this.#windows.set(key, w);
    }
    w.count++;
    return { count: w.count, resetMs: w.startedAt + windowMs - now };
  }
}

/** A limit of uses per key and fixed window. */
export class FixedWindowLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #what: string;
  readonly #name: string;
  readonly #counter: RateCounter;

  constructor(options: Omit<RateLimitOptions, "key">) {
    this.#limit = options.limit;
    this.#windowMs = options.windowMs ?? 60_000;
    this.#what = options.what;
    this.#name = options.name ?? options.what;
    this.#counter = options.counter ?? new MemoryRateCounter();
  }

  /** Counts one use of `key`; throws a 429 HttpError (setting `retry-after`) past the limit. */
  async take(c: Context<AppEnv>, key: string): Promise<void> {
    const { count, resetMs } = await this.#counter.hit(`${this.#name}:${key}`, this.#windowMs);
    if (count > this.#limit) {
      const retryAfter = Math.max(1, Math.ceil(resetMs / 1000));
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
    await limiter.take(c, options.key(c));
    await next();
  };
}

/**
 * The client's address: the one the request log resolved for this request (see
 * {@link resolveClientAddress}), else the socket's as the Node adapter saw it (`local` when there
 * is no socket: tests).
 */
export function clientAddress(c: Context<AppEnv>): string {
  return (c.get("clientAddress") as string | undefined) ?? socketAddress(c) ?? "local";
}

/**
 * The client's address of a request: the socket's; with `trust` (`TRUST_PROXY`), the first hop
 * of `X-Forwarded-For` that is not a trusted proxy, walking from the socket's (`trust-proxy.ts`).
 * Unset, the header is ignored: anyone can write it.
 */
export function resolveClientAddress(c: Context<AppEnv>, trust: TrustProxy | undefined): string {
  const socket = socketAddress(c);
  if (!trust) return socket ?? "local";
  return forwardedClient(socket, c.req.header("x-forwarded-for"), trust) ?? socket ?? "local";
}

/** The address of the socket's peer, as the Node adapter saw it; undefined without a socket. */
function socketAddress(c: Context<AppEnv>): string | undefined {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)
    ?.incoming;
  return incoming?.socket?.remoteAddress;
}
