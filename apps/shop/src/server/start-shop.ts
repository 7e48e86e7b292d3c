/**
 * Starts the whole shop in one call: the store (migrated), the model (Claude, an
 * OpenAI-compatible server or the embedded scripted model), both agents, the app and the HTTP
 * server. `close` is the graceful shutdown: refuse new turns (503), let running turns finish within
 * a grace period, cancel the rest (their conversations are repaired and saved), stop the HTTP
 * server, then close the model and the store.
 */

import { redisTurnEvents } from "overlap-runtime/redis";
import type { Pacing, SimPolicy } from "overlap-sim";
import type { Logger } from "pino";
import { createShopAgents } from "../agents/shop-agents.js";
import type { ShopConfig } from "../config.js";
import { openStore } from "../db/open-store.js";
import type { ShopStore } from "../db/shop-store.js";
import { modelFromEnv, type ShopModel } from "../model/model-from-env.js";
import { overlapPathFromEnv } from "../turns/overlap-path.js";
import { createApp } from "./create-app.js";
import { type OtelExport, startOtelExport } from "./otel-export.js";
import { connectRedis } from "./redis-connection.js";
import { RedisRateCounter } from "./redis-rate-counter.js";
import { startHttpServer } from "./start-http-server.js";

/** Options of {@link startShop}. */
export interface StartShopOptions {
  config: ShopConfig;
  logger: Logger;
  /** The environment the model is chosen from. */
  env: NodeJS.ProcessEnv;
  /** The embedded scripted model's policy (used when no provider is configured). */
  policy: SimPolicy;
  /** The scripted model's pacing (default: like a real model). */
  pacing?: Partial<Pacing>;
}

/** A running shop. */
export interface RunningShop {
  url: string;
  port: number;
  store: ShopStore;
  model: ShopModel;
  /**
   * Graceful shutdown: new turns are refused at once (503 `shutting_down` with `retry-after`),
   * running turns get `graceMs` (default 0: cancelled at once) to finish, the rest are cancelled
   * and repaired; then the HTTP server, the model and the store close. Safe to call more than
   * once (later calls wait for the first).
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** Opens everything and starts listening on `config.port`. */
export async function startShop(options: StartShopOptions): Promise<RunningShop> {
  const { config, logger } = options;
  // REDIS_URL: turn events and rate limits shared by every instance in Redis; unreachable at
  // start is an error. Without it the database carries the turns' events (and, on PostgreSQL,
  // the wake-ups between instances) alone.
  const redis = config.redis ? await connectRedis({ url: config.redis.url, logger }) : undefined;
  const store = await openStore({
    ...(config.database.kind === "postgres"
      ? { databaseUrl: config.database.connectionString }
      : { sqliteFile: config.database.file }),
    ...(config.toolDelayMs > 0 ? { recordDelayMs: config.toolDelayMs } : {}),
    tokenTtlMs: config.sessionTokenTtlMs,
    ...(redis && config.redis
      ? { turnEvents: redisTurnEvents(redis, { keyPrefix: config.redis.keyPrefix }) }
      : {}),
  }).catch((error: unknown) => {
    redis?.disconnect();
    throw error;
  });
  let model: ShopModel | undefined;
  let otel: OtelExport | undefined;
  try {
    model = await modelFromEnv({
      env: options.env,
      policy: options.policy,
      ...(options.pacing ? { pacing: options.pacing } : {}),
    });
    // Before the first turn: with OTEL_EXPORTER_OTLP_ENDPOINT, every turn is traced.
    otel = startOtelExport(options.env, logger);
    const agents = createShopAgents({ store, model: model.model });
    const shop = createApp({
      store,
      agents,
      model,
      merchantToken: config.merchantToken,
      metricsToken: config.metricsToken,
      logger,
      // OVERLAP_PATH: the streamed runner (default) or the whole-response one (Claude Agent SDK).
      path: overlapPathFromEnv(options.env),
      approvalTimeoutMs: config.approvalTimeoutMs,
      turnLeaseMs: config.turnLeaseMs,
      sessionsPerMinute: config.sessionsPerMinute,
      turnsPerMinute: config.turnsPerMinute,
      streamLimits: config.streamLimits,
      trustProxy: config.trustProxy,
      ...(redis && config.redis
        ? { rateCounter: new RedisRateCounter(redis, { keyPrefix: config.redis.keyPrefix }) }
        : {}),
    });
    let acceptErrorLoggedAt = 0;
    const http = await startHttpServer(shop.app.fetch, {
      port: config.port,
      hostname: config.host,
      maxConnections: config.maxConnections,
      maxConnectionsPerAddress: config.maxConnectionsPerAddress,
      trustProxy: config.trustProxy,
      headersTimeoutMs: config.headersTimeoutMs,
      requestTimeoutMs: config.requestTimeoutMs,
      onAcceptError: (err) => {
        // Once a second at most: a process out of file descriptors fails every accept.
        if (Date.now() - acceptErrorLoggedAt < 1_000) return;
        acceptErrorLoggedAt = Date.now();
        logger.warn({ err }, "could not accept a connection");
      },
    });
    const opened = model;
    let closing: Promise<void> | undefined;
    const close = async (graceMs: number) => {
      // Still listening meanwhile: a new turn is answered 503, a reload can resume its stream.
      await shop.drain({ graceMs });
      await http.close();
      await redis?.quit().catch(() => redis.disconnect());
      await opened.close();
      await store.close();
      await otel?.shutdown();
    };
    return {
      url: http.url,
      port: http.port,
      store,
      model: opened,
      close: (closeOptions = {}) => {
        closing ??= close(closeOptions.graceMs ?? 0);
        return closing;
      },
    };
  } catch (error) {
    await model?.close().catch(() => {});
    redis?.disconnect();
    await store.close().catch(() => {});
    await otel?.shutdown();
    throw error;
  }
}
