/**
 * Two instances' turn registries on one PostgreSQL and no Redis: a turn running on A is read on
 * B live from any Last-Event-ID, and a cancel or an approval sent to B reaches it on A.
 */

import { randomBytes } from "node:crypto";
import type { AgentEvent, LoggedEvent } from "overlap-runtime";
import { durableHolderId } from "overlap-runtime/durable";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../db/open-store.js";
import type { ShopStore } from "../db/shop-store.js";
import { postgresProblem, TEST_DATABASE_URL } from "./services.testkit.js";
import { TurnRegistry } from "./turn-registry.js";

const problem = await postgresProblem();
if (problem !== null && process.env.CI === "true") {
  throw new Error(`PostgreSQL is required under CI: ${problem}`);
}

const text = (i: number): AgentEvent => ({
  type: "text-delta",
  round: 1,
  index: 0,
  text: `t${i}`,
});
const done: AgentEvent = { type: "done", roundCount: 1, stopReason: "end_turn" };

/** Reads a view until it ends (or `max` events), within a bound. */
async function readAll(
  events: AsyncIterable<LoggedEvent>,
  max = Number.POSITIVE_INFINITY,
): Promise<LoggedEvent[]> {
  const out: LoggedEvent[] = [];
  for await (const e of events) {
    out.push(e);
    if (out.length >= max) break;
  }
  return out;
}

describe.skipIf(problem !== null)("turns across two instances on PostgreSQL without Redis", () => {
  const schema = `shop_turns_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  let stores: ShopStore[] = [];
  let a: TurnRegistry;
  let b: TurnRegistry;

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const open = () => openStore({ databaseUrl: TEST_DATABASE_URL, pgSchema: schema });
    stores = [await open(), await open()];
    // Renewals 10 s apart: a cancel that arrives quicker came by NOTIFY.
    const registry = (store: ShopStore) =>
      new TurnRegistry({
        durable: { store: store.durable, holder: durableHolderId(), ttlMs: 30_000 },
      });
    a = registry(stores[0]!);
    b = registry(stores[1]!);
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const store of stores) await store.close();
    await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
  });

  /** Starts a turn of a new chat on A. */
  async function startOnA(body: Parameters<TurnRegistry["start"]>[1]) {
    const chat = (await stores[0]!.createSession("shopper")).id;
    const claimed = await a.claim(chat);
    if (!claimed.ok) throw new Error("refused");
    const log = a.start(chat, body, claimed.claim)!;
    return { chat, log };
  }

  it("a turn running on A is read on B from a Last-Event-ID, live: ids continue, nothing twice or missing", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { chat, log } = await startOnA(async (t) => {
      for (let i = 1; i <= 3; i++) t.emit(text(i));
      await gate;
      for (let i = 4; i <= 6; i++) t.emit(text(i));
      t.emit(done);
    });
    const first = await readAll(log.read(), 2);
    const view = await b.find(chat);
    expect(view).toMatchObject({ turnId: log.turnId, running: true });
    // The claim on B is refused while A's turn runs.
    expect(await b.claim(chat)).toMatchObject({ ok: false });
    const rest = readAll(view!.read(first.at(-1)!.id));
    release();
    const resumed = await rest;
    const ids = [...first, ...resumed].map((e) => e.id);
    expect(ids).toEqual(Array.from({ length: 7 }, (_, i) => `${log.turnId}:${i + 1}`));
    expect(resumed.at(-1)?.event.type).toBe("done");
    // The lease went with the turn's end: B may start the next turn at once.
    const next = await b.claim(chat);
    expect(next).toMatchObject({ ok: true });
    if (next.ok) await next.claim.release();
  });

  it("a cancel sent to B stops the turn on A, quicker than a renewal, and waits for its end", async () => {
    let aborted = false;
    const { chat, log } = await startOnA(async (t) => {
      t.emit(text(1));
      await new Promise<void>((resolve) => t.signal.addEventListener("abort", () => resolve()));
      aborted = true;
      t.emit({ type: "error", code: "aborted", message: "The request was cancelled." });
      t.emit({ type: "done", roundCount: 0, stopReason: "error" });
    });
    await readAll(log.read(), 1);
    const started = Date.now();
    expect(await b.cancel(chat)).toBe(true);
    // Resolved once the turn ended: its lease is gone, its log closed.
    expect(aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(await stores[1]!.durable.leases.current(chat)).toBeUndefined();
    expect((await readAll((await b.find(chat))!.read())).map((e) => e.event.type)).toEqual([
      "text-delta",
      "error",
      "done",
    ]);
    expect(await b.cancel(chat)).toBe(false);
  });

  it("an approval and a cancel sent to B reach the turn running on A", async () => {
    let release: () => void = () => {};
    const waiting = new Promise<void>((resolve) => {
      release = resolve;
    });
    const request = { callId: "call-1", name: "checkout", input: {}, summary: "Place the order" };
    const { chat, log } = await startOnA(async (t) => {
      t.emit(text(1));
      const asked = t.approvals.wait("call-1", t.signal, request);
      release();
      const decision = await asked;
      t.emit(text(decision.approve ? 2 : 3));
      // Then waits until cancelled.
      await new Promise<void>((resolve) => t.signal.addEventListener("abort", () => resolve()));
      t.emit(done);
    });
    await waiting;
    expect(await b.decide(chat, "nope", { approve: true })).toEqual({ status: "unknown" });
    expect(await b.decide(chat, "call-1", { approve: true })).toEqual({ status: "resolved" });
    expect(await b.decide(chat, "call-1", { approve: false })).toEqual({
      status: "ended",
      decision: "approved",
    });
    expect(await b.cancel(chat)).toBe(true); // resolves once A's turn ended
    expect(log.closed).toBe(true);
    const events = await readAll(log.read());
    expect(events.map((e) => e.event)).toEqual([text(1), text(2), done]);
    // Nothing runs any more: nothing to pass on.
    expect(await b.cancel(chat)).toBe(false);
    expect(await b.decide(chat, "call-1", { approve: true })).toEqual({ status: "unknown" });
  });
});
