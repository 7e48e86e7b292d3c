import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolCallState } from "../protocol/agent-event.js";
import { type ToolCall, toolCallOf } from "../stream/tool-call.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { EagerDispatcher } from "./eager-dispatcher.js";
import { InMemoryApprovals } from "./in-memory-approvals.js";

/**
 * Tools of one sequence ("cart": change and deferred checkout) beside a free one ("search"): every
 * start and end is logged, so order and overlap can be checked.
 */
function harness(options: { concurrency?: number } = {}) {
  const log: string[] = [];
  const live = new Set<string>();
  let overlapInSequence = false;
  const timed = (tag: string, ms: number, signal: AbortSignal, sequenced: boolean) => {
    log.push(`start ${tag}`);
    if (sequenced) {
      if ([...live].some((t) => t.startsWith("cart:"))) overlapInSequence = true;
      live.add(`cart:${tag}`);
    }
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        live.delete(`cart:${tag}`);
        log.push(`end ${tag}`);
        resolve(tag);
      }, ms);
      signal.addEventListener("abort", () => {
        clearTimeout(timer);
        live.delete(`cart:${tag}`);
        log.push(`abort ${tag}`);
        reject(signal.reason);
      });
    });
  };
  const change = defineTool({
    name: "change",
    description: "",
    sequence: "cart",
    input: z.object({ tag: z.string(), ms: z.number() }),
    run: ({ tag, ms }, ctx) => timed(tag, ms, ctx.signal, true),
  });
  const checkout = defineTool({
    name: "checkout",
    description: "",
    sequence: "cart",
    dispatch: "deferred",
    input: z.object({ tag: z.string(), ms: z.number() }),
    run: ({ tag, ms }, ctx) => timed(tag, ms, ctx.signal, true),
  });
  const search = defineTool({
    name: "search",
    description: "",
    input: z.object({ tag: z.string(), ms: z.number() }),
    run: ({ tag, ms }, ctx) => timed(tag, ms, ctx.signal, false),
  });
  const statuses: Array<[string, ToolCallState]> = [];
  const dispatcher = new EagerDispatcher({
    executor: new ToolExecutor([change, checkout, search], { abortGraceMs: 5 }),
    onStatus: (id, _name, s) => statuses.push([id, s]),
    ...options,
  });
  const call = (name: string, tag: string, ms: number): ToolCall =>
    toolCallOf({ type: "tool_use", id: `call_${tag}`, name, input: { tag, ms } });
  return {
    dispatcher,
    log,
    statuses,
    call,
    get overlapInSequence() {
      return overlapInSequence;
    },
  };
}

const starts = (log: readonly string[]) =>
  log.filter((l) => l.startsWith("start ")).map((l) => l.slice(6));

