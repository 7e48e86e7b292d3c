/**
 * Rate-limit counts shared by every instance through Redis (`REDIS_URL`): one key per limit, key
 * and window, counted with INCR and given the window's length as its expiry by the first use, in
 * one Lua script (atomic: two instances never both see the first use). While Redis is down the
 * counts fall back to this process's memory: the limits still hold per instance, and a shopper is
 * not refused because the limiter's store is away (the outage is logged by the connection).
 */

import type { Redis } from "ioredis";
import { MemoryRateCounter, type RateCount, type RateCounter } from "./rate-limit.js";

/** INCR, then the window's expiry on a key that has none (its first use); count and ms left. */
const HIT = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}
`;

/** A {@link RateCounter} in Redis, under `<keyPrefix>rate:`. */
export class RedisRateCounter implements RateCounter {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #fallback = new MemoryRateCounter();

  constructor(redis: Redis, options: { keyPrefix: string }) {
    this.#redis = redis;
    this.#prefix = `${options.keyPrefix}rate:`;
  }

  async hit(key: string, windowMs: number): Promise<RateCount> {
    try {
      const [count, ttl] = (await this.#redis.eval(
        HIT,
        1,
        this.#prefix + key,
        String(windowMs),
      )) as [number, number];
      return { count, resetMs: ttl };
    } catch {
      return this.#fallback.hit(key, windowMs);
    }
  }
}
