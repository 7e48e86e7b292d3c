/**
 * The client's address of the rate limits and the request log, through the app: without
 * `TRUST_PROXY` the socket's (X-Forwarded-For ignored), with it the first untrusted hop.
 */

import { afterEach, describe, expect, it } from "vitest";
import { createShopAgents } from "../agents/shop-agents.js";
import { openStore } from "../db/open-store.js";
import { modelFromEnv } from "../model/model-from-env.js";
import { shopPolicy } from "../model/shop-policy.js";
import { parseTrustProxy, type TrustProxy } from "../parse-trust-proxy.js";
import { capturedLog } from "./captured-log.testkit.js";
import { createApp } from "./create-app.js";

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** An app allowing two new sessions a minute per client; requests come from `socket`. */
async function shopBehind(trustProxy: TrustProxy | undefined) {
  const store = await openStore({ sqliteFile: ":memory:" });
  const model = await modelFromEnv({ env: {}, policy: shopPolicy, pacing: { fast: true } });
  const { logger, records: logs } = capturedLog();
  const shop = createApp({
    store,
    agents: createShopAgents({ store, model: model.model }),
    model,
    merchantToken: "merchant-token-for-tests-0123456789",
    logger,
    webDir: null,
    sessionsPerMinute: 2,
    trustProxy,
  });
  closers.push(async () => {
    await shop.drain();
    await model.close();
    await store.close();
  });
  /** `POST /api/sessions` from `socket` with an X-Forwarded-For header (when given). */
  const start = async (socket: string, forwardedFor?: string) => {
    const response = await shop.app.request(
      "/api/sessions",
      {
        method: "POST",
        headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor },
      },
      { incoming: { socket: { remoteAddress: socket } } },
    );
    await response.body?.cancel();
    return response.status;
  };
  const clients = () => logs.filter((l) => l.msg === "request").map((l) => l.client);
  return { start, clients };
}

describe("the client's address", () => {
  it("without TRUST_PROXY: the socket's, whatever X-Forwarded-For says", async () => {
    const { start, clients } = await shopBehind(undefined);
    expect(await start("10.0.0.5", "203.0.113.1")).toBe(201);
    expect(await start("10.0.0.5", "203.0.113.2")).toBe(201);
    // A new forwarded address every time does not buy more sessions.
    expect(await start("10.0.0.5", "203.0.113.3")).toBe(429);
    expect(await start("10.0.0.6")).toBe(201);
    expect(clients()).toEqual(["10.0.0.5", "10.0.0.5", "10.0.0.5", "10.0.0.6"]);
  });

  it("behind one trusted hop: the entry the proxy appended, spoofed ones on the left ignored", async () => {
    const { start, clients } = await shopBehind(parseTrustProxy("1"));
    expect(await start("10.0.0.5", "203.0.113.7")).toBe(201);
    expect(await start("10.0.0.5", "1.1.1.1, 203.0.113.7")).toBe(201);
    // The same client, whatever it wrote in front of the proxy's entry: its limit is used up.
    expect(await start("10.0.0.5", "9.9.9.9, 203.0.113.7")).toBe(429);
    // Another client behind the same proxy has a limit of its own.
    expect(await start("10.0.0.5", "198.51.100.4")).toBe(201);
    expect(clients()).toEqual(["203.0.113.7", "203.0.113.7", "203.0.113.7", "198.51.100.4"]);
  });

  it("behind listed proxies: followed only from a listed proxy's socket", async () => {
    const { start, clients } = await shopBehind(parseTrustProxy("10.0.0.0/8, fd00::/8"));
    expect(await start("::ffff:10.0.0.5", "203.0.113.7, 10.0.0.9")).toBe(201);
    expect(await start("fd00::1", "[2001:db8::7]:443")).toBe(201);
    // Straight from the internet: the header is the sender's own, not followed.
    expect(await start("198.51.100.4", "203.0.113.7")).toBe(201);
    expect(clients()).toEqual(["203.0.113.7", "2001:db8::7", "198.51.100.4"]);
  });
});
