/**
 * The assembler against streams no provider should send: random event sequences (well-formed
 * events in a random order, with random fields) and random JSON values as events. Whatever comes
 * in, `push` answers reports or throws an OverlapError (`stream_protocol`, `limit_exceeded`), never
 * another exception; `partial()` still gives a message the round can repair; no block grows past
 * `maxBlockChars`.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isOverlapError, OverlapError } from "../errors.js";
import type { StopReason } from "../protocol/stop-reason.js";
import { shoppingRound } from "../testing/fixtures.js";
import { sseToStreamEvents } from "../testing/replay.js";
import {
  type AssemblerReport,
  BlockAssembler,
  DEFAULT_MAX_BLOCK_CHARS,
} from "./block-assembler.js";
import { normalizeStopReason, type StreamEvent } from "./stream-event.js";

const STOP_REASONS: readonly StopReason[] = [
  "end_turn",
  "tool_use",
  "max_tokens",
  "stop_sequence",
  "pause_turn",
  "refusal",
  "error",
];

const index = fc.oneof(
  { weight: 8, arbitrary: fc.nat({ max: 3 }) },
  { weight: 1, arbitrary: fc.jsonValue() },
);
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.jsonValue());
const callId = fc.constantFrom("toolu_1", "toolu_2", "call_0", "");
const block = fc.oneof(
  fc.record({ type: fc.constant("text"), text }),
  fc.record({ type: fc.constant("text"), text, citations: fc.jsonValue() }),
  fc.record({ type: fc.constant("thinking"), thinking: text, signature: text }),
  fc.record({ type: fc.constant("redacted_thinking"), data: text }),
  fc.record({
    type: fc.constantFrom("tool_use", "server_tool_use", "mcp_tool_use"),
    id: fc.oneof(callId, fc.jsonValue()),
    name: fc.oneof(fc.constantFrom("add_to_cart", "web_search"), fc.jsonValue()),
    input: fc.jsonValue(),
  }),
  fc.record({
    type: fc.constantFrom("web_search_tool_result", "mcp_tool_result"),
    tool_use_id: callId,
    content: fc.jsonValue(),
  }),
  fc.record({ type: fc.constant("compaction"), content: fc.jsonValue() }),
  fc.record({ type: fc.jsonValue() }),
  fc.jsonValue(),
);
const json = fc.oneof(
  fc.constantFrom('{"productId": "p-0001"', ', "quantity": 2}', "{", "}", '"', "\\", "[", ""),
  fc.string({ maxLength: 10 }),
);
const delta = fc.oneof(
  fc.record({ type: fc.constant("text_delta"), text }),
  fc.record({ type: fc.constant("thinking_delta"), thinking: text }),
  fc.record({ type: fc.constant("signature_delta"), signature: text }),
  fc.record({
    type: fc.constant("input_json_delta"),
    partial_json: fc.oneof(json, fc.jsonValue()),
  }),
  fc.record({ type: fc.constant("citations_delta"), citation: fc.jsonValue() }),
  fc.record({ type: fc.constant("compaction_delta"), content: fc.jsonValue() }),
  fc.record({ type: fc.jsonValue() }),
  fc.jsonValue(),
);
const stopReason = fc.oneof(
  fc.constantFrom("end_turn", "tool_use", "tool_calls", "__proto__", "constructor", "toString"),
  fc.jsonValue(),
);
const usage = fc.oneof(
  fc.record({ input_tokens: fc.jsonValue(), output_tokens: fc.jsonValue() }),
  fc.jsonValue(),
);

/** One event of a plausible shape with random content, or any JSON value. */
const event: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({
    type: fc.constant("message_start"),
    message: fc.oneof(
      fc.record({
        id: text,
        model: text,
        content: fc.oneof(fc.array(block, { maxLength: 3 }), fc.jsonValue()),
        stop_reason: stopReason,
        usage,
      }),
      fc.jsonValue(),
    ),
  }),
  fc.record({ type: fc.constant("content_block_start"), index, content_block: block }),
  fc.record({ type: fc.constant("content_block_delta"), index, delta }),
  fc.record({ type: fc.constant("content_block_stop"), index }),
  fc.record({
    type: fc.constant("message_delta"),
    delta: fc.oneof(fc.record({ stop_reason: stopReason }), fc.jsonValue()),
    usage,
  }),
  fc.constant({ type: "message_stop" }),
  fc.constant({ type: "ping" }),
  fc.record({
    type: fc.constant("error"),
    error: fc.oneof(fc.record({ type: text, message: text }), fc.jsonValue()),
  }),
  fc.jsonValue(),
);

/** A real round's events with random events spliced in at random places. */
const corruptedRound = fc.array(fc.tuple(fc.nat(), event), { maxLength: 6 }).map((insertions) => {
  const events: unknown[] = [...sseToStreamEvents(shoppingRound)];
  for (const [at, inserted] of insertions) events.splice(at % (events.length + 1), 0, inserted);
  return events;
});

interface Outcome {
  reports: AssemblerReport[];
  thrown?: OverlapError;
}

