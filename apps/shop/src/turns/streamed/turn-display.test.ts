import type { AgentEvent } from "overlap-runtime";
import { describe, expect, it } from "vitest";
import { keptForDisplay, turnDisplayKeeper } from "./turn-display.js";

const roundEnd = (round: number): AgentEvent => ({
  type: "round-end",
  round,
  stopReason: "tool_use",
  usage: {},
  timings: { blocks: [], tools: [] } as unknown as Extract<
    AgentEvent,
    { type: "round-end" }
  >["timings"],
});
const ui = (callId: string, extra: Partial<{ parentCallId: string }> = {}): AgentEvent => ({
  type: "ui",
  round: 1,
  callId,
  name: "search_products",
  ui: { type: "product-cards", products: [] },
  ...extra,
});

describe("keptForDisplay", () => {
  it("keeps cards, approvals and round timings, not the text or the calls the messages hold", () => {
    expect(keptForDisplay(ui("a"))).toBe(true);
    expect(keptForDisplay(roundEnd(1))).toBe(true);
    expect(
      keptForDisplay({
        type: "approval-resolved",
        round: 1,
        callId: "c",
        name: "checkout",
        decision: "approved",
      }),
    ).toBe(true);
    expect(keptForDisplay({ type: "text-delta", round: 1, index: 0, text: "hi" })).toBe(false);
    expect(keptForDisplay({ type: "round-start", round: 1 })).toBe(false);
    expect(keptForDisplay({ type: "done", roundCount: 1, stopReason: "end_turn" })).toBe(false);
  });

  it("leaves out a delegated agent's own events (its calls are not in the conversation)", () => {
    expect(keptForDisplay(ui("inner", { parentCallId: "outer" }))).toBe(false);
  });
});

describe("turnDisplayKeeper", () => {
  it("writes at each round end and at the end, each write holding everything kept so far", async () => {
    const writes: AgentEvent[][] = [];
    const keeper = turnDisplayKeeper(
      async (events) => {
        writes.push([...events]);
      },
      (err) => {
        throw err;
      },
    );
    keeper.observe({ type: "round-start", round: 1 });
    keeper.observe(ui("a"));
    expect(writes).toEqual([]);
    keeper.observe(roundEnd(1));
    await keeper.settled();
    keeper.observe(ui("b"));
    keeper.observe(roundEnd(2));
    keeper.observe({ type: "done", roundCount: 2, stopReason: "end_turn" });
    await keeper.settled();
    expect(writes.at(-1)?.map((e) => e.type)).toEqual(["ui", "round-end", "ui", "round-end"]);
    expect(writes[0]?.map((e) => e.type)).toEqual(["ui", "round-end"]);
    // The turn's end had nothing new: two rounds, two writes.
    expect(writes).toHaveLength(2);
  });

  it("never runs two writes at once; one asked for meanwhile follows with the latest events", async () => {
    let inFlight = 0;
    let most = 0;
    const writes: number[] = [];
    const keeper = turnDisplayKeeper(
      async (events) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        writes.push(events.length);
        inFlight--;
      },
      () => {},
    );
    keeper.observe(roundEnd(1));
    keeper.observe(roundEnd(2));
    keeper.observe(roundEnd(3));
    await keeper.settled();
    expect(most).toBe(1);
    expect(writes.at(-1)).toBe(3);
  });

  it("a failed write is reported and the next one still happens", async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const keeper = turnDisplayKeeper(
      async () => {
        calls++;
        if (calls === 1) throw new Error("disk full");
      },
      (err) => errors.push(err),
    );
    keeper.observe(roundEnd(1));
    await keeper.settled();
    keeper.observe(roundEnd(2));
    await keeper.settled();
    expect(errors).toHaveLength(1);
    expect(calls).toBe(2);
  });

  it("writes nothing for a turn that showed nothing to keep", async () => {
    let calls = 0;
    const keeper = turnDisplayKeeper(
      async () => {
        calls++;
      },
      () => {},
    );
    keeper.observe({ type: "text-delta", round: 1, index: 0, text: "hello" });
    keeper.observe({ type: "done", roundCount: 1, stopReason: "end_turn" });
    await keeper.settled();
    expect(calls).toBe(0);
  });
});
