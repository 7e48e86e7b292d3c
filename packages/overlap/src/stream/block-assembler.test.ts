import { describe, expect, it } from "vitest";
import { isOverlapError } from "../errors.js";
import { decodeSseStream } from "../sse/decode-sse-stream.js";
import type { ExpectedToolCall, StreamFixtureExpectation } from "../testing/fixtures.js";
import {
  invalidJsonRound,
  richRound,
  shoppingRound,
  shoppingRoundExpected,
  streamFixtures,
} from "../testing/fixtures.js";
import {
  mulberry32,
  replayChunked,
  splitFrames,
  splitSeeded,
  sseToStreamEvents,
} from "../testing/replay.js";
import { type AssemblerReport, BlockAssembler } from "./block-assembler.js";
import type { StreamEvent } from "./stream-event.js";
import type { ToolCall } from "./tool-call.js";

/** Everything observable from feeding a list of events to a fresh assembler. */
interface Replay extends StreamFixtureExpectation {
  steps: { event: StreamEvent; reports: readonly AssemblerReport[] }[];
  toolUses: ToolCall[];
}

function replay(events: readonly StreamEvent[]): Replay {
  const assembler = new BlockAssembler();
  const steps: Replay["steps"] = [];
  let error: Replay["error"];
  let end: Extract<AssemblerReport, { type: "message-end" }> | undefined;
  for (const event of events) {
    const reports = assembler.push(event);
    steps.push({ event, reports });
    for (const report of reports) {
      if (report.type === "message-end") end = report;
      if (report.type === "stream-error") {
        error = { type: report.errorType, message: report.message };
      }
    }
  }
  const toolCalls: ExpectedToolCall[] = steps.flatMap(({ reports }) =>
    reports.flatMap((r) =>
      r.type === "tool-call"
        ? [{ callId: r.callId, name: r.name, server: r.server, ok: r.input.ok }]
        : [],
    ),
  );
  const partial = assembler.partial();
  const result: Replay = {
    steps,
    message: end?.message ?? partial.message,
    toolUses: end?.toolUses ?? partial.toolUses,
    stopReason: end?.stopReason ?? (error ? "error" : "end_turn"),
    ended: assembler.ended,
    toolCalls,
    usage: { ...assembler.usage },
  };
  if (error) result.error = error;
  return result;
}

/** Asserts everything a fixture promises, whatever way its text was delivered. */
function expectMatches(result: Replay, expected: StreamFixtureExpectation): void {
  expect(result.message).toStrictEqual(expected.message);
  expect(result.stopReason).toBe(expected.stopReason);
  expect(result.ended).toBe(expected.ended);
  expect(result.toolCalls).toStrictEqual(expected.toolCalls);
  expect(result.usage).toStrictEqual(expected.usage);
  expect(result.error).toStrictEqual(expected.error);
  // The join's truth: local calls only, in index order, matching the message's tool_use blocks.
  const localIds = expected.message.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : []));
  expect(result.toolUses.map((t) => t.id)).toStrictEqual(localIds);

  const started = new Set<string>();
  for (const { event, reports } of result.steps) {
    for (const report of reports) {
      if (report.type === "block-start" && "id" in report.block) started.add(report.block.id);
      if (report.type === "tool-input-delta") expect(started.has(report.callId)).toBe(true);
      // A call completes only at its block's stop (or at message_stop, which ends all).
      if (report.type === "tool-call") {
        expect(started.has(report.callId)).toBe(true);
        expect(["content_block_stop", "message_stop"]).toContain(event.type);
      }
    }
  }
}

function violation(events: readonly StreamEvent[]): unknown {
  const assembler = new BlockAssembler();
  try {
    for (const event of events) assembler.push(event);
  } catch (err) {
    return err;
  }
  return undefined;
}

function expectProtocolError(events: readonly StreamEvent[], fragment: string): void {
  const err = violation(events);
  expect(isOverlapError(err, "stream_protocol"), `expected stream_protocol for ${fragment}`).toBe(
    true,
  );
  expect((err as Error).message).toContain(fragment);
}