describe("EagerDispatcher: calls of one sequence", () => {
  it("run one at a time in call order, even when a later one is quicker; others run beside them", async () => {
    const h = harness();
    const calls = [
      h.call("change", "a", 30),
      h.call("search", "s", 5),
      h.call("change", "b", 1),
      h.call("change", "c", 1),
    ];
    for (const c of calls) h.dispatcher.dispatch(c);
    const outcomes = await h.dispatcher.collect(calls, "tool_use");
    expect(outcomes.map((o) => o.status)).toEqual(["ok", "ok", "ok", "ok"]);
    expect(h.overlapInSequence).toBe(false);
    // The free call ran while the first change was still running.
    expect(h.log.indexOf("end s")).toBeLessThan(h.log.indexOf("end a"));
    expect(h.log.filter((l) => /^(start|end) [abc]$/.test(l))).toEqual([
      "start a",
      "end a",
      "start b",
      "end b",
      "start c",
      "end c",
    ]);
    // A call waiting for its turn says so: queued, then running.
    expect(h.statuses.filter(([id]) => id === "call_b").map(([, s]) => s)).toEqual([
      "queued",
      "running",
      "done",
    ]);
    // One that had nothing ahead of it is not reported queued.
    expect(h.statuses.filter(([id]) => id === "call_a").map(([, s]) => s)).toEqual([
      "running",
      "done",
    ]);
  });

  it("a deferred call keeps its place: a later eager call of its sequence waits for it", async () => {
    const h = harness();
    const calls = [
      h.call("change", "a", 5),
      h.call("checkout", "pay", 5),
      h.call("change", "after", 1),
    ];
    for (const c of calls) h.dispatcher.dispatch(c);
    await new Promise((r) => setTimeout(r, 20));
    // The stream has not ended: the checkout has not run, so the call after it waits too.
    expect(starts(h.log)).toEqual(["a"]);
    await h.dispatcher.collect(calls, "tool_use");
    expect(starts(h.log)).toEqual(["a", "pay", "after"]);
  });

  it("a deferred call that never runs frees its place", async () => {
    const h = harness();
    const calls = [h.call("checkout", "pay", 5), h.call("change", "after", 1)];
    for (const c of calls) h.dispatcher.dispatch(c);
    // The response ended without tool_use: the deferred checkout is refused, the change runs.
    const outcomes = await h.dispatcher.collect(calls, "end_turn");
    expect(outcomes.map((o) => o.status)).toEqual(["not_executed", "ok"]);
    expect(starts(h.log)).toEqual(["after"]);
  });

  it("a deferred call refused at the join lets no later call past the one still running ahead of it", async () => {
    const h = harness();
    const calls = [
      h.call("change", "a", 30),
      h.call("checkout", "pay", 5),
      h.call("change", "after", 1),
    ];
    for (const c of calls) h.dispatcher.dispatch(c);
    await new Promise((r) => setTimeout(r, 5));
    // The response ended without tool_use while "a" runs: "pay" gives its place up, "after" still
    // waits for "a".
    const outcomes = await h.dispatcher.collect(calls, "end_turn");
    expect(outcomes.map((o) => o.status)).toEqual(["ok", "not_executed", "ok"]);
    expect(h.overlapInSequence).toBe(false);
    expect(h.log).toEqual(["start a", "end a", "start after", "end after"]);
  });

  it("a call declined while it waited for its turn lets no later call past the one running ahead", async () => {
    const log: string[] = [];
    const run = async ({ tag, ms }: { tag: string; ms: number }) => {
      log.push(`start ${tag}`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`end ${tag}`);
      return tag;
    };
    const input = z.object({ tag: z.string(), ms: z.number() });
    const change = defineTool({
      name: "change",
      description: "",
      sequence: "cart",
      input,
      run,
    });
    const pay = defineTool({
      name: "pay",
      description: "",
      sequence: "cart",
      approval: "required",
      input,
      run,
    });
    const approvals = new InMemoryApprovals();
    const dispatcher = new EagerDispatcher({
      executor: new ToolExecutor([change, pay]),
      approvals,
      // The user declines as soon as asked, while "a" still runs.
      onApprovalRequest: (request) => {
        queueMicrotask(() => approvals.decide(request.callId, { approve: false }));
      },
    });
    const call = (name: string, tag: string, ms: number): ToolCall =>
      toolCallOf({ type: "tool_use", id: `call_${tag}`, name, input: { tag, ms } });
    const calls = [call("change", "a", 30), call("pay", "p", 1), call("change", "after", 1)];
    for (const c of calls) dispatcher.dispatch(c);
    const outcomes = await dispatcher.collect(calls, "tool_use");
    expect(outcomes.map((o) => o.status)).toEqual(["ok", "declined", "ok"]);
    expect(log).toEqual(["start a", "end a", "start after", "end after"]);
  });

  it("cancelAll: the running call is aborted and the calls waiting behind it never run", async () => {
    const h = harness();
    const calls = [
      h.call("change", "a", 1_000),
      h.call("change", "b", 1),
      h.call("change", "c", 1),
    ];
    for (const c of calls) h.dispatcher.dispatch(c);
    await new Promise((r) => setTimeout(r, 10));
    h.dispatcher.cancelAll("the user stopped the turn");
    const outcomes = await h.dispatcher.collect(calls, "error");
    expect(outcomes.map((o) => o.status)).toEqual(["interrupted", "not_executed", "not_executed"]);
    expect(starts(h.log)).toEqual(["a"]);
  });

  it("property: any mix of calls, delays, a concurrency limit and stream cut: each runs once, a sequence never overlaps and keeps call order", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            name: fc.constantFrom("change", "search", "checkout"),
            ms: fc.integer({ min: 0, max: 4 }),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        fc.nat(),
        fc.constantFrom(undefined, 1, 2),
        async (specs, cut, concurrency) => {
          const h = harness(concurrency === undefined ? {} : { concurrency });
          const calls = specs.map((s, i) => h.call(s.name, `t${i}`, s.ms));
          // The stream dispatches the calls whose blocks ended before it did, in order; collect
          // starts the rest.
          for (const c of calls.slice(0, cut % (calls.length + 1))) h.dispatcher.dispatch(c);
          const outcomes = await h.dispatcher.collect(calls, "tool_use");
          expect(outcomes.map((o) => o.callId)).toEqual(calls.map((c) => c.id));
          expect(outcomes.every((o) => o.status === "ok")).toBe(true);
          const started = starts(h.log);
          expect(new Set(started).size).toBe(calls.length);
          expect(h.overlapInSequence).toBe(false);
          const inSequence = calls
            .filter((c) => c.name !== "search")
            .map((c) => c.id.replace("call_", ""));
          expect(started.filter((t) => inSequence.includes(t))).toEqual(inSequence);
        },
      ),
      { numRuns: 80 },
    );
  });
});
