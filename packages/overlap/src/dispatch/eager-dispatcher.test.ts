import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseToolInput } from "../json/parse-tool-input.js";
import type { ToolCallState } from "../protocol/agent-event.js";
import { type ToolCall, toolCallOf } from "../stream/tool-call.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { EagerDispatcher } from "./eager-dispatcher.js";
import { InMemoryToolLedger } from "./tool-ledger.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A harness: tools that record every run, with per-call delays. */
function harness(options: { concurrency?: number; ledger?: InMemoryToolLedger } = {}) {
  const runs: string[] = [];
  const finished: string[] = [];
  const aborted: string[] = [];
  let running = 0;
  let maxRunning = 0;
  const work = defineTool({
    name: "work",
    description: "",
    input: z.object({ ms: z.number(), tag: z.string() }),
    run: async ({ ms, tag }, ctx) => {
      runs.push(tag);
      running++;
      maxRunning = Math.max(maxRunning, running);
      try {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, ms);
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(t);
            aborted.push(tag);
            reject(ctx.signal.reason);
          });
        });
        finished.push(tag);
        return `done ${tag}`;
      } finally {
        running--;
      }
    },
  });
  const checkout = defineTool({
    name: "checkout",
    description: "",
    dispatch: "deferred",
    input: z.object({}),
    run: () => {
      runs.push("checkout");
      return "ordered";
    },
  });
  const statuses: Array<[string, ToolCallState]> = [];
  const dispatcher = new EagerDispatcher({
    executor: new ToolExecutor([work, checkout], { abortGraceMs: 5 }),
    onStatus: (id, _name, s) => statuses.push([id, s]),
    ...options,
  });
  const call = (id: string, ms: number, tag = id): ToolCall =>
    toolCallOf({ type: "tool_use", id, name: "work", input: { ms, tag } });
  return {
    dispatcher,
    runs,
    finished,
    aborted,
    statuses,
    call,
    get maxRunning() {
      return maxRunning;
    },
  };
}