const start: StreamEvent = {
  type: "message_start",
  message: {
    id: "msg_01Test",
    model: "claude-test",
    usage: { input_tokens: 10, output_tokens: 1 },
  },
};
const toolStart = (index: number, id: string): StreamEvent => ({
  type: "content_block_start",
  index,
  content_block: { type: "tool_use", id, name: "add_to_cart", input: {} },
});
const textStart = (index: number): StreamEvent => ({
  type: "content_block_start",
  index,
  content_block: { type: "text", text: "" },
});
const json = (index: number, partial_json: string): StreamEvent => ({
  type: "content_block_delta",
  index,
  delta: { type: "input_json_delta", partial_json },
});
const text = (index: number, value: string): StreamEvent => ({
  type: "content_block_delta",
  index,
  delta: { type: "text_delta", text: value },
});
const stop = (index: number): StreamEvent => ({ type: "content_block_stop", index });
const messageStop: StreamEvent = { type: "message_stop" };
/** An event of a type this code does not know (the protocol may add some). */
const unknownEvent = (type: string): StreamEvent => ({ type, index: 0 }) as unknown as StreamEvent;

describe("BlockAssembler on recorded streams", () => {
  for (const { name, sse, expected } of streamFixtures) {
    describe(name, () => {
      it("assembles the whole text decoded at once", () => {
        expectMatches(replay(sseToStreamEvents(sse)), expected);
      });

      it("assembles the text delivered one event at a time", () => {
        const frames = splitFrames(sse);
        expect(frames.length).toBeGreaterThan(5);
        expectMatches(replay(replayChunked(sse, frames)), expected);
      });

      it("assembles the text in 64 seeded random chunkings (chunks of 1..64 characters)", () => {
        const whole = sseToStreamEvents(sse);
        for (let seed = 1; seed <= 64; seed++) {
          const chunks = splitSeeded(sse, seed, 1 + (seed % 64));
          const events = replayChunked(sse, chunks);
          expect(events, `seed ${seed}`).toStrictEqual(whole);
          expectMatches(replay(events), expected);
        }
      });

      it("assembles the UTF-8 bytes cut at random points, inside characters too", async () => {
        const bytes = new TextEncoder().encode(sse);
        for (let seed = 1; seed <= 20; seed++) {
          const random = mulberry32(seed);
          const chunks: Uint8Array[] = [];
          for (let at = 0; at < bytes.length; ) {
            const size = 1 + Math.floor(random() * 16);
            chunks.push(bytes.subarray(at, at + size));
            at += size;
          }
          const events: StreamEvent[] = [];
          async function* source(): AsyncGenerator<Uint8Array> {
            yield* chunks;
          }
          for await (const frame of decodeSseStream(source())) {
            events.push(JSON.parse(frame.data) as StreamEvent);
          }
          expectMatches(replay(events), expected);
        }
      });
    });
  }
});

