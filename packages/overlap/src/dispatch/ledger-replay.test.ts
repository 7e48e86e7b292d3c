import { describe, expect, it } from "vitest";
import { type ToolCall, toolCallOf } from "../stream/tool-call.js";
import { failedOutcome, type ToolOutcome } from "../tools/tool-outcome.js";
import { replayRecorded, settleRecorded } from "./ledger-replay.js";
import { InMemoryToolLedger, type ToolLedger } from "./tool-ledger.js";

const call: ToolCall = toolCallOf({ type: "tool_use", id: "c1", name: "pay", input: {} });
const ok: ToolOutcome = {
  callId: "c1",
  name: "pay",
  status: "ok",
  resultText: "paid",
  events: [],
  isError: false,
};
const broken: ToolLedger = {
  lookup: () => Promise.reject(new Error("db down")),
  record: () => Promise.reject(new Error("db down")),
};

describe("replayRecorded", () => {
  it("replays a recorded outcome, marked replayed; nothing recorded is undefined", async () => {
    const ledger = new InMemoryToolLedger();
    expect(await replayRecorded(ledger, call)).toBeUndefined();
    expect(await replayRecorded(undefined, call)).toBeUndefined();
    await ledger.record(ok, call);
    expect(await replayRecorded(ledger, call)).toEqual({ ...ok, replayed: true });
  });

  it("a failed lookup answers the call with an internal error and reports the failure", async () => {
    const errors: unknown[] = [];
    const outcome = await replayRecorded(broken, call, (error) => errors.push(error));
    expect(outcome).toMatchObject({ status: "error", isError: true, callId: "c1" });
    expect(outcome?.resultText).toContain("internal error");
    expect(errors).toHaveLength(1);
  });
});

describe("settleRecorded", () => {
  it("records an ok or error outcome, keeping a record the tool wrote itself", async () => {
    const ledger = new InMemoryToolLedger();
    expect(await settleRecorded(ledger, call, ok)).toBe(ok);
    expect(await ledger.lookup("c1")).toBe(ok);
    const again = { ...ok, resultText: "second" };
    await settleRecorded(ledger, call, again);
    expect(await ledger.lookup("c1")).toBe(ok);
  });

  it("an interrupted or timed-out call gives way to the record the tool committed before the abort", async () => {
    for (const status of ["interrupted", "timeout"] as const) {
      const ledger = new InMemoryToolLedger();
      await ledger.record(ok, call);
      const cut = failedOutcome("c1", "pay", status, "cut");
      expect(await settleRecorded(ledger, call, cut)).toBe(ok);
    }
    const empty = new InMemoryToolLedger();
    const cut = failedOutcome("c1", "pay", "interrupted", "cut");
    expect(await settleRecorded(empty, call, cut)).toBe(cut);
    expect(empty.size).toBe(0);
  });

  it("a failing ledger hides nothing: the tool's outcome is reported, the failure told", async () => {
    const errors: unknown[] = [];
    const onError = (error: unknown) => errors.push(error);
    expect(await settleRecorded(broken, call, ok, onError)).toBe(ok);
    const cut = failedOutcome("c1", "pay", "interrupted", "cut");
    expect(await settleRecorded(broken, call, cut, onError)).toBe(cut);
    expect(errors).toHaveLength(2);
  });
});