/** Pushes events until the first throw, which must be a typed OverlapError. */
function feed(assembler: BlockAssembler, events: readonly unknown[]): Outcome {
  const reports: AssemblerReport[] = [];
  for (const e of events) {
    try {
      reports.push(...assembler.push(e as StreamEvent));
    } catch (err) {
      if (!(err instanceof OverlapError)) throw err; // fails the property, with the real error
      expect(["stream_protocol", "limit_exceeded"]).toContain(err.code);
      return { reports, thrown: err };
    }
  }
  return { reports };
}

/** `value` with every -0 as 0: JSON has one zero. */
function zeroSigned(value: unknown): unknown {
  if (Object.is(value, -0)) return 0;
  if (Array.isArray(value)) return value.map(zeroSigned);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, zeroSigned(v)]));
  }
  return value;
}

/** What the round does after any stream: take the message (final or partial) and resend it. */
function checkMessage(assembler: BlockAssembler, outcome: Outcome, maxBlockChars: number): void {
  const end = outcome.reports.find((r) => r.type === "message-end");
  const { message, toolUses } = end?.type === "message-end" ? end : assembler.partial();
  // It can be stored and sent again: plain JSON, nothing lost in a round trip (a -0 a server sent
  // comes back as 0, the same JSON number).
  expect(JSON.parse(JSON.stringify(message))).toEqual(zeroSigned(message));
  for (const b of message.content) {
    expect(typeof b.type).toBe("string");
    if (b.type === "text") expect(b.text.length).toBeLessThanOrEqual(maxBlockChars);
    if (b.type === "thinking") {
      expect(b.thinking.length + b.signature.length).toBeLessThanOrEqual(maxBlockChars);
    }
  }
  for (const use of toolUses) expect(use.raw.length).toBeLessThanOrEqual(maxBlockChars);
  for (const r of outcome.reports) {
    if (r.type === "message-end") expect(STOP_REASONS).toContain(r.stopReason);
    if (r.type === "message-delta" && r.stopReason !== null) {
      expect(STOP_REASONS).toContain(r.stopReason);
    }
  }
  if (assembler.stopReason !== null) expect(STOP_REASONS).toContain(assembler.stopReason);
}

describe("BlockAssembler against hostile streams", () => {
  it("random event sequences: reports or a typed OverlapError, and a message the round can resend", () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 25 }), fc.nat({ max: 40 }), (events, limit) => {
        const maxBlockChars = limit + 1;
        const assembler = new BlockAssembler({ maxBlockChars });
        checkMessage(assembler, feed(assembler, events), maxBlockChars);
      }),
      { numRuns: 2_000 },
    );
  });

  it("a real round with random events spliced in: the same", () => {
    fc.assert(
      fc.property(corruptedRound, (events) => {
        const assembler = new BlockAssembler();
        checkMessage(assembler, feed(assembler, events), DEFAULT_MAX_BLOCK_CHARS);
      }),
      { numRuns: 1_000 },
    );
  });

  it('a -0 in a whole block (JSON.parse gives one for "-0") is kept and resends as 0', () => {
    const assembler = new BlockAssembler();
    const outcome = feed(assembler, [
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "redacted_thinking", data: [-0] },
      },
    ]);
    expect(outcome.thrown).toBeUndefined();
    checkMessage(assembler, outcome, DEFAULT_MAX_BLOCK_CHARS);
    expect(JSON.stringify(assembler.partial().message.content)).toBe(
      '[{"type":"redacted_thinking","data":[0]}]',
    );
  });

  it("maps every stop reason into the neutral set, the names of Object's own members too", () => {
    for (const reason of ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"]) {
      expect(normalizeStopReason(reason)).toBe("end_turn");
    }
    expect(normalizeStopReason("tool_calls")).toBe("tool_use");
  });

  it("a block without a string type is a stream_protocol error, not a TypeError", () => {
    for (const content_block of [{}, { type: 5 }, [1], { type: null, input: {}, id: "x" }]) {
      const assembler = new BlockAssembler();
      expect(() =>
        assembler.push({ type: "content_block_start", index: 0, content_block } as never),
      ).toThrow(expect.objectContaining({ code: "stream_protocol" }));
    }
    const start = new BlockAssembler();
    expect(() =>
      start.push({
        type: "message_start",
        message: { id: "m", model: "x", content: [{ type: 7 }] },
      } as never),
    ).toThrow(expect.objectContaining({ code: "stream_protocol" }));
  });

  it("values whose coercion to text throws (found by the properties in CI) are typed errors", () => {
    const noText = { toString: null };
    const throws = (events: readonly unknown[]) => {
      const outcome = feed(new BlockAssembler(), events);
      expect(outcome.thrown?.code).toBe("stream_protocol");
    };
    throws([{ type: "content_block_stop", index: noText }]);
    throws([{ type: "content_block_start", index: noText, content_block: { type: "text" } }]);
    throws([{ type: "message_start", message: { id: {}, model: { toString: 0 }, content: [] } }]);
    throws([
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: noText } },
    ]);
    // A stop reason or an error event's fields that are not text are kept out, not coerced.
    const assembler = new BlockAssembler();
    const reports = feed(assembler, [
      { type: "message_delta", delta: { stop_reason: { toString: 0 } } },
      { type: "error", error: { type: noText, message: [noText] } },
    ]).reports;
    expect(assembler.stopReason).toBe("end_turn");
    expect(reports.at(-1)).toEqual({
      type: "stream-error",
      errorType: "error",
      message: "stream error",
    });
  });

  it("citations that are not a list are a stream_protocol error, not a TypeError later", () => {
    const assembler = new BlockAssembler();
    expect(() =>
      assembler.push({
        type: "content_block_start",
        index: 0,
        content_block: { type: "text", text: "", citations: 5 },
      } as never),
    ).toThrow(expect.objectContaining({ code: "stream_protocol" }));
    // null is a value the API sends: kept as it came.
    const kept = new BlockAssembler();
    kept.push({
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "a", citations: null },
    } as never);
    expect(kept.partial().message.content).toEqual([{ type: "text", text: "a", citations: null }]);
  });
});

