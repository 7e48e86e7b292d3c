/**
 * Test support for Redis: `REDIS_URL` (default `redis://127.0.0.1:6379`), whether it answers, and
 * a key prefix of the test run's own that is removed afterwards. As with PostgreSQL, a Redis that
 * does not answer skips its tests loudly, except under `CI=true`, where they run and fail.
 */

import { randomBytes } from "node:crypto";
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import { Redis } from "ioredis";

/** The Redis the tests use. */
export const TEST_REDIS_URL = process.env.REDIS_URL || "redis://127.0.0.1:6379";

/** Null when Redis answers, else why not. */
export async function redisProblem(url = TEST_REDIS_URL): Promise<string | null> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    connectTimeout: 3_000,
    retryStrategy: () => null,
  });
  redis.on("error", () => {});
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    redis.disconnect();
  }
}

/**
 * True when the Redis tests of `what` should be skipped: Redis does not answer and this is not
 * CI (then a loud warning says so). Under `CI=true` they run, and fail.
 */
export async function skipWithoutRedis(what: string): Promise<boolean> {
  const problem = await redisProblem();
  if (problem === null) return false;
  if (process.env.CI === "true") return false;
  console.warn(
    `\n!!! ${what} SKIPPED: cannot reach Redis at ${TEST_REDIS_URL} (${problem}).\n` +
      "!!! Start Redis or set REDIS_URL; under CI=true these tests fail instead.\n",
  );
  return true;
}

/** A key prefix no other test run uses. */
export function uniqueKeyPrefix(): string {
  return `shop-test-${randomBytes(6).toString("hex")}:`;
}

/** Deletes every key under `prefix`; resolves with how many there were. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== "0");
  return deleted;
}

/** A TCP proxy to Redis that a test can cut and restore: Redis going away, as a shop sees it. */
export interface RedisOutage {
  /** `redis://127.0.0.1:<proxy port>`. */
  url: string;
  /** Closes every connection and refuses new ones. */
  cut(): Promise<void>;
  /** Accepts connections again (on the same port). */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a {@link RedisOutage} proxy in front of `target` (default {@link TEST_REDIS_URL}). */
export async function redisProxy(target = TEST_REDIS_URL): Promise<RedisOutage> {
  const to = new URL(target);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(to.port || 6379), to.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  const cut = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  return {
    url: `redis://127.0.0.1:${port}${to.pathname}`,
    cut,
    restore: () => listen(port),
    close: async () => {
      if (server.listening) await cut();
    },
  };
}
