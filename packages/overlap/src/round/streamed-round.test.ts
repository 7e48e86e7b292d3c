import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../protocol/agent-event.js";
import { DEFAULT_MAX_BLOCK_CHARS } from "../stream/block-assembler.js";
import type { Message } from "../stream/message.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { buildStreamEvents, replayEvents, type ScriptBlock } from "../testing/stream-builder.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { StreamedRound } from "./streamed-round.js";

/** Tools that record runs and aborts; `ms` in the input sets how long a call takes. */
function shop() {
  const runs: string[] = [];
  const aborted: string[] = [];
  const wait = (ms: number, signal: AbortSignal, tag: string) =>
    new Promise<void>((resolve, reject) => {
      const t = setTimeout(resolve, ms);
      signal.addEventListener("abort", () => {
        clearTimeout(t);
        aborted.push(tag);
        reject(signal.reason);
      });
    });
  const add = defineTool({
    name: "add_to_cart",
    description: "",
    input: z.object({ sku: z.string(), ms: z.number().default(1) }),
    run: async ({ sku, ms }, ctx) => {
      runs.push(`add:${sku}`);
      await wait(ms, ctx.signal, sku);
      return { text: `added ${sku}`, events: [{ type: "cart-updated", sku }] };
    },
  });
  const total = defineTool({
    name: "cart_total",
    description: "",
    input: z.object({ ms: z.number().default(1) }),
    run: async ({ ms }, ctx) => {
      runs.push("total");
      await wait(ms, ctx.signal, "total");
      return "total 42.00";
    },
  });
  const checkout = defineTool({
    name: "checkout",
    description: "",
    dispatch: "deferred",
    input: z.object({}),
    run: () => {
      runs.push("checkout");
      return "order placed";
    },
  });
  return { runs, aborted, executor: new ToolExecutor([add, total, checkout], { abortGraceMs: 5 }) };
}

const blocks: ScriptBlock[] = [
  { type: "text", text: "Adding both items, then the total." },
  { type: "tool_use", id: "toolu_a", name: "add_to_cart", input: { sku: "AERO-1", ms: 30 } },
  { type: "tool_use", id: "toolu_b", name: "add_to_cart", input: { sku: "SOCK-2", ms: 15 } },
  { type: "tool_use", id: "toolu_c", name: "cart_total", input: { ms: 1 } },
];

