/**
 * Retention of turn event logs, registered by the durable store suite on every database: ended
 * turns older than the bound are deleted with their events, in batches; a running turn never is;
 * a dead instance's turn nobody ended is ended first; a reader resuming a deleted turn is told it
 * ended; a turn's end prunes on its own.
 */

import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../protocol/agent-event.js";
import { collect, type DurableHarness } from "./durable-harness.testkit.js";
import type { DurableStore } from "./durable-store.js";

const HOUR = 3_600_000;

/** Runs a whole turn of `chat` on `store`: claimed, three events, ended with `done`. */
async function endedTurn(store: DurableStore, chat: string, turnId: string): Promise<void> {
  await store.leases.claim(chat, { turnId, holder: "a", ttlMs: HOUR });
  const writer = await store.events.start(chat, turnId, "a");
  for (let i = 1; i <= 3; i++) writer.append({ type: "text-delta", text: `${i}` } as AgentEvent);
  await writer.flush();
  await store.events.finish(chat, turnId, writer, [
    { type: "done", roundCount: 1, stopReason: "end_turn" },
  ]);
}

async function rowsOf(store: DurableStore, table: string, turnId: string): Promise<number> {
  const { rows } = await store.driver.query(`SELECT turn_id FROM ${table} WHERE turn_id = ?`, [
    turnId,
  ]);
  return rows.length;
}

/** Registers the retention tests (inside the durable store suite's `describe`). */
export function registerRetentionTests(harnessOf: () => Promise<DurableHarness>): void {
  describe("retention of ended turns' logs", () => {
    it("deletes ended turns older than the bound with their events, in batches; never a running one; ends a dead one first", async () => {
      const harness = await harnessOf();
      try {
        let clock = 1_000_000_000;
        const store = await harness.open({
          now: () => clock,
          events: { retainEndedMs: Number.POSITIVE_INFINITY, pollMs: 20 },
        });
        await endedTurn(store, "old", "old-1");
        await endedTurn(store, "old", "old-2");
        // A turn that runs for hours, renewing its lease, and one whose instance died.
        await store.leases.claim("run", { turnId: "run-1", holder: "a", ttlMs: 1_000 });
        const running = await store.events.start("run", "run-1", "a");
        running.append({ type: "text-delta", text: "still going" } as AgentEvent);
        await running.flush();
        await store.leases.claim("dead", { turnId: "dead-1", holder: "b", ttlMs: 1_000 });
        await store.events.start("dead", "dead-1", "b");
        clock += 2 * HOUR;
        await store.leases.renew("run", "run-1", HOUR);
        await endedTurn(store, "new", "new-1");

        const first = await store.pruneEndedTurns({ olderThanMs: HOUR, batchSize: 1 });
        expect(first).toMatchObject({ turns: 2, ended: 1 });
        expect([0, 8]).toContain(first.events); // none in the table with the Redis transport
        for (const gone of ["old-1", "old-2"]) {
          expect(await rowsOf(store, store.tables.turns, gone)).toBe(0);
          expect(await rowsOf(store, store.tables.events, gone)).toBe(0);
        }
        expect(await store.events.latest("old")).toBeUndefined();
        expect(await store.events.latest("new")).toEqual({ turnId: "new-1", ended: true });
        expect(await store.events.latest("run")).toEqual({ turnId: "run-1", ended: false });
        // The dead turn is ended as a reader ends it, and kept until it too ended long ago.
        const dead = await collect(store.events.read("dead"));
        expect(dead.map((e) => [e.id, e.event.type])).toEqual([
          ["dead-1:1", "error"],
          ["dead-1:2", "done"],
        ]);
        expect(dead[0]?.event).toMatchObject({ code: "turn_crashed" });

        // A reader resuming a deleted turn learns that it ended, with the ids it expects next.
        const resumed = await collect(store.events.read("old", "old-2:2"));
        expect(resumed.map((e) => [e.id, e.event.type])).toEqual([
          ["old-2:3", "error"],
          ["old-2:4", "done"],
        ]);
        expect(resumed[0]?.event).toMatchObject({ code: "turn_log_expired" });
        // A reload (no event id) of a chat whose log is gone reads nothing.
        expect(await collect(store.events.read("old"))).toEqual([]);

        clock += 2 * HOUR;
        await store.leases.renew("run", "run-1", HOUR);
        const second = await store.pruneEndedTurns({ olderThanMs: HOUR, batchSize: 1 });
        expect(second).toMatchObject({ turns: 2, ended: 0 });
        expect(await store.events.latest("dead")).toBeUndefined();
        expect(await store.events.latest("new")).toBeUndefined();
        // The running turn is whole and still followed.
        const live = await collect(
          store.events.read("run", "run-1:0", AbortSignal.timeout(300)),
          5_000,
        );
        expect(live.map((e) => e.id)).toEqual(["run-1:1"]);
        expect(await store.pruneEndedTurns({ olderThanMs: HOUR })).toEqual({
          turns: 0,
          events: 0,
          ended: 0,
        });
      } finally {
        await harness.dispose();
      }
    });

    it("a turn's end deletes the turns that ended longer ago than retainEndedMs, on its own", async () => {
      const harness = await harnessOf();
      try {
        let clock = 1_000_000_000;
        const options = { now: () => clock, events: { retainEndedMs: 10 * 60_000 } };
        const store = await harness.open(options);
        const reader = await harness.open({ ...options, events: { pollMs: 20 } });
        await endedTurn(store, "a", "a-1");
        clock += 11 * 60_000;
        await endedTurn(store, "b", "b-1");
        // Pruning runs after the end, without delaying it: wait for it, within a generous bound.
        const until = Date.now() + 10_000;
        while ((await reader.events.latest("a")) !== undefined && Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(await reader.events.latest("a")).toBeUndefined();
        expect(await reader.events.latest("b")).toEqual({ turnId: "b-1", ended: true });
        const b = await collect(reader.events.read("b"));
        expect(b.map((e) => e.id)).toEqual(["b-1:1", "b-1:2", "b-1:3", "b-1:4"]);
      } finally {
        await harness.dispose();
      }
    });
  });
}
