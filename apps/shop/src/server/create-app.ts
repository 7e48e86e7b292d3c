/**
 * The shop's HTTP API as a Hono app (web-standard Request/Response; Node specifics live in
 * `start-http-server.ts`). Middleware: request id and logging, secure headers, a body size limit.
 * Routes: the home page, health, shopper sessions with their cart, merchant sessions. Every error
 * answers `{ error: { code, message } }`, unknown routes included.
 */

import { Hono } from "hono";
import { secureHeaders } from "hono/secure-headers";
import type { ModelClient } from "overlap-runtime";
import { durableHolderId } from "overlap-runtime/durable";
import type { Logger } from "pino";
import type { ShopAgents } from "../agents/shop-agents.js";
import { DEFAULT_TURN_LEASE_MS } from "../config.js";
import type { ShopStore } from "../db/shop-store.js";
import { DemoBook } from "../demo/demo-book.js";
import { demoTurnBody } from "../demo/demo-turn-body.js";
import type { ShopModel } from "../model/model-from-env.js";
import { type OverlapPath, turnBodyFor } from "../turns/overlap-path.js";
import type { AppEnv } from "./app-env.js";
import { registerApprovalRoutes } from "./approval-routes.js";
import { bodySizeLimit } from "./body-size-limit.js";
import { registerCartRoutes } from "./cart-routes.js";
import { registerConversationRoutes } from "./conversation-routes.js";
import { registerDemoRoutes } from "./demo-routes.js";
import { GracefulTurnRegistry } from "./graceful-turns.js";
import { handleError, handleNotFound } from "./handle-error.js";
import { homePage } from "./home-page.js";
import { errorBody } from "./http-error.js";
import { registerMetricsRoute, ShopMetrics } from "./metrics.js";
import { observedTurnBody } from "./observe-turns.js";
import { clientAddress, type RateCounter, rateLimit } from "./rate-limit.js";
import { requestLogging } from "./request-logging.js";
import { requireMerchantToken } from "./require-merchant-token.js";
import { serveWeb } from "./serve-web.js";
import { registerShopperRoutes } from "./shopper-routes.js";
import { type StreamLimitSettings, StreamLimits } from "./stream-limits.js";
import type { TrustProxy } from "./trust-proxy.js";
import type { TurnRegistry } from "./turn-registry.js";

/** The largest request body accepted by default: 16 KiB (a 4,000-character message fits). */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024;

/** What the app is built from. */
export interface AppDeps {
  store: ShopStore;
  agents: ShopAgents;
  /** The model and how to describe it (see `modelFromEnv`). */
  model: {
    model: ModelClient;
    label: string;
    scripted: boolean;
    /** The model obeys the demo drawer's speed and faults (see `ShopModel.demoControls`). */
    demoControls?: boolean;
    /** Where the whole path reaches the model (see `ShopModel.messagesApi`). */
    messagesApi?: ShopModel["messagesApi"];
  };
  /** Required to create merchant sessions. */
  merchantToken: string;
  /** The bearer token of `GET /metrics` (`METRICS_TOKEN`); default {@link merchantToken}. */
  metricsToken?: string;
  logger: Logger;
  /** Largest request body in bytes (default {@link DEFAULT_MAX_BODY_BYTES}). */
  maxBodyBytes?: number;
  /** SSE heartbeat interval in ms (default 15 s). */
  heartbeatMs?: number;
  /** Sessions one client address may create per minute (default 30). */
  sessionsPerMinute?: number;
  /** Turns one session may start per minute (default 20). */
  turnsPerMinute?: number;
  /** SSE streams open at once per chat, shopper and address (defaults 8, 32, 64). */
  streamLimits?: Partial<StreamLimitSettings>;
  /** The built browser app to serve (default `apps/shop/web/dist`); `null` serves none. */
  webDir?: string | null;
  /** The turn runner (`OVERLAP_PATH`, its body chosen by `turnBodyFor`); default streamed. */
  path?: OverlapPath;
  /** How long a call waits for the user's approval (`APPROVAL_TIMEOUT_MS`; default 5 minutes). */
  approvalTimeoutMs?: number;
  /** How long a chat's turn lease lasts without renewal (`TURN_LEASE_MS`; default 20 s). */
  turnLeaseMs?: number;
  /** Where rate limits count (`REDIS_URL`: `RedisRateCounter`); default this process. */
  rateCounter?: RateCounter;
  /**
   * The reverse proxies whose `X-Forwarded-For` entries give the client's address (`TRUST_PROXY`);
   * default none: the header is ignored.
   */
  trustProxy?: TrustProxy | undefined;
}

/** The app and what its owner needs to stop it. */
export interface ShopApp {
  app: Hono<AppEnv>;
  turns: TurnRegistry;
  /** The app's Prometheus metrics (its own registry), served at `GET /metrics`. */
  metrics: ShopMetrics;
  /** The open SSE streams, counted against their bounds (this process only). */
  streams: StreamLimits;
  /**
   * Refuses new turns (503 `shutting_down`, and `/healthz` answers 503), lets running turns
   * finish for up to `graceMs` (default 0), then cancels the rest and waits for them (their
   * conversations repaired and saved).
   */
  drain(options?: { graceMs?: number }): Promise<void>;
}