async function relay(
  events: readonly StreamEvent[],
  opts: {
    delayMs?: number;
    signal?: AbortSignal;
    failWith?: unknown;
    previewIntervalMs?: number;
  } = {},
  tools = shop(),
) {
  const seen: AgentEvent[] = [];
  const round = new StreamedRound({
    executor: tools.executor,
    sink: (e) => seen.push(e),
    previewIntervalMs: opts.previewIntervalMs ?? 0,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const replay = {
    delayMs: opts.delayMs ?? 0,
    failWith: opts.failWith,
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
  const result = await round.relay(replayEvents(events, replay));
  return { result, seen, ...tools };
}

const indexOf = (seen: AgentEvent[], pred: (e: AgentEvent) => boolean) => seen.findIndex(pred);

describe("StreamedRound.relay", () => {
  it("handles a block's deltas that came in one network read as one", async () => {
    const events = buildStreamEvents(
      [
        { type: "text", text: "Adding it." },
        { type: "tool_use", id: "toolu_a", name: "add_to_cart", input: { sku: "AERO-1" } },
      ],
      { chunkSize: 3 },
    );
    const textDeltas = (seen: AgentEvent[]) =>
      seen.filter((e) => e.type === "text-delta").map((e) => (e as { text: string }).text);
    const previews = (seen: AgentEvent[]) => seen.filter((e) => e.type === "tool-input-preview");
    const oneByOne = await relay(events);
    expect(textDeltas(oneByOne.seen).length).toBeGreaterThan(1);
    const round = new StreamedRound({
      executor: shop().executor,
      sink: (e) => batched.push(e),
      previewIntervalMs: 0,
    });
    const batched: AgentEvent[] = [];
    const result = await round.relay(
      (async function* () {
        yield events;
      })(),
    );
    expect(textDeltas(batched)).toEqual(["Adding it."]);
    expect(previews(batched)).toHaveLength(1);
    expect(previews(oneByOne.seen).length).toBeGreaterThan(1);
    expect(result.assistant).toEqual(oneByOne.result.assistant);
    expect(result.toolResults).toEqual(oneByOne.result.toolResults);
  });

  it("starts a tool while the model is still generating later blocks", async () => {
    const { seen } = await relay(buildStreamEvents(blocks), { delayMs: 2 });
    const firstRunning = indexOf(
      seen,
      (e) => e.type === "tool-status" && e.callId === "toolu_a" && e.status === "running",
    );
    const lastCallStart = indexOf(
      seen,
      (e) => e.type === "tool-call-start" && e.callId === "toolu_c",
    );
    expect(firstRunning).toBeGreaterThan(-1);
    expect(firstRunning).toBeLessThan(lastCallStart);
  });

  it("emits results in call order after the join, with ONE user message of tool_results", async () => {
    // a takes longest, so completion order is c, b, a; result order must still be a, b, c. The
    // durations are far apart and the events come at once, so a loaded machine cannot turn the
    // completion order around by starting b late.
    const slow: ScriptBlock[] = [
      { type: "tool_use", id: "toolu_a", name: "add_to_cart", input: { sku: "AERO-1", ms: 400 } },
      { type: "tool_use", id: "toolu_b", name: "add_to_cart", input: { sku: "SOCK-2", ms: 200 } },
      { type: "tool_use", id: "toolu_c", name: "cart_total", input: { ms: 1 } },
    ];
    const { result, seen, runs } = await relay(buildStreamEvents(slow), { delayMs: 0 });
    const done = seen
      .filter((e) => e.type === "tool-status" && e.status === "done")
      .map((e) => (e as { callId: string }).callId);
    expect(done).toEqual(["toolu_c", "toolu_b", "toolu_a"]);
    const results = seen
      .filter((e) => e.type === "tool-result")
      .map((e) => (e as { callId: string }).callId);
    expect(results).toEqual(["toolu_a", "toolu_b", "toolu_c"]);
    expect(runs.sort()).toEqual(["add:AERO-1", "add:SOCK-2", "total"]);
    expect(result.toolResults).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_a", content: "added AERO-1" },
        { type: "tool_result", tool_use_id: "toolu_b", content: "added SOCK-2" },
        { type: "tool_result", tool_use_id: "toolu_c", content: "total 42.00" },
      ],
    });
    // ui events of a call come right before its tool-result, after the join.
    const tail = seen.slice(indexOf(seen, (e) => e.type === "ui")).map((e) => e.type);
    expect(tail).toEqual(["ui", "tool-result", "ui", "tool-result", "tool-result", "round-end"]);
    expect(result.stopReason).toBe("tool_use");
    expect(result.error).toBeUndefined();
  });

  it("moment 1 and 2 per call: tool-call-start, previews, then tool-call, with no preview after it", async () => {
    const { seen } = await relay(buildStreamEvents(blocks, { chunkSize: 3 }), { delayMs: 0 });
    for (const id of ["toolu_a", "toolu_b", "toolu_c"]) {
      const mine = seen
        .filter(
          (e) =>
            "callId" in e &&
            e.callId === id &&
            e.type !== "tool-status" &&
            e.type !== "ui" &&
            e.type !== "tool-result",
        )
        .map((e) => e.type);
      expect(mine[0]).toBe("tool-call-start");
      expect(mine.at(-1)).toBe("tool-call");
      expect(mine.slice(1, -1).every((t) => t === "tool-input-preview")).toBe(true);
      expect(mine.length).toBeGreaterThan(2);
    }
    const call = seen.find((e) => e.type === "tool-call" && e.callId === "toolu_a");
    expect(call).toMatchObject({ dispatch: "started", input: { sku: "AERO-1", ms: 30 } });
  });

  it("coalesces previews: fewer previews than deltas, never one after the call completed", async () => {
    const big: ScriptBlock = {
      type: "tool_use",
      id: "toolu_big",
      name: "cart_total",
      input: { ms: 1, note: "x".repeat(400) },
    };
    const events = buildStreamEvents([big], { chunkSize: 4 });
    const deltas = events.filter((e) => e.type === "content_block_delta").length;
    const { seen } = await relay(events, { delayMs: 1, previewIntervalMs: 20 });
    const previews = seen.filter((e) => e.type === "tool-input-preview");
    expect(previews.length).toBeGreaterThan(0);
    expect(previews.length).toBeLessThan(deltas / 3);
    const callAt = indexOf(seen, (e) => e.type === "tool-call");
    expect(seen.slice(callAt).some((e) => e.type === "tool-input-preview")).toBe(false);
    // a preview is a consistent prefix of the final input
    const last = previews.at(-1) as Extract<AgentEvent, { type: "tool-input-preview" }>;
    expect(String((last.preview as { note?: string }).note ?? "")).toMatch(/^x*$/);
  });

  it("does not run a call whose arguments are invalid JSON, and tells the model", async () => {
    const events = buildStreamEvents([
      {
        type: "tool_use",
        id: "toolu_bad",
        name: "add_to_cart",
        input: '{"sku": "AERO-1", "ms": 1' + "}}",
      },
      { type: "tool_use", id: "toolu_ok", name: "add_to_cart", input: { sku: "SOCK-2" } },
    ]);
    const { result, seen, runs } = await relay(events);
    expect(runs).toEqual(["add:SOCK-2"]);
    expect(seen.find((e) => e.type === "tool-call" && e.callId === "toolu_bad")).toMatchObject({
      dispatch: "invalid",
    });
    const [bad, ok] = result.outcomes;
    expect(bad).toMatchObject({ status: "invalid_input", isError: true });
    // The front end learns why from a code on the result event, not from the model's text.
    expect(seen.find((e) => e.type === "tool-result" && e.callId === "toolu_bad")).toMatchObject({
      problem: { code: "invalid_json" },
    });
    expect(
      seen.find((e) => e.type === "tool-result" && e.callId === "toolu_ok"),
    ).not.toHaveProperty("problem");
    expect(bad?.resultText).toContain("not valid JSON");
    expect(bad?.resultText).toContain("AERO-1");
    expect(ok?.status).toBe("ok");
    expect(result.assistant.content[0]).toEqual({
      type: "tool_use",
      id: "toolu_bad",
      name: "add_to_cart",
      input: {},
    });
  });

  it("max_tokens inside a tool_use: finished eager work keeps its result, the cut call and deferred tools do not run", async () => {
    const events = buildStreamEvents(
      [
        { type: "tool_use", id: "toolu_a", name: "add_to_cart", input: { sku: "AERO-1" } },
        { type: "tool_use", id: "toolu_co", name: "checkout", input: {} },
        { type: "tool_use", id: "toolu_cut", name: "add_to_cart", input: '{"sku": "SO' },
      ],
      { stopReason: "max_tokens" },
    );
    const { result, runs } = await relay(events, { delayMs: 1 });
    expect(runs).toEqual(["add:AERO-1"]);
    expect(result.stopReason).toBe("max_tokens");
    expect(result.outcomes.map((o) => o.status)).toEqual(["ok", "not_executed", "invalid_input"]);
    expect(result.outcomes[1]?.resultText).toContain("max_tokens");
    expect(result.outcomes[2]?.problem).toEqual({ code: "input_cut" });
    expect(result.toolResults?.content).toHaveLength(3);
  });

  it("runs deferred tools after a normal tool_use stop", async () => {
    const events = buildStreamEvents([
      { type: "tool_use", id: "toolu_a", name: "add_to_cart", input: { sku: "AERO-1" } },
      { type: "tool_use", id: "toolu_co", name: "checkout", input: {} },
    ]);
    const { result, runs, seen } = await relay(events, { delayMs: 1 });
    expect(seen.find((e) => e.type === "tool-call" && e.callId === "toolu_co")).toMatchObject({
      dispatch: "deferred",
    });
    expect(runs).toEqual(["add:AERO-1", "checkout"]);
    expect(result.outcomes.map((o) => o.resultText)).toEqual(["added AERO-1", "order placed"]);
  });

  it("records server tools but never executes them", async () => {
    const events = buildStreamEvents(
      [
        {
          type: "server_tool_use",
          id: "srvtoolu_1",
          name: "web_search",
          input: { query: "trail shoes" },
        },
        {
          type: "web_search_tool_result",
          tool_use_id: "srvtoolu_1",
          content: [{ type: "web_search_result", url: "https://example.com" }],
        },
        { type: "text", text: "Found it." },
      ],
      { stopReason: "end_turn" },
    );
    const { result, seen, runs } = await relay(events);
    expect(runs).toEqual([]);
    expect(result.outcomes).toEqual([]);
    expect(result.toolResults).toBeUndefined();
    const server = seen
      .filter((e) => e.type === "server-tool")
      .map((e) => (e as { phase: string }).phase);
    expect(server).toEqual(["call", "result"]);
    expect(result.assistant.content.map((b) => b.type)).toEqual([
      "server_tool_use",
      "web_search_tool_result",
      "text",
    ]);
  });

  it("records timings per block and per tool, and the time saved", async () => {
    const { result } = await relay(buildStreamEvents(blocks), { delayMs: 2 });
    const t = result.timings;
    expect(t.blocks.map((b) => b.kind)).toEqual(["text", "tool_use", "tool_use", "tool_use"]);
    expect(t.blocks.every((b) => b.stopMs !== undefined && b.stopMs >= b.startMs)).toBe(true);
    expect(t.tools.map((x) => x.callId)).toEqual(["toolu_a", "toolu_b", "toolu_c"]);
    expect(t.firstToolStartMs).toBeLessThan(t.streamEndMs!);
    expect(t.tools.every((x) => x.startMs !== undefined && x.endMs! >= x.startMs!)).toBe(true);
    expect(t.savedMs).toBeGreaterThanOrEqual(0);
  });

  it("a stream error event mid-stream: running tools cancelled, every call answered", async () => {
    const events = buildStreamEvents(blocks).slice(0, -6);
    events.push({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    const { result } = await relay(events, { delayMs: 1 });
    expect(result.error?.code).toBe("stream_error");
    expect(result.stopReason).toBe("error");
    assertValidContinuation(result.assistant, result.toolResults);
  });

  it("keeps what a read's joined deltas added before the block limit, as one delta at a time does", async () => {
    const chunkSize = 256 * 1024;
    const events = buildStreamEvents(
      [{ type: "text", text: "x".repeat(DEFAULT_MAX_BLOCK_CHARS + chunkSize) }],
      { chunkSize },
    );
    const oneByOne = await relay(events);
    const textOf = (assistant: { content: { type: string; text?: string }[] }) =>
      assistant.content.find((b) => b.type === "text")?.text?.length;
    expect(textOf(oneByOne.result.assistant)).toBe(DEFAULT_MAX_BLOCK_CHARS);
    const seen: AgentEvent[] = [];
    const round = new StreamedRound({
      executor: shop().executor,
      sink: (e) => seen.push(e),
      previewIntervalMs: 0,
    });
    const result = await round.relay(
      (async function* () {
        yield events;
      })(),
    );
    expect(result.error).toMatchObject({ code: "limit_exceeded" });
    expect(textOf(result.assistant)).toBe(DEFAULT_MAX_BLOCK_CHARS);
    const shown = seen
      .filter((e) => e.type === "text-delta")
      .reduce((n, e) => n + (e as { text: string }).text.length, 0);
    expect(shown).toBe(DEFAULT_MAX_BLOCK_CHARS);
  });

  it("bounds a block at DEFAULT_MAX_BLOCK_CHARS when no limit is given: a longer one ends the round with limit_exceeded, calls before it answered", async () => {
    const chunkSize = 256 * 1024;
    const events = buildStreamEvents(
      [
        blocks[1]!,
        { type: "text", text: "x".repeat(DEFAULT_MAX_BLOCK_CHARS + chunkSize) },
        blocks[3]!,
      ],
      { chunkSize },
    );
    const { result, runs } = await relay(events);
    expect(result.error).toMatchObject({
      code: "limit_exceeded",
      details: { index: 1, limit: DEFAULT_MAX_BLOCK_CHARS },
    });
    expect(runs).not.toContain("total");
    assertValidContinuation(result.assistant, result.toolResults);
  });
});

describe("interruption after every event index: every call answered, the conversation valid", () => {
  const slowBlocks: ScriptBlock[] = [
    { type: "text", text: "On it." },
    { type: "tool_use", id: "toolu_a", name: "add_to_cart", input: { sku: "AERO-1", ms: 10_000 } },
    { type: "tool_use", id: "toolu_b", name: "add_to_cart", input: { sku: "SOCK-2", ms: 0 } },
    { type: "tool_use", id: "toolu_co", name: "checkout", input: {} },
    { type: "tool_use", id: "toolu_c", name: "cart_total", input: { ms: 10_000 } },
  ];
  const events = buildStreamEvents(slowBlocks, { chunkSize: 6 });
  const aStop = events.findIndex((e) => e.type === "content_block_stop" && e.index === 1);

  for (const mode of ["dropped connection", "abort"] as const) {
    it(`${mode}: the result is a valid continuation, nothing ran twice, running tools saw the abort`, async () => {
      for (let cut = 0; cut < events.length; cut++) {
        const controller = new AbortController();
        const tools = shop();
        const head = events.slice(0, cut);
        let source: AsyncIterable<readonly StreamEvent[]>;
        if (mode === "abort") {
          source = (async function* () {
            yield* replayEvents(head, { delayMs: 1 });
            controller.abort();
            await new Promise(() => {}); // the provider hangs; only the abort ends the round
          })();
        } else {
          source = replayEvents(head, { delayMs: 1, failWith: new Error("socket hang up") });
        }
        const seen: AgentEvent[] = [];
        const round = new StreamedRound({
          executor: tools.executor,
          sink: (e) => seen.push(e),
          signal: controller.signal,
        });
        const result = await round.relay(source);
        expect(result.error?.code, `cut ${cut}`).toBe(
          mode === "abort" ? "aborted" : "stream_interrupted",
        );
        expect(result.stopReason).toBe("error");
        assertValidContinuation(result.assistant, result.toolResults);
        expect(new Set(tools.runs).size, `cut ${cut}: ran twice`).toBe(tools.runs.length);
        expect(tools.runs).not.toContain("checkout"); // deferred: never on a cut response
        // every call reported interrupted was running and saw its abort signal; the 10 s tools
        // can only have ended through it
        const tags: Record<string, string> = {
          toolu_a: "AERO-1",
          toolu_b: "SOCK-2",
          toolu_c: "total",
        };
        for (const o of result.outcomes) {
          if (o.status === "interrupted")
            expect(tools.aborted, `cut ${cut}`).toContain(tags[o.callId]);
          if (o.callId === "toolu_a" || o.callId === "toolu_c") expect(o.status).not.toBe("ok");
        }
        if (cut > aStop + 2) {
          // toolu_a was running (events are 1 ms apart) when the round was interrupted
          expect(result.outcomes[0]?.status, `cut ${cut}`).toBe("interrupted");
          expect(tools.aborted).toContain("AERO-1");
        }
        expect(seen.at(-1)?.type).toBe("round-end");
      }
    });
  }
});

describe("the announced dispatch decision", () => {
  it("says cancelled for calls completed while the round was being cancelled", async () => {
    const controller = new AbortController();
    const tools = shop();
    const seen: AgentEvent[] = [];
    const round = new StreamedRound({
      executor: tools.executor,
      signal: controller.signal,
      sink: (e) => {
        seen.push(e);
        if (e.type === "tool-call" && e.callId === "toolu_a") controller.abort();
      },
    });
    // No per-block stops: message_stop completes all three calls at once, and the first one's
    // announcement cancels the round, so the other two are announced as cancelled.
    const events = buildStreamEvents(blocks).filter(
      (e) => !(e.type === "content_block_stop" && e.index > 0),
    );
    const result = await round.relay(replayEvents(events));
    const decisions = seen
      .filter((e) => e.type === "tool-call")
      .map((e) => (e as { dispatch: string }).dispatch);
    expect(decisions).toEqual(["started", "cancelled", "cancelled"]);
    expect(result.outcomes.every((o) => o.status === "not_executed")).toBe(true);
    expect(tools.runs).toEqual([]);
  });
});

describe("a silent stream", () => {
  it("is treated as dropped after the idle timeout: running tools cancelled, calls answered", async () => {
    const tools = shop();
    const events = buildStreamEvents(blocks).slice(0, 12);
    const hanging = (async function* () {
      yield* replayEvents(events);
      await new Promise(() => {}); // the connection stays open but says nothing
    })();
    const round = new StreamedRound({
      executor: tools.executor,
      sink: () => {},
      idleTimeoutMs: 40,
    });
    const result = await round.relay(hanging);
    expect(result.error?.code).toBe("stream_interrupted");
    expect(result.error?.message).toContain("silent");
    assertValidContinuation(result.assistant, result.toolResults);
  });
});

describe("cancellation during the join", () => {
  it("aborts running tools, keeps finished results, and reports the round as cancelled", async () => {
    const controller = new AbortController();
    const tools = shop();
    const events = buildStreamEvents([
      { type: "tool_use", id: "toolu_a", name: "add_to_cart", input: { sku: "AERO-1", ms: 0 } },
      { type: "tool_use", id: "toolu_c", name: "cart_total", input: { ms: 10_000 } },
    ]);
    const round = new StreamedRound({
      executor: tools.executor,
      sink: () => {},
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 30);
    const result = await round.relay(replayEvents(events));
    expect(result.error?.code).toBe("aborted");
    expect(result.outcomes.map((o) => o.status)).toEqual(["ok", "interrupted"]);
    expect(tools.aborted).toEqual(["total"]);
    assertValidContinuation(result.assistant, result.toolResults);
  });
});

/** The assistant message plus its results form a valid continuation of a conversation. */
function assertValidContinuation(assistant: Message, toolResults: Message | undefined): void {
  if (assistant.role !== "assistant") throw new Error("not an assistant message");
  for (const block of assistant.content) {
    if (block.type === "text") expect(block.text).not.toBe("");
    if (block.type === "tool_use") expect(typeof block.input).toBe("object");
  }
  const ids = assistant.content.filter((b) => b.type === "tool_use").map((b) => b.id);
  if (ids.length === 0) {
    expect(toolResults).toBeUndefined();
    return;
  }
  expect(toolResults?.role).toBe("user");
  const content = toolResults?.content;
  if (!Array.isArray(content)) throw new Error("tool results must be blocks");
  expect(content.map((b) => (b.type === "tool_result" ? b.tool_use_id : "?"))).toEqual(ids);
}