describe("BlockAssembler rules", () => {
  it("ignores event types and delta types it does not know", () => {
    const events = sseToStreamEvents(shoppingRound);
    const noisy: StreamEvent[] = [];
    for (const event of events) {
      noisy.push(event);
      if (event.type !== "message_stop") {
        noisy.push(unknownEvent("content_block_annotation"));
        noisy.push(unknownEvent("future_event"));
      }
    }
    const assembler = new BlockAssembler();
    expect(assembler.push(events[0]!)).toHaveLength(1);
    expect(assembler.push(unknownEvent("content_block_annotation"))).toEqual([]);
    assembler.push(textStart(0));
    expect(
      assembler.push({
        type: "content_block_delta",
        index: 0,
        delta: { type: "future_delta", x: 1 },
      } as unknown as StreamEvent),
    ).toEqual([]);
    expectMatches(replay(noisy), shoppingRoundExpected);
    // The recorded rich stream carries one such event too (content_block_annotation).
    expect(
      sseToStreamEvents(richRound).some((e) => e.type === ("content_block_annotation" as string)),
    ).toBe(true);
  });

  it("rejects a delta or a stop for a block that never started", () => {
    expectProtocolError([start, text(0, "hi")], "never started");
    expectProtocolError([start, textStart(0), text(1, "hi")], "never started");
    expectProtocolError([start, stop(0)], "never started");
  });

  it("rejects a block started twice, a second message_start, a double stop, a delta after stop", () => {
    expectProtocolError([start, textStart(0), textStart(0)], "started twice");
    expectProtocolError(
      [start, toolStart(0, "toolu_1"), stop(0), toolStart(0, "toolu_2")],
      "started twice",
    );
    expectProtocolError([start, start], "second message_start");
    expectProtocolError([start, textStart(0), stop(0), stop(0)], "stopped twice");
    expectProtocolError([start, toolStart(0, "toolu_1"), stop(0), json(0, "{}")], "after its stop");
  });

  it("rejects a delta whose type does not match the block kind", () => {
    const thinkingStart: StreamEvent = {
      type: "content_block_start",
      index: 0,
      content_block: { type: "thinking", thinking: "", signature: "" },
    };
    const wholeStart: StreamEvent = {
      type: "content_block_start",
      index: 0,
      content_block: { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
    };
    const thinkingDelta: StreamEvent = {
      type: "content_block_delta",
      index: 0,
      delta: { type: "thinking_delta", thinking: "hmm" },
    };
    const signatureDelta: StreamEvent = {
      type: "content_block_delta",
      index: 0,
      delta: { type: "signature_delta", signature: "sig" },
    };
    const citationDelta: StreamEvent = {
      type: "content_block_delta",
      index: 0,
      delta: { type: "citations_delta", citation: { type: "char_location" } },
    };
    expectProtocolError([start, toolStart(0, "toolu_1"), text(0, "x")], "which is a tool block");
    expectProtocolError([start, textStart(0), json(0, '{"a"')], "which is a text block");
    expectProtocolError([start, textStart(0), thinkingDelta], "which is a text block");
    expectProtocolError([start, textStart(0), signatureDelta], "which is a text block");
    expectProtocolError([start, thinkingStart, text(0, "x")], "which is a thinking block");
    expectProtocolError([start, thinkingStart, citationDelta], "which is a thinking block");
    expectProtocolError([start, toolStart(0, "toolu_1"), thinkingDelta], "which is a tool block");
    expectProtocolError([start, wholeStart, text(0, "x")], "which is a whole block");
    expectProtocolError([start, wholeStart, json(0, "{}")], "which is a whole block");
  });

  it("rejects any content event after message_stop; ignores ping and unknown types", () => {
    const done = [start, textStart(0), text(0, "hi"), stop(0), messageStop];
    expectProtocolError([...done, textStart(1)], "after message_stop");
    expectProtocolError([...done, text(0, "more")], "after message_stop");
    expectProtocolError(
      [...done, { type: "message_delta", delta: { stop_reason: "end_turn" } }],
      "after message_stop",
    );
    expectProtocolError([...done, messageStop], "after message_stop");
    expect(violation([...done, { type: "ping" }])).toBeUndefined();
    expect(violation([...done, { type: "future_event" } as never])).toBeUndefined();
  });

  it("gives a partial message with object inputs after every event of shoppingRound", () => {
    const events = sseToStreamEvents(shoppingRound);
    const assembler = new BlockAssembler();
    const stopped = new Set<number>();
    for (const event of events) {
      assembler.push(event);
      if (event.type === "content_block_stop") stopped.add(event.index);
      const { message, toolUses } = assembler.partial();
      for (const block of message.content) {
        if (block.type !== "tool_use") continue;
        expect(typeof block.input).toBe("object");
        expect(block.input).not.toBeNull();
        expect(Array.isArray(block.input)).toBe(false);
      }
      const toolBlocks = message.content.filter((b) => b.type === "tool_use");
      expect(toolUses.map((t) => t.id)).toStrictEqual(toolBlocks.map((b) => b.id));
      for (const record of toolUses) {
        expect(record.input === null, `record ${record.index} after ${event.type}`).toBe(
          !stopped.has(record.index),
        );
        if (record.input !== null) expect(record.input.ok).toBe(true);
      }
    }
    // The partial message after the last event is the final one.
    expect(assembler.partial().message).toStrictEqual(shoppingRoundExpected.message);
  });

  it("leaves out empty text and unfinished thinking from a partial message", () => {
    const assembler = new BlockAssembler();
    for (const event of [
      start,
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "thinking", thinking: "", signature: "" },
      },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "hm" } },
      textStart(1),
    ] satisfies StreamEvent[]) {
      assembler.push(event);
    }
    expect(assembler.partial().message.content).toStrictEqual([]);
  });

  it("reports a call only at its block stop even when its arguments parse earlier", () => {
    const assembler = new BlockAssembler();
    const before = [start, toolStart(0, "toolu_b1"), json(0, ""), json(0, '{"a":'), json(0, "1}")];
    const early = before.flatMap((e) => [...assembler.push(e)]);
    expect(early.some((r) => r.type === "tool-call")).toBe(false);
    // The arguments are already a complete object, yet nothing is dispatched on a ping either.
    expect(assembler.push({ type: "ping" })).toEqual([]);
    expect(assembler.partial().toolUses[0]?.input).toBeNull();
    // A prefix parsing is no signal: more argument text may still come.
    expect(assembler.push(json(0, "  "))).toHaveLength(1);
    const atStop = assembler.push(stop(0));
    expect(atStop).toStrictEqual([
      {
        type: "tool-call",
        index: 0,
        callId: "toolu_b1",
        name: "add_to_cart",
        server: false,
        input: { ok: true, value: { a: 1 } },
        // The call's one record: where it stands, what was streamed, what it parsed to.
        call: {
          id: "toolu_b1",
          name: "add_to_cart",
          round: 1,
          index: 0,
          raw: '{"a":1}  ',
          input: { ok: true, value: { a: 1 } },
          block: { type: "tool_use", id: "toolu_b1", name: "add_to_cart", input: { a: 1 } },
        },
      },
    ]);
  });

  it("closes blocks left open at message_stop and reports their calls then", () => {
    const assembler = new BlockAssembler();
    for (const e of [start, toolStart(0, "toolu_open"), json(0, '{"q":2}')]) assembler.push(e);
    const reports = assembler.push(messageStop);
    expect(reports.map((r) => r.type)).toStrictEqual(["tool-call", "message-end"]);
    const end = reports[1];
    expect(end?.type === "message-end" && end.stopReason).toBe("tool_use");
  });

  it("reports server_tool_use calls with server: true and keeps them out of toolUses", () => {
    const result = replay(sseToStreamEvents(richRound));
    const reports = result.steps.flatMap((s) => s.reports);
    const serverCall = reports.find((r) => r.type === "tool-call" && r.server);
    expect(serverCall).toMatchObject({
      type: "tool-call",
      callId: "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
      name: "web_search",
      server: true,
      input: { ok: true, value: { query: "蓝牙耳机 送礼 评测" } },
    });
    const serverDeltas = reports.filter((r) => r.type === "tool-input-delta" && r.server);
    expect(serverDeltas.length).toBeGreaterThan(0);
    expect(result.toolUses.map((t) => t.id)).toStrictEqual(["toolu_01Nf4GkXr7WsQ2mVb9TzJcHd"]);
    expect(result.message.content.map((b) => b.type)).toContain("server_tool_use");
  });

  it("reports arguments that never become valid JSON as a failed parse, with {} in the block", () => {
    const result = replay(sseToStreamEvents(invalidJsonRound));
    const calls = result.steps.flatMap((s) => s.reports).filter((r) => r.type === "tool-call");
    expect(calls).toHaveLength(2);
    const bad = calls[0];
    expect(bad?.type === "tool-call" && bad.input.ok).toBe(false);
    if (bad?.type === "tool-call" && !bad.input.ok) {
      expect(bad.input.error).toContain("not valid JSON");
      expect(bad.input.raw).toBe('{"sku": "C-3003", "quantity": 2, "note": "the "blue" one"}');
    }
    const badBlock = result.message.content[1];
    expect(badBlock).toStrictEqual({
      type: "tool_use",
      id: "toolu_01Pw3KcTz9XmNv4RbLq7HsYg",
      name: "add_to_cart",
      input: {},
    });
    expect(result.toolUses[0]?.input?.ok).toBe(false);
    expect(result.toolUses[0]?.raw).toBe(
      '{"sku": "C-3003", "quantity": 2, "note": "the "blue" one"}',
    );
  });

  it("counts argument bytes and offers a display preview per delta", () => {
    const assembler = new BlockAssembler();
    assembler.push(start);
    assembler.push(toolStart(0, "toolu_p"));
    const first = assembler.push(json(0, '{"sku"'))[0];
    const second = assembler.push(json(0, ': "A"}'))[0];
    expect(first).toMatchObject({ type: "tool-input-delta", bytes: 6, delta: '{"sku"' });
    expect(second).toMatchObject({ type: "tool-input-delta", bytes: 12 });
    if (second?.type === "tool-input-delta") expect(second.preview()).toStrictEqual({ sku: "A" });
  });

  it("drops empty and blank text blocks from the final message (the API rejects them)", () => {
    const assembler = new BlockAssembler();
    const events: StreamEvent[] = [
      start,
      textStart(0),
      stop(0),
      textStart(1),
      text(1, "\n\n"),
      stop(1),
    ];
    for (const e of events) assembler.push(e);
    const end = assembler.push(messageStop).find((r) => r.type === "message-end");
    expect(end?.type === "message-end" && end.message.content).toEqual([]);
  });

  it("hands out copies of whole blocks: mutating a report never changes the message", () => {
    const assembler = new BlockAssembler();
    assembler.push(start);
    const [report] = assembler.push({
      type: "content_block_start",
      index: 0,
      content_block: {
        type: "web_search_tool_result",
        tool_use_id: "srv_1",
        content: [{ url: "a" }],
      },
    });
    if (report?.type !== "block-start") throw new Error("no block-start");
    (report.block as { content: unknown }).content = "mutated";
    assembler.push(stop(0));
    const end = assembler.push(messageStop).find((r) => r.type === "message-end");
    expect(end?.type === "message-end" && end.message.content[0]).toEqual({
      type: "web_search_tool_result",
      tool_use_id: "srv_1",
      content: [{ url: "a" }],
    });
  });

  it("takes a whole call announced at block start with no deltas as its arguments", () => {
    const assembler = new BlockAssembler();
    assembler.push(start);
    assembler.push({
      type: "content_block_start",
      index: 0,
      content_block: {
        type: "tool_use",
        id: "toolu_w",
        name: "view_cart",
        input: { verbose: true },
      },
    });
    const [call] = assembler.push(stop(0));
    expect(call).toMatchObject({
      type: "tool-call",
      input: { ok: true, value: { verbose: true } },
    });
  });

  it("gives a repeated or already-used call id a fresh one, consistently in reports and message", () => {
    const assembler = new BlockAssembler({ usedIds: new Set(["toolu_old"]) });
    const reports = [
      start,
      toolStart(0, "toolu_old"),
      stop(0),
      toolStart(1, "toolu_x"),
      stop(1),
      toolStart(2, "toolu_x"),
      stop(2),
      messageStop,
    ].flatMap((e) => [...assembler.push(e)]);
    const calls = reports
      .filter((r) => r.type === "tool-call")
      .map((r) => (r.type === "tool-call" ? r.callId : ""));
    expect(calls).toEqual(["toolu_old_dup2", "toolu_x", "toolu_x_dup2"]);
    const end = reports.find((r) => r.type === "message-end");
    if (end?.type !== "message-end") throw new Error("no end");
    expect(end.toolUses.map((u) => u.id)).toEqual(calls);
    expect(end.message.content.map((b) => (b.type === "tool_use" ? b.id : ""))).toEqual(calls);
  });

  it("coerces malformed scalar fields instead of breaking later (text: 5)", () => {
    const assembler = new BlockAssembler();
    assembler.push(start);
    assembler.push({
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: 5 as never },
    });
    expect(assembler.partial().message.content).toEqual([{ type: "text", text: "5" }]);
    expect(() => assembler.push(null as never)).toThrow(/not an object/);
  });
});

