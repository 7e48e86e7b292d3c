import { describe, expect, it } from "vitest";
import type { TurnRecord } from "./load-figures.js";
import { runOpenLoop, startOffsetsMs } from "./open-loop.js";

describe("startOffsetsMs", () => {
  it("spreads the first messages evenly over one cycle", () => {
    expect(startOffsetsMs(4, 1000)).toEqual([0, 250, 500, 750]);
    expect(startOffsetsMs(1, 1000)).toEqual([0]);
  });
});

describe("runOpenLoop", () => {
  it("runs each conversation's turns one at a time, and starts none after the duration", async () => {
    const running = new Set<number>();
    const overlaps: number[] = [];
    const started: { conversation: number; n: number; at: number }[] = [];
    const begin = performance.now();
    const records = await runOpenLoop(
      { conversations: 3, thinkMs: 5, durationMs: 60, cycleMs: 15 },
      async (conversation, n) => {
        started.push({ conversation, n, at: performance.now() - begin });
        if (running.has(conversation)) overlaps.push(conversation);
        running.add(conversation);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running.delete(conversation);
        return { ok: true, latencyMs: 5, events: 1, dispatchDelaysMs: [] } satisfies TurnRecord;
      },
    );
    expect(overlaps).toEqual([]);
    expect(records).toHaveLength(started.length);
    // Every conversation took part, its turns numbered 0, 1, 2... in order.
    for (const conversation of [0, 1, 2]) {
      const ns = started.filter((s) => s.conversation === conversation).map((s) => s.n);
      expect(ns.length).toBeGreaterThan(0);
      expect(ns).toEqual(ns.map((_, i) => i));
    }
    // The loop's clock starts at or before the first turn (conversation 0 starts at once), so a
    // turn's time after the first one is at most its time on the loop's clock: none began after
    // the duration.
    const times = started.map((s) => s.at);
    expect(Math.max(...times) - Math.min(...times)).toBeLessThan(60);
  });

  it("ends a conversation after its last turn, without its think time (it would start no turn)", async () => {
    // A minute's think after the one turn the duration allows: waiting it out would time out.
    const records = await runOpenLoop(
      { conversations: 2, thinkMs: 60_000, durationMs: 20, cycleMs: 10 },
      async () => ({ ok: true, latencyMs: 1, events: 1, dispatchDelaysMs: [] }),
    );
    expect(records).toHaveLength(2);
  });

  it("keeps the records of failed turns", async () => {
    const records = await runOpenLoop(
      { conversations: 2, thinkMs: 0, durationMs: 1, cycleMs: 0 },
      async (conversation) => ({
        ok: conversation === 0,
        ...(conversation === 0 ? {} : { error: "refused" }),
        latencyMs: 1,
        events: 0,
        dispatchDelaysMs: [],
      }),
    );
    expect(records.filter((r) => !r.ok).map((r) => r.error)).toContain("refused");
    expect(records.some((r) => r.ok)).toBe(true);
  });
});
