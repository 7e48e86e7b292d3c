/**
 * Test support for the server: a whole shop on an in-memory SQLite store (the real agents, the
 * embedded scripted model or a given one, the real app), requests through `app.request()`, and a
 * reader that turns an SSE response into logged AgentEvents. Not used by the product.
 */

import type { AgentEvent, LoggedEvent } from "overlap-runtime";
import { decodeSseStream } from "overlap-runtime/core";
import type { Pacing, SimPolicy } from "overlap-sim";
import { createShopAgents, type ShopAgents } from "../agents/shop-agents.js";
import { openStore } from "../db/open-store.js";
import type { SessionKind, ShopStore } from "../db/shop-store.js";
import { modelFromEnv } from "../model/model-from-env.js";
import { shopPolicy } from "../model/shop-policy.js";
import type { OverlapPath } from "../turns/overlap-path.js";
import { capturedLog } from "./captured-log.testkit.js";
import { type AppDeps, createApp, type ShopApp } from "./create-app.js";

/** The merchant token of every test shop. */
export const TEST_MERCHANT_TOKEN = "merchant-token-for-tests-0123456789";

/** Options of {@link createTestShop}. */
export interface TestShopOptions {
  /** The model; default the embedded scripted model with the shop's policy. */
  model?: AppDeps["model"] & { close?: () => Promise<void> };
  policy?: SimPolicy;
  /** Pacing of the embedded model; default fast (no waiting). */
  pacing?: Partial<Pacing>;
  store?: ShopStore;
  maxBodyBytes?: number;
  heartbeatMs?: number;
  sessionsPerMinute?: number;
  turnsPerMinute?: number;
  /** SSE streams open at once per chat, shopper and address. */
  streamLimits?: AppDeps["streamLimits"];
  /** The turn runner, as `OVERLAP_PATH` picks it; default `streamed`. */
  path?: OverlapPath;
  /** How long checkout waits for the shopper's approval (`APPROVAL_TIMEOUT_MS`). */
  approvalTimeoutMs?: number;
}

/** Options of one {@link TestShop.call}. */
export interface CallInit {
  token?: string;
  /** Sent as a JSON body. */
  json?: unknown;
  /** Sent as is. */
  body?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** A running test shop. */
export interface TestShop {
  store: ShopStore;
  agents: ShopAgents;
  shop: ShopApp;
  model: AppDeps["model"];
  /** Every log line written, as text (to check what is and is not logged). */
  logs: string[];
  call(method: string, path: string, init?: CallInit): Promise<Response>;
  /** Creates a session over HTTP. */
  session(kind?: SessionKind): Promise<{ id: string; token: string }>;
  close(): Promise<void>;
}

/** Builds a test shop. */
export async function createTestShop(options: TestShopOptions = {}): Promise<TestShop> {
  const store = options.store ?? (await openStore({ sqliteFile: ":memory:" }));
  const model =
    options.model ??
    (await modelFromEnv({
      env: {},
      policy: options.policy ?? shopPolicy,
      pacing: options.pacing ?? { fast: true },
    }));
  const { logger, lines: logs } = capturedLog("debug");
  const agents = createShopAgents({ store, model: model.model });
  const shop = createApp({
    store,
    agents,
    model,
    merchantToken: TEST_MERCHANT_TOKEN,
    logger,
    // The API's own tests: "/" is the API page whether or not the browser app was built.
    webDir: null,
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    ...(options.sessionsPerMinute === undefined
      ? {}
      : { sessionsPerMinute: options.sessionsPerMinute }),
    ...(options.turnsPerMinute === undefined ? {} : { turnsPerMinute: options.turnsPerMinute }),
    ...(options.streamLimits === undefined ? {} : { streamLimits: options.streamLimits }),
    ...(options.path === undefined ? {} : { path: options.path }),
    ...(options.approvalTimeoutMs === undefined
      ? {}
      : { approvalTimeoutMs: options.approvalTimeoutMs }),
  });
  const call = async (method: string, path: string, init: CallInit = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
    let body: string | undefined = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers["content-type"] = "application/json";
    }
    return shop.app.request(path, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      ...(init.signal ? { signal: init.signal } : {}),
    });
  };
  return {
    store,
    agents,
    shop,
    model,
    logs,
    call,
    async session(kind = "shopper") {
      const response =
        kind === "shopper"
          ? await call("POST", "/api/sessions")
          : await call("POST", "/api/merchant/sessions", { token: TEST_MERCHANT_TOKEN });
      if (response.status !== 201) throw new Error(`session: ${response.status}`);
      return (await response.json()) as { id: string; token: string };
    },
    async close() {
      await shop.drain();
      await model.close?.();
      if (!options.store) await store.close();
    },
  };
}

/** Options of {@link readEvents}. */
export interface ReadEventsOptions {
  /** Stop (cancel the body: a disconnect) once this returns true for the events so far. */
  until?: (events: readonly LoggedEvent[]) => boolean;
}

/** Reads an SSE response's frames as logged AgentEvents, to its end or until `until`. */
export async function readEvents(
  response: Response,
  options: ReadEventsOptions = {},
): Promise<LoggedEvent[]> {
  if (!response.body) throw new Error(`no body (status ${response.status})`);
  const events: LoggedEvent[] = [];
  for await (const frame of decodeSseStream(response.body)) {
    if (frame.id === undefined || frame.event === undefined) continue; // retry: frames
    events.push({ id: frame.id, event: JSON.parse(frame.data) as AgentEvent });
    if (options.until?.(events)) break; // leaving the loop cancels the body
  }
  return events;
}

/** The sequence number of an event id `<turn>:<seq>`. */
export function seqOf(id: string): number {
  return Number(id.slice(id.lastIndexOf(":") + 1));
}
