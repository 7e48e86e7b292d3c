/**
 * The in-process half of the graceful stop: `ShopApp.drain({ graceMs })` refuses new turns (503
 * with `retry-after`, `/healthz` 503), lets running turns finish within the grace period, then
 * cancels and repairs the rest; `GracefulTurnRegistry.settle` waits without cancelling.
 */

import { validateConversation } from "overlap-runtime";
import { describe, expect, it } from "vitest";
import { ConfigError, DEFAULT_SHUTDOWN_GRACE_MS, loadConfig } from "../config.js";
import { GracefulTurnRegistry } from "./graceful-turns.js";
import { createTestShop, readEvents, type TestShop } from "./test-shop.testkit.js";

const DEMO =
  "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart and tell me the total";
/** Slow enough that a turn is still running when the drain starts. */
const PACING = { tokensPerSecond: 80, firstTokenMs: 20 };

async function startTurn(t: TestShop) {
  const session = await t.session();
  const response = await t.call("POST", `/api/sessions/${session.id}/messages`, {
    token: session.token,
    json: { text: DEMO },
  });
  expect(response.status).toBe(200);
  return { session, events: readEvents(response) };
}

describe("ShopApp.drain", () => {
  it("refuses new turns with 503 and retry-after, reports unhealthy, and lets the running turn finish", async () => {
    const t = await createTestShop({ pacing: PACING });
    try {
      const running = await startTurn(t);
      const other = await t.session();
      const draining = t.shop.drain({ graceMs: 30_000 });

      const refused = await t.call("POST", `/api/sessions/${other.id}/messages`, {
        token: other.token,
        json: { text: "hello" },
      });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("5");
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
        "shutting_down",
      );
      const health = await t.call("GET", "/healthz");
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ ok: false, shuttingDown: true });
      // Everything else still answers meanwhile.
      expect(
        (await t.call("GET", `/api/sessions/${other.id}/cart`, { token: other.token })).status,
      ).toBe(200);

      const events = await running.events;
      await draining;
      expect(events.filter((e) => e.event.type === "error")).toEqual([]);
      expect(events.at(-1)?.event).toMatchObject({ type: "done", stopReason: "end_turn" });
      expect(t.shop.turns.running(running.session.id)).toBe(false);
    } finally {
      await t.close();
    }
  });

  it("cancels what still runs after the grace period; the conversation is repaired and valid", async () => {
    const t = await createTestShop({ pacing: { tokensPerSecond: 20, firstTokenMs: 20 } });
    try {
      const running = await startTurn(t);
      const started = Date.now();
      await t.shop.drain({ graceMs: 150 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
      const events = await running.events;
      expect(events.at(-2)?.event).toMatchObject({ type: "error", code: "aborted" });
      expect(events.at(-1)?.event).toMatchObject({ type: "done", stopReason: "error" });
      const messages = await t.store.conversations.load(running.session.id);
      expect(messages.length).toBeGreaterThanOrEqual(2);
      expect(validateConversation(messages)).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it("without a grace period cancels at once (what tests and close() without options do)", async () => {
    const t = await createTestShop({ pacing: { tokensPerSecond: 20, firstTokenMs: 20 } });
    try {
      const running = await startTurn(t);
      await t.shop.drain();
      const events = await running.events;
      expect(events.at(-1)?.event).toMatchObject({ type: "done", stopReason: "error" });
    } finally {
      await t.close();
    }
  });
});

describe("GracefulTurnRegistry.settle", () => {
  it("waits for running bodies without cancelling them, up to the timeout", async () => {
    const turns = new GracefulTurnRegistry();
    expect(await turns.settle(1_000)).toBe(true);

    let finish!: () => void;
    let aborted = false;
    turns.start("a", async (turn) => {
      turn.signal.addEventListener("abort", () => {
        aborted = true;
      });
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      turn.emit({ type: "done", roundCount: 1, stopReason: "end_turn" });
    });
    expect(turns.runningCount).toBe(1);
    expect(await turns.settle(30)).toBe(false);
    expect(aborted).toBe(false);
    expect(turns.running("a")).toBe(true);

    const settled = turns.settle(5_000);
    finish();
    expect(await settled).toBe(true);
    expect(turns.runningCount).toBe(0);
    expect(turns.running("a")).toBe(false);
  });

  it("counts a body that throws as finished", async () => {
    const turns = new GracefulTurnRegistry();
    turns.start("a", async () => {
      throw new Error("boom");
    });
    expect(await turns.settle(1_000)).toBe(true);
    expect(turns.log("a")?.closed).toBe(true);
  });
});

describe("SHUTDOWN_GRACE_MS", () => {
  it("defaults to 10 s, takes whole milliseconds from 0 to 600000, refuses anything else", () => {
    expect(DEFAULT_SHUTDOWN_GRACE_MS).toBe(10_000);
    expect(loadConfig({}).shutdownGraceMs).toBe(10_000);
    expect(loadConfig({ SHUTDOWN_GRACE_MS: "0" }).shutdownGraceMs).toBe(0);
    expect(loadConfig({ SHUTDOWN_GRACE_MS: " 2500 " }).shutdownGraceMs).toBe(2_500);
    for (const value of ["-1", "1.5", "ten", "600001"]) {
      expect(() => loadConfig({ SHUTDOWN_GRACE_MS: value })).toThrow(ConfigError);
      expect(() => loadConfig({ SHUTDOWN_GRACE_MS: value })).toThrow(/SHUTDOWN_GRACE_MS/);
    }
  });
});
