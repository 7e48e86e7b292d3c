/**
 * The shop's Redis connection (`REDIS_URL`): opened at start, where an unreachable Redis stops the
 * start with a clear sentence (an operator who set `REDIS_URL` wants the instances to share turns
 * and limits, not to run alone silently). Later outages do not stop the server: commands fail at
 * once (no offline queue, so no request waits for a Redis that is down), the connection is retried
 * in the background, and the outage is logged once when it starts and once when it ends.
 */

import { Redis } from "ioredis";
import type { Logger } from "pino";
import { describeRedisUrl } from "../config.js";

/** How long a command may wait for its answer. */
const COMMAND_TIMEOUT_MS = 2_000;

/** Redis could not be reached when the server started. */
export class RedisUnreachableError extends Error {
  override readonly name = "RedisUnreachableError";
}

/** Options of {@link connectRedis}. */
export interface ConnectRedisOptions {
  url: string;
  logger: Logger;
  /** How long the first connection may take (default 5 s). */
  connectTimeoutMs?: number;
}

/** Opens and checks the connection. @throws RedisUnreachableError when Redis does not answer. */
export async function connectRedis(options: ConnectRedisOptions): Promise<Redis> {
  const where = describeRedisUrl(options.url);
  const redis = new Redis(options.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    enableAutoPipelining: true,
    connectTimeout: options.connectTimeoutMs ?? 5_000,
    // A Redis that hangs fails the command instead of holding a turn (or a request) forever.
    commandTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  let lastError: Error | undefined;
  let started = false;
  let down = false;
  redis.on("error", (err: Error) => {
    lastError = err;
    if (!started || down) return; // a failed start is the caller's error, not a log line
    down = true;
    options.logger.error(
      { err, redis: where },
      "Redis unreachable: turns go on with their events kept in this process (other instances " +
        "cannot resume them meanwhile) and rate limits count per process until it is back",
    );
  });
  redis.on("ready", () => {
    if (!down) return;
    down = false;
    options.logger.info({ redis: where }, "Redis reachable again");
  });
  try {
    await redis.connect();
    await redis.ping();
    started = true;
  } catch (error) {
    redis.disconnect();
    const reason = lastError?.message ?? (error instanceof Error ? error.message : String(error));
    throw new RedisUnreachableError(
      `cannot reach Redis at ${where} (REDIS_URL): ${reason}. Start it, or unset REDIS_URL to run one instance without it.`,
    );
  }
  return redis;
}

/**
 * A connection of its own for a blocking reader (`XREAD BLOCK` holds its connection), whose
 * commands may wait up to `commandTimeoutMs` (longer than they block).
 */
export async function blockingConnection(redis: Redis, commandTimeoutMs: number): Promise<Redis> {
  const conn = redis.duplicate({ enableAutoPipelining: false, commandTimeout: commandTimeoutMs });
  conn.on("error", () => {}); // the shared connection reports outages; this one just fails
  try {
    await conn.connect();
  } catch (error) {
    conn.disconnect();
    throw error;
  }
  return conn;
}