describe("EagerDispatcher", () => {
  it("returns outcomes in call order whatever the completion order (reversed delays)", async () => {
    const h = harness();
    const calls = [h.call("a", 40), h.call("b", 25), h.call("c", 10), h.call("d", 1)];
    for (const c of calls) expect(h.dispatcher.dispatch(c)).toBe("started");
    const outcomes = await h.dispatcher.collect(calls, "tool_use");
    expect(h.finished).toEqual(["d", "c", "b", "a"]);
    expect(outcomes.map((o) => o.callId)).toEqual(["a", "b", "c", "d"]);
    expect(outcomes.map((o) => o.resultText)).toEqual(["done a", "done b", "done c", "done d"]);
  });

  it("runs a call once even when dispatched twice and listed again at the end", async () => {
    const h = harness();
    const a = h.call("a", 5);
    expect(h.dispatcher.dispatch(a)).toBe("started");
    expect(h.dispatcher.dispatch(a)).toBe("duplicate");
    const outcomes = await h.dispatcher.collect([a, a], "tool_use");
    expect(h.runs).toEqual(["a"]);
    expect(outcomes[0]?.status).toBe("ok");
    expect(outcomes[1]?.status).toBe("not_executed");
  });

  it("starts in collect the complete calls that were never dispatched (no per-call stop)", async () => {
    const h = harness();
    const a = h.call("a", 5);
    const b = h.call("b", 5);
    h.dispatcher.dispatch(a);
    const outcomes = await h.dispatcher.collect([a, b], "tool_use");
    expect(h.runs.sort()).toEqual(["a", "b"]);
    expect(outcomes.map((o) => o.status)).toEqual(["ok", "ok"]);
  });

  it("defers a deferred tool until the message ends with tool_use", async () => {
    const h = harness();
    const checkout = toolCallOf({ type: "tool_use", id: "co", name: "checkout", input: {} });
    expect(h.dispatcher.dispatch(checkout)).toBe("deferred");
    await sleep(5);
    expect(h.runs).toEqual([]);
    const [outcome] = await h.dispatcher.collect([checkout], "tool_use");
    expect(outcome?.resultText).toBe("ordered");
    expect(h.runs).toEqual(["checkout"]);
  });

  it.each(["max_tokens", "refusal", "error", "end_turn"] as const)(
    "never runs a deferred tool when the message ends with %s",
    async (stopReason) => {
      const h = harness();
      const checkout = toolCallOf({ type: "tool_use", id: "co", name: "checkout", input: {} });
      h.dispatcher.dispatch(checkout);
      const [outcome] = await h.dispatcher.collect([checkout], stopReason);
      expect(h.runs).toEqual([]);
      expect(outcome?.status).toBe("not_executed");
      expect(outcome?.resultText).toContain(stopReason);
    },
  );

  it("gives cut-off and invalid arguments an error result without running anything", async () => {
    const h = harness();
    const outcomes = await h.dispatcher.collect(
      [
        { ...h.call("x", 1), input: null },
        { ...h.call("y", 1), input: parseToolInput('{"ms": 1, "tag": ') },
      ],
      "max_tokens",
    );
    expect(h.runs).toEqual([]);
    expect(outcomes[0]).toMatchObject({ status: "invalid_input", isError: true });
    expect(outcomes[0]?.resultText).toContain("max_tokens");
    expect(outcomes[1]).toMatchObject({ status: "invalid_input", isError: true });
    expect(outcomes[1]?.resultText).toContain('{\\"ms\\": 1, \\"tag\\": ');
  });

  it("respects the concurrency limit and starts queued calls in dispatch order", async () => {
    const h = harness({ concurrency: 2 });
    const calls = ["a", "b", "c", "d", "e"].map((id) => h.call(id, 10));
    const results = calls.map((c) => h.dispatcher.dispatch(c));
    expect(results).toEqual(["started", "started", "queued", "queued", "queued"]);
    const outcomes = await h.dispatcher.collect(calls, "tool_use");
    expect(h.maxRunning).toBe(2);
    expect(h.runs).toEqual(["a", "b", "c", "d", "e"]);
    expect(outcomes.every((o) => o.status === "ok")).toBe(true);
  });

  it("cancelAll aborts running tasks, keeps finished results and never starts queued ones", async () => {
    const h = harness({ concurrency: 2 });
    const fast = h.call("fast", 1);
    const slow = h.call("slow", 10_000);
    const queued = h.call("queued", 1);
    h.dispatcher.dispatch(fast);
    h.dispatcher.dispatch(slow);
    h.dispatcher.dispatch(queued);
    // fast finished, queued started after it and finished too (waited for, not timed: the
    // machine may be busy)
    while (!h.finished.includes("queued")) await sleep(1);
    const late = h.call("late", 1);
    h.dispatcher.cancelAll("the response was cancelled");
    expect(h.dispatcher.dispatch(late)).toBe("cancelled");
    const outcomes = await h.dispatcher.collect([fast, slow, queued, late], "error");
    expect(outcomes.map((o) => o.status)).toEqual(["ok", "interrupted", "ok", "not_executed"]);
    expect(h.aborted).toEqual(["slow"]);
    expect(h.runs).not.toContain("late");
  });

  it("a queued call cancelled before its slot never runs", async () => {
    const h = harness({ concurrency: 1 });
    const a = h.call("a", 10_000);
    const b = h.call("b", 1);
    h.dispatcher.dispatch(a);
    h.dispatcher.dispatch(b);
    await sleep(5); // a is running, b waits for its slot
    h.dispatcher.cancelAll("stop");
    const outcomes = await h.dispatcher.collect([a, b], "error");
    expect(outcomes.map((o) => o.status)).toEqual(["interrupted", "not_executed"]);
    expect(h.runs).toEqual(["a"]);
    expect(h.statuses.filter(([id]) => id === "b").map(([, s]) => s)).toEqual([
      "queued",
      "cancelled",
    ]);
  });

  it("replays a recorded outcome from the ledger instead of running again", async () => {
    const ledger = new InMemoryToolLedger();
    const first = harness({ ledger });
    const a = first.call("a", 1);
    first.dispatcher.dispatch(a);
    const [original] = await first.dispatcher.collect([a], "tool_use");
    expect(ledger.size).toBe(1);

    const retry = harness({ ledger }); // a retried round with the same call id
    retry.dispatcher.dispatch(a);
    const [replayed] = await retry.dispatcher.collect([a], "tool_use");
    expect(retry.runs).toEqual([]);
    expect(replayed).toEqual({ ...original, replayed: true });
  });

  it("a call cancelled before its tool began is not_executed, not interrupted", async () => {
    const h = harness();
    const a = h.call("a", 10_000);
    h.dispatcher.dispatch(a);
    h.dispatcher.cancelAll("stop"); // synchronously: the tool has not begun yet
    const [outcome] = await h.dispatcher.collect([a], "error");
    expect(outcome?.status).toBe("not_executed");
    expect(h.runs).toEqual([]);
  });

  it("reports status changes per call: running then done", async () => {
    const h = harness();
    const a = h.call("a", 1);
    h.dispatcher.dispatch(a);
    await h.dispatcher.collect([a], "tool_use");
    expect(h.statuses).toEqual([
      ["a", "running"],
      ["a", "done"],
    ]);
  });

  it("keeps the real result when the ledger's record throws, even synchronously", async () => {
    const ledger = new InMemoryToolLedger();
    ledger.record = () => {
      throw new Error("db down");
    };
    const errors: unknown[] = [];
    const runs: string[] = [];
    const once = defineTool({
      name: "once",
      description: "",
      input: z.object({}),
      run: (_input, ctx) => {
        runs.push(ctx.callId);
        return "charged";
      },
    });
    const d = new EagerDispatcher({
      executor: new ToolExecutor([once]),
      ledger,
      onError: (e) => errors.push(e),
    });
    const a = toolCallOf({ type: "tool_use", id: "a", name: "once", input: {} });
    d.dispatch(a);
    const [outcome] = await d.collect([a], "tool_use");
    expect(outcome).toMatchObject({ status: "ok", resultText: "charged" });
    expect(runs).toEqual(["a"]);
    expect(errors).toHaveLength(1);
  });

  it("a failing ledger lookup runs nothing: the call is answered with an internal error, asked or not", async () => {
    const ledger = new InMemoryToolLedger();
    ledger.lookup = () => Promise.reject(new Error("db down"));
    const errors: unknown[] = [];
    const runs: string[] = [];
    const statuses: Array<[string, ToolCallState]> = [];
    const tool = (name: string, approval?: "required") =>
      defineTool({
        name,
        description: "",
        input: z.object({}),
        ...(approval ? { approval } : {}),
        run: (_input, ctx) => {
          runs.push(ctx.callId);
          return "charged";
        },
      });
    const d = new EagerDispatcher({
      executor: new ToolExecutor([tool("plain"), tool("asked", "required")]),
      ledger,
      onError: (e) => errors.push(e),
      onStatus: (id, _name, s) => statuses.push([id, s]),
    });
    const calls = ["plain", "asked"].map((name) =>
      toolCallOf({ type: "tool_use", id: name, name, input: {} }),
    );
    for (const c of calls) d.dispatch(c);
    const outcomes = await d.collect(calls, "tool_use");
    expect(outcomes.map((o) => [o.status, o.resultText])).toEqual([
      ["error", "plain could not be run because of an internal error. It may be retried."],
      ["error", "asked could not be run because of an internal error. It may be retried."],
    ]);
    expect(runs).toEqual([]);
    expect(errors).toHaveLength(2);
    expect(statuses.sort()).toEqual([
      ["asked", "failed"],
      ["plain", "failed"],
    ]);
  });

  it.each([0, -1, Number.NaN, 1.5])(
    "rejects concurrency %s, which would hang every call",
    (concurrency) => {
      expect(() => harness({ concurrency })).toThrow(RangeError);
    },
  );
});