describe("BlockAssembler size limit (maxBlockChars)", () => {
  const start = (assembler: BlockAssembler) => {
    assembler.push({ type: "message_start", message: { id: "m", model: "x" } });
    assembler.push({
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: "toolu_1", name: "add_to_cart", input: {} },
    });
  };
  const args = (partial_json: string): StreamEvent => ({
    type: "content_block_delta",
    index: 0,
    delta: { type: "input_json_delta", partial_json },
  });

  it("refuses the argument delta that would pass the limit; the call stays cut off, never run", () => {
    const assembler = new BlockAssembler({ maxBlockChars: 20 });
    start(assembler);
    assembler.push(args('{"productId": '));
    assembler.push(args('"p-01"')); // exactly 20 characters
    let thrown: unknown;
    try {
      assembler.push(args("}"));
    } catch (err) {
      thrown = err;
    }
    expect(isOverlapError(thrown, "limit_exceeded")).toBe(true);
    expect((thrown as OverlapError).message).toContain("Block 0");
    expect((thrown as OverlapError).message).toContain("20 characters");
    expect((thrown as OverlapError).details).toEqual({ index: 0, limit: 20 });
    const { toolUses } = assembler.partial();
    expect(toolUses).toEqual([
      {
        id: "toolu_1",
        name: "add_to_cart",
        round: 1,
        index: 0,
        raw: '{"productId": "p-01"',
        input: null,
        block: { type: "tool_use", id: "toolu_1", name: "add_to_cart", input: {} },
      },
    ]);
  });

  it("bounds text, thinking (with its signature) and a block's starting text alike", () => {
    const text = new BlockAssembler({ maxBlockChars: 5 });
    text.push({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    text.push({
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text: "12345" },
    });
    expect(() =>
      text.push({
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: "6" },
      }),
    ).toThrow(expect.objectContaining({ code: "limit_exceeded" }));
    expect(text.partial().message.content).toEqual([{ type: "text", text: "12345" }]);

    const thinking = new BlockAssembler({ maxBlockChars: 5 });
    thinking.push({
      type: "content_block_start",
      index: 0,
      content_block: { type: "thinking", thinking: "abc", signature: "" },
    });
    expect(() =>
      thinking.push({
        type: "content_block_delta",
        index: 0,
        delta: { type: "signature_delta", signature: "xyz" },
      }),
    ).toThrow(expect.objectContaining({ code: "limit_exceeded" }));

    const whole = new BlockAssembler({ maxBlockChars: 5 });
    expect(() =>
      whole.push({
        type: "content_block_start",
        index: 0,
        content_block: { type: "text", text: "123456" },
      }),
    ).toThrow(expect.objectContaining({ code: "limit_exceeded" }));
  });

  it("holds a block to the limit whatever the chunking: memory stays bounded", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 1, maxLength: 300 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 2_000 }),
        (chunks, maxBlockChars) => {
          const assembler = new BlockAssembler({ maxBlockChars });
          start(assembler);
          let total = 0;
          for (const chunk of chunks) {
            if (total + chunk.length > maxBlockChars) {
              expect(() => assembler.push(args(chunk))).toThrow(
                expect.objectContaining({ code: "limit_exceeded" }),
              );
              break;
            }
            assembler.push(args(chunk));
            total += chunk.length;
          }
          expect(assembler.partial().toolUses[0]?.raw.length).toBe(total);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("has a documented default of 4 Mi characters", () => {
    expect(DEFAULT_MAX_BLOCK_CHARS).toBe(4 * 1024 * 1024);
    const assembler = new BlockAssembler();
    start(assembler);
    const mebi = "x".repeat(1024 * 1024);
    for (let i = 0; i < 4; i++) assembler.push(args(mebi));
    expect(() => assembler.push(args("x"))).toThrow(
      expect.objectContaining({ code: "limit_exceeded" }),
    );
  });
});