/** Builds the app. */
export function createApp(deps: AppDeps): ShopApp {
  const { store, logger } = deps;
  const turns = new GracefulTurnRegistry({
    onError: (err, sessionId) => logger.error({ err, sessionId }, "turn failed"),
    ...(deps.approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs: deps.approvalTimeoutMs }),
    // One turn per chat on every instance sharing the database; every turn readable, and
    // cancelled, from any of them.
    durable: {
      store: store.durable,
      holder: durableHolderId(),
      ttlMs: deps.turnLeaseMs ?? DEFAULT_TURN_LEASE_MS,
    },
    onLeaseError: (err, sessionId) =>
      logger.warn(
        { err, sessionId },
        "turn lease or turn log not written (database or Redis unreachable)",
      ),
  });
  let draining = false;
  const maxBodyBytes = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  const app = new Hono<AppEnv>();
  app.use(requestLogging(logger, { trustProxy: deps.trustProxy }));
  const metrics = new ShopMetrics();
  app.use(metrics.middleware);
  // HSTS is left to the TLS terminator in front: this server itself speaks plain HTTP.
  app.use(secureHeaders({ strictTransportSecurity: false }));
  app.use(
    bodySizeLimit({
      maxSize: maxBodyBytes,
      onError: (c) =>
        c.json(
          errorBody("payload_too_large", `The request body is larger than ${maxBodyBytes} bytes.`),
          413,
        ),
    }),
  );
  // Gives back the stream permit of a request that did not end in a stream (an error answer).
  const streams = new StreamLimits(deps.streamLimits);
  app.use(streams.middleware);
  app.onError(handleError);
  app.notFound(handleNotFound);
  // The browser app's pages and assets; without a build, "/" falls through to the API page below.
  if (deps.webDir !== null) app.use(serveWeb(deps.webDir ? { dir: deps.webDir } : {}));

  app.get("/", (c) => c.html(homePage(deps.model)));
  app.get("/healthz", async (c) => {
    const health = { db: store.dialect, model: deps.model.label, scripted: deps.model.scripted };
    // A load balancer stops sending traffic here while running turns finish.
    if (draining) return c.json({ ok: false, shuttingDown: true, ...health }, 503);
    try {
      await store.getSession("healthz"); // a round trip to the database
    } catch (err) {
      c.get("log").error({ err }, "health check: database unreachable");
      return c.json({ ok: false, ...health }, 503);
    }
    return c.json({ ok: true, ...health });
  });
  registerMetricsRoute(app, metrics, deps.metricsToken ?? deps.merchantToken);

  const sessionLimit = rateLimit({
    limit: deps.sessionsPerMinute ?? 30,
    key: clientAddress,
    what: "new sessions from this address",
    name: "sessions",
    ...(deps.rateCounter ? { counter: deps.rateCounter } : {}),
  });
  // New chats (of a new shopper, or of the token's shopper), the shopper's chats and orders.
  registerShopperRoutes(app, store, sessionLimit, {
    // A forgotten shopper's running turns stop with their tokens.
    onForget: async (ids) => {
      await Promise.all(ids.map((id) => turns.cancel(id)));
    },
  });
  app.post("/api/merchant/sessions", requireMerchantToken(deps.merchantToken), async (c) =>
    c.json(await store.createSession("merchant"), 201),
  );

  // The demo drawer ("How it works"): per shopper session, in memory. Speed and faults need the
  // embedded model on the streamed path; the simulated service latency works everywhere.
  const demo = new DemoBook();
  const path = deps.path ?? "streamed";
  const modelControls = deps.model.demoControls === true && path === "streamed";
  registerDemoRoutes(app, { store, book: demo, modelControls });

  const routeDeps = {
    store,
    model: deps.model.model,
    turns,
    streams,
    logger,
    draining: () => draining,
    turnsPerMinute: deps.turnsPerMinute ?? 20,
    ...(deps.rateCounter ? { rateCounter: deps.rateCounter } : {}),
    ...(deps.heartbeatMs === undefined ? {} : { heartbeatMs: deps.heartbeatMs }),
    // Every turn's events feed the metrics and the per-round log line.
    // Shopper turns run in their session's demo scope.
    turnBody: observedTurnBody(
      metrics,
      demoTurnBody(demo, modelControls, turnBodyFor(path, deps.model)),
    ),
  };
  registerCartRoutes(app, store);
  // Answers to calls waiting for the user's approval (checkout), in the running turn.
  registerApprovalRoutes(app, "/api/sessions", "shopper", { store, turns });
  registerApprovalRoutes(app, "/api/merchant/sessions", "merchant", { store, turns });
  registerConversationRoutes(app, "/api/sessions", "shopper", deps.agents.shopper, routeDeps);
  registerConversationRoutes(
    app,
    "/api/merchant/sessions",
    "merchant",
    deps.agents.merchant,
    routeDeps,
  );

  return {
    app,
    turns,
    metrics,
    streams,
    drain: async (options = {}) => {
      draining = true;
      const graceMs = options.graceMs ?? 0;
      if (graceMs > 0 && !(await turns.settle(graceMs))) {
        logger.warn(
          { graceMs, turns: turns.runningCount },
          "shutdown: turns still running after the grace period are cancelled",
        );
      }
      await turns.close();
    },
  };
}