/** Shapes real servers send that an earlier assembler lost (recorded in ../shared/realstreams). */
describe("BlockAssembler: what real servers send", () => {
  const start = (content: unknown[] = [], extra: Record<string, unknown> = {}): StreamEvent =>
    ({
      type: "message_start",
      message: { id: "msg_1", model: "claude", content, stop_reason: null, ...extra },
    }) as StreamEvent;
  const feed = (events: unknown[]) => replay(events as StreamEvent[]);

  it("streams an mcp_tool_use's input like server_tool_use and never reports it as a local call", () => {
    const r = feed([
      start(),
      {
        type: "content_block_start",
        index: 0,
        content_block: {
          type: "mcp_tool_use",
          id: "mcptoolu_1",
          name: "ask_question",
          server_name: "deepwiki",
          input: {},
        },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: '{"repo":"a/' },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: 'b"}' },
      },
      { type: "content_block_stop", index: 0 },
      {
        type: "content_block_start",
        index: 1,
        content_block: {
          type: "mcp_tool_result",
          tool_use_id: "mcptoolu_1",
          is_error: false,
          content: [{ type: "text", text: "ok" }],
        },
      },
      { type: "content_block_stop", index: 1 },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 9 } },
      { type: "message_stop" },
    ]);
    expect(r.message.content[0]).toEqual({
      type: "mcp_tool_use",
      id: "mcptoolu_1",
      name: "ask_question",
      server_name: "deepwiki",
      input: { repo: "a/b" },
    });
    expect(r.toolCalls).toEqual([
      { callId: "mcptoolu_1", name: "ask_question", server: true, ok: true },
    ]);
    expect(r.toolUses).toEqual([]);
    expect(r.stopReason).toBe("end_turn");
  });

  it("drops an mcp_tool_use cut off before its result from the partial message", () => {
    const assembler = new BlockAssembler();
    assembler.push(start());
    assembler.push({
      type: "content_block_start",
      index: 0,
      content_block: { type: "mcp_tool_use", id: "m1", name: "q", server_name: "s", input: {} },
    } as unknown as StreamEvent);
    assembler.push({
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json: '{"a":1}' },
    });
    assembler.push({ type: "content_block_stop", index: 0 });
    expect(assembler.partial().message.content).toEqual([]);
  });

  it("takes blocks present at message_start as complete blocks, dispatches their calls, and keeps its stop reason", () => {
    const toolUse = {
      type: "tool_use",
      id: "toolu_1",
      name: "rollDie",
      input: { player: "player2" },
      caller: { type: "code_execution_20250825", tool_id: "srvtoolu_1" },
    };
    const r = feed([start([toolUse], { stop_reason: "tool_use" }), { type: "message_stop" }]);
    expect(r.message.content).toEqual([toolUse]);
    expect(r.toolCalls).toEqual([{ callId: "toolu_1", name: "rollDie", server: false, ok: true }]);
    expect(r.toolUses.map((u) => [u.id, u.input])).toEqual([
      ["toolu_1", { ok: true, value: { player: "player2" } }],
    ]);
    expect(r.stopReason).toBe("tool_use");
    // moment 1 and moment 2 are both reported, at message_start
    expect(r.steps[0]!.reports.map((x) => x.type)).toEqual([
      "message-start",
      "block-start",
      "tool-call",
    ]);
  });

  it("a whole call at message_start with an empty input is a complete call with {}", () => {
    const r = feed([
      start([{ type: "tool_use", id: "t", name: "noArgs", input: {} }], {
        stop_reason: "tool_use",
      }),
      { type: "message_stop" },
    ]);
    expect(r.toolUses[0]?.input).toEqual({ ok: true, value: {} });
  });

  it("keeps every field of every block as received (caller, citations: null, unknown fields) and invents none", () => {
    const r = feed([
      start(),
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "text", text: "", citations: null },
      },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } },
      { type: "content_block_stop", index: 0 },
      {
        type: "content_block_start",
        index: 1,
        content_block: {
          type: "server_tool_use",
          id: "srv_1",
          name: "code_execution",
          input: {},
          caller: { type: "direct" },
        },
      },
      {
        type: "content_block_delta",
        index: 1,
        delta: { type: "input_json_delta", partial_json: '{"code":"x"}' },
      },
      { type: "content_block_stop", index: 1 },
      {
        type: "content_block_start",
        index: 2,
        content_block: {
          type: "tool_use",
          id: "toolu_2",
          name: "f",
          input: {},
          caller: { type: "direct" },
        },
      },
      {
        type: "content_block_delta",
        index: 2,
        delta: { type: "input_json_delta", partial_json: "{}" },
      },
      { type: "content_block_stop", index: 2 },
      { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: {} },
      { type: "message_stop" },
    ]);
    expect(r.message.content).toEqual([
      { type: "text", text: "Hi", citations: null },
      {
        type: "server_tool_use",
        id: "srv_1",
        name: "code_execution",
        input: { code: "x" },
        caller: { type: "direct" },
      },
      { type: "tool_use", id: "toolu_2", name: "f", input: {}, caller: { type: "direct" } },
    ]);
    expect(Object.keys(r.message.content[2]!).sort()).toEqual([
      "caller",
      "id",
      "input",
      "name",
      "type",
    ]);
  });

  it("a compaction block takes its content from compaction_delta", () => {
    const r = feed([
      start(),
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "compaction", content: null },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "compaction_delta", content: "summary" },
      },
      { type: "content_block_stop", index: 0 },
      { type: "message_stop" },
    ]);
    expect(r.message.content).toEqual([{ type: "compaction", content: "summary" }]);
  });
});
