/**
 * Rate limits counted in a real Redis: two instances (a connection each) share one count per
 * limit and key; the window's expiry is set by its first use; without Redis the counts fall back
 * to the instance's memory instead of failing requests.
 */

import type { Context } from "hono";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppEnv } from "./app-env.js";
import { HttpError } from "./http-error.js";
import { FixedWindowLimiter, MemoryRateCounter } from "./rate-limit.js";
import { connectRedis } from "./redis-connection.js";
import { RedisRateCounter } from "./redis-rate-counter.js";
import {
  deleteKeys,
  redisProxy,
  skipWithoutRedis,
  TEST_REDIS_URL,
  uniqueKeyPrefix,
} from "./redis-test-support.testkit.js";

const skip = await skipWithoutRedis("Redis rate limit tests");
const silent = pino({ level: "silent" });
const prefix = uniqueKeyPrefix();

/** Just enough of a request context for a limiter: the headers it sets. */
function fakeContext(): { c: Context<AppEnv>; headers: Map<string, string> } {
  const headers = new Map<string, string>();
  const c = { header: (name: string, value: string) => headers.set(name, value) };
  return { c: c as unknown as Context<AppEnv>, headers };
}

/** The limiter's answer to one more use: "ok", or the refusal's status and retry-after. */
async function attempt(limiter: FixedWindowLimiter, key: string): Promise<string> {
  const { c, headers } = fakeContext();
  try {
    await limiter.take(c, key);
    return "ok";
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return `${error.status} retry-after ${headers.get("retry-after")}`;
  }
}

describe.skipIf(skip)("RedisRateCounter: limits counted across instances", () => {
  type Redis = Awaited<ReturnType<typeof connectRedis>>;
  let a: Redis;
  let b: Redis;
  beforeAll(async () => {
    a = await connectRedis({ url: TEST_REDIS_URL, logger: silent });
    b = await connectRedis({ url: TEST_REDIS_URL, logger: silent });
  });
  afterAll(async () => {
    await deleteKeys(a, prefix);
    a.disconnect();
    b.disconnect();
  });

  it("uses on two instances count against one limit", async () => {
    const options = { limit: 3, what: "new sessions from this address", name: "sessions" };
    const onA = new FixedWindowLimiter({
      ...options,
      counter: new RedisRateCounter(a, { keyPrefix: prefix }),
    });
    const onB = new FixedWindowLimiter({
      ...options,
      counter: new RedisRateCounter(b, { keyPrefix: prefix }),
    });
    const answers = [];
    for (const limiter of [onA, onB, onA, onB, onA])
      answers.push(await attempt(limiter, "10.0.0.1"));
    expect(answers.slice(0, 3)).toEqual(["ok", "ok", "ok"]);
    expect(answers.slice(3)).toEqual([
      expect.stringMatching(/^429 retry-after ([1-9]|[1-5]\d|60)$/),
      expect.stringMatching(/^429 retry-after/),
    ]);
    // Another key, and another limit with the same key, have counts of their own.
    expect(await attempt(onB, "10.0.0.2")).toBe("ok");
    const turns = new FixedWindowLimiter({
      limit: 1,
      what: "messages",
      name: "turns",
      counter: new RedisRateCounter(a, { keyPrefix: prefix }),
    });
    expect(await attempt(turns, "10.0.0.1")).toBe("ok");
  });

  it("a window's key expires with the window, set by its first use", async () => {
    const counter = new RedisRateCounter(a, { keyPrefix: prefix });
    const first = await counter.hit("window:k", 30_000);
    const second = await counter.hit("window:k", 30_000);
    expect([first.count, second.count]).toEqual([1, 2]);
    expect(second.resetMs).toBeGreaterThan(0);
    expect(second.resetMs).toBeLessThanOrEqual(30_000);
    const ttl = await a.pttl(`${prefix}rate:window:k`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });

  it("while Redis is away the counts fall back to this instance's memory", async () => {
    const proxy = await redisProxy();
    try {
      const redis = await connectRedis({ url: proxy.url, logger: silent });
      const limiter = new FixedWindowLimiter({
        limit: 2,
        what: "things",
        counter: new RedisRateCounter(redis, { keyPrefix: prefix }),
      });
      await proxy.cut();
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await attempt(limiter, "away"));
      expect(answers).toEqual(["ok", "ok", expect.stringMatching(/^429/)]);
      redis.disconnect();
    } finally {
      await proxy.close();
    }
  });
});

describe("MemoryRateCounter", () => {
  it("counts per key in fixed windows and says when the window ends", () => {
    const counter = new MemoryRateCounter();
    expect(counter.hit("x", 60_000).count).toBe(1);
    expect(counter.hit("x", 60_000).count).toBe(2);
    expect(counter.hit("y", 60_000).count).toBe(1);
    const { resetMs } = counter.hit("x", 60_000);
    expect(resetMs).toBeGreaterThan(0);
    expect(resetMs).toBeLessThanOrEqual(60_000);
  });
});
