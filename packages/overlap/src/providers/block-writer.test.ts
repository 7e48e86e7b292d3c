import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../stream/stream-event.js";
import { BlockWriter, type HeldCall } from "./block-writer.js";

type Op =
  | { op: "open" }
  | { op: "delta"; pick: number }
  | { op: "close"; pick: number }
  | { op: "call"; pick: number; text: string }
  | { op: "name"; pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ op: "open" as const }),
  fc.record({ op: fc.constant("delta" as const), pick: fc.nat(8) }),
  fc.record({ op: fc.constant("close" as const), pick: fc.nat(8) }),
  fc.record({ op: fc.constant("call" as const), pick: fc.nat(3), text: fc.string() }),
  fc.record({ op: fc.constant("name" as const), pick: fc.nat(3) }),
);

/** Runs arbitrary operations, closing everything at the end, as a translator's end() does. */
function run(ops: readonly Op[]): StreamEvent[] {
  const writer = new BlockWriter();
  const out: StreamEvent[] = [];
  const calls: HeldCall[] = [0, 1, 2, 3].map(() => ({ block: undefined, pending: "" }));
  for (const step of ops) {
    const upTo = Math.max(writer.allocated, 1);
    if (step.op === "open") writer.open(out, { type: "text", text: "" });
    else if (step.op === "delta") {
      writer.delta(out, step.pick % upTo, { type: "text_delta", text: "x" });
    } else if (step.op === "close") writer.close(out, step.pick % upTo);
    else {
      const call = calls[step.pick] as HeldCall;
      if (step.op === "call") writer.callArgs(out, call, step.text);
      else if (call.block === undefined) {
        writer.openCall(out, call, { type: "tool_use", id: `c${step.pick}`, name: "t", input: {} });
      }
    }
  }
  writer.closeAll(out);
  return out;
}

describe("BlockWriter", () => {
  it("allocates indexes dense and increasing, in start order", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), (ops) => {
        const starts = run(ops).flatMap((e) => (e.type === "content_block_start" ? [e.index] : []));
        expect(starts).toEqual(starts.map((_, i) => i));
      }),
    );
  });

  it("stops every started block exactly once, and deltas only between its start and stop", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), (ops) => {
        const state = new Map<number, "open" | "closed">();
        for (const e of run(ops)) {
          if (e.type === "content_block_start") {
            expect(state.has(e.index)).toBe(false);
            state.set(e.index, "open");
          } else if (e.type === "content_block_delta") {
            expect(state.get(e.index)).toBe("open");
          } else if (e.type === "content_block_stop") {
            expect(state.get(e.index)).toBe("open");
            state.set(e.index, "closed");
          }
        }
        expect([...state.values()].every((s) => s === "closed")).toBe(true);
      }),
    );
  });

  it("closes what is still open at the end in index order", () => {
    const writer = new BlockWriter();
    const out: StreamEvent[] = [];
    for (let i = 0; i < 4; i++) writer.open(out, { type: "text", text: "" });
    writer.close(out, 1);
    writer.closeAll(out);
    const stops = out.flatMap((e) => (e.type === "content_block_stop" ? [e.index] : []));
    expect(stops).toEqual([1, 0, 2, 3]);
    expect(writer.close(out, 2)).toBe(false);
  });

  it("holds a call's arguments until its block starts, then sends them first, whole", () => {
    const writer = new BlockWriter();
    const out: StreamEvent[] = [];
    const call: HeldCall = { block: undefined, pending: "" };
    writer.callArgs(out, call, '{"a":');
    writer.callArgs(out, call, "");
    writer.callArgs(out, call, "1");
    expect(out).toEqual([]);
    writer.openCall(out, call, { type: "tool_use", id: "c", name: "t", input: {} });
    writer.callArgs(out, call, "}");
    expect(out).toEqual([
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "c", name: "t", input: {} },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: '{"a":1' },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: "}" },
      },
    ]);
  });

  it("starts a reserved index later, and the next fresh index stays after it", () => {
    const writer = new BlockWriter();
    const out: StreamEvent[] = [];
    const reserved = writer.reserve();
    writer.open(out, { type: "text", text: "" }, reserved);
    expect(writer.open(out, { type: "text", text: "" })).toBe(reserved + 1);
  });
});
