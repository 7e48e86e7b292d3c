import { describe, expect, it } from "vitest";
import { comparableRun } from "./comparable-turn.js";

const lines = (...values: unknown[]) => values.map((value) => JSON.stringify(value)).join("\n");

/** One turn as a runtime might print it: `split` decides how its text and arguments arrived. */
function printed(options: { split: boolean; id: string; clock: number; doneLate: boolean }) {
  const { id, clock } = options;
  const running = { type: "tool-status", round: 1, callId: id, name: "t", status: "running" };
  const done = { ...running, status: "done", atMs: clock + 2 };
  const call = { type: "tool-call", round: 1, index: 1, callId: id, name: "t", input: { a: 1 } };
  return lines(
    { turn: "anthropic" },
    { type: "round-start", round: 1 },
    ...(options.split
      ? [
          { type: "text-delta", round: 1, index: 0, text: "Call" },
          { type: "text-delta", round: 1, index: 0, text: "ing t." },
        ]
      : [{ type: "text-delta", round: 1, index: 0, text: "Calling t." }]),
    { type: "tool-call-start", round: 1, index: 1, callId: id, name: "t" },
    ...(options.split
      ? [{ type: "tool-input-preview", round: 1, index: 1, callId: id, preview: {}, bytes: 3 }]
      : []),
    call,
    { ...running, atMs: clock },
    ...(options.doneLate ? [] : [done]),
    { type: "text-delta", round: 1, index: 2, text: "More." },
    ...(options.doneLate ? [done] : []),
    {
      type: "round-end",
      round: 1,
      stopReason: "tool_use",
      timings: { startedAt: clock, blocks: [{ index: 1, callId: id, startMs: clock / 3 }] },
    },
    { stopReason: "end_turn" },
  );
}

describe("comparableRun", () => {
  it("is the same whatever the reads, clocks, ids and the place of a tool's completion", () => {
    const one = comparableRun(printed({ split: true, id: "toolu_a", clock: 5, doneLate: false }));
    const other = comparableRun(printed({ split: false, id: "call_b", clock: 9, doneLate: true }));
    expect(other).toEqual(one);
    expect(one.anthropic?.statuses).toEqual({ "call-1": ["running", "done"] });
    expect(one.anthropic?.events[1]).toEqual({
      type: "text-delta",
      round: 1,
      index: 0,
      text: "Calling t.",
    });
    expect(one.anthropic?.stopReason).toBe("end_turn");
  });

  it("differs when an event, its order, a status or the stop reason differs", () => {
    const base = printed({ split: true, id: "toolu_a", clock: 5, doneLate: false });
    const reference = comparableRun(base);
    const changed = [
      base.replace('"input":{"a":1}', '"input":{"a":2}'),
      base.replace('"text":"More."', '"text":"Less."'),
      base.replace('"status":"done"', '"status":"failed"'),
      base.replace('{"stopReason":"end_turn"}', '{"stopReason":"max_tokens"}'),
      base.replace('"turn":"anthropic"', '"turn":"google"'),
      base
        .split("\n")
        .filter((line) => !line.includes('"type":"tool-call"'))
        .join("\n"),
      // The call's two events swapped.
      base.replace(
        /(\{"type":"tool-call-start"[^\n]*)\n([^\n]*\n)(\{"type":"tool-call"[^\n]*)/,
        "$3\n$2$1",
      ),
    ];
    for (const output of changed) {
      expect(output).not.toBe(base);
      expect(comparableRun(output)).not.toEqual(reference);
    }
  });

  it("keeps each turn's ids apart, and refuses an event before any turn", () => {
    const run = comparableRun(
      `${printed({ split: true, id: "x", clock: 1, doneLate: false })}\n${printed({
        split: true,
        id: "y",
        clock: 1,
        doneLate: false,
      }).replace('"turn":"anthropic"', '"turn":"google"')}`,
    );
    expect(Object.keys(run)).toEqual(["anthropic", "google"]);
    expect(run.google).toEqual(run.anthropic);
    expect(() => comparableRun(lines({ type: "round-start", round: 1 }))).toThrow(/before/);
  });
});
