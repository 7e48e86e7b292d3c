import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isOverlapError } from "../errors.js";
import { streamFixtures } from "../testing/fixtures.js";
import { mulberry32, sseToStreamEvents } from "../testing/replay.js";
import { type AssemblerReport, BlockAssembler } from "./block-assembler.js";
import { deltasJoinedIn, joinDeltas } from "./join-deltas.js";
import type { StreamEvent } from "./stream-event.js";

const text = (index: number, t: string): StreamEvent => ({
  type: "content_block_delta",
  index,
  delta: { type: "text_delta", text: t },
});
const json = (index: number, t: string): StreamEvent => ({
  type: "content_block_delta",
  index,
  delta: { type: "input_json_delta", partial_json: t },
});
const stop = (index: number): StreamEvent => ({ type: "content_block_stop", index });

/** What an assembler makes of `events`: its final message and every report, or its failure. */
function outcome(events: readonly StreamEvent[]) {
  const assembler = new BlockAssembler();
  const reports: AssemblerReport[] = [];
  try {
    for (const event of events) reports.push(...assembler.push(event));
  } catch (err) {
    return { failure: isOverlapError(err) ? err.code : String(err), reports };
  }
  return { reports };
}

/** The reports with the deltas of a block joined, as a reader of the whole stream sees them. */
function joinedReports(reports: readonly AssemblerReport[]): unknown[] {
  const out: unknown[] = [];
  for (const report of reports) {
    const last = out.at(-1) as (AssemblerReport & { text?: string; thinking?: string }) | undefined;
    if (report.type === "text-delta" && last?.type === report.type && last.index === report.index) {
      last.text += report.text;
    } else if (
      report.type === "thinking-delta" &&
      last?.type === report.type &&
      last.index === report.index
    ) {
      last.thinking += report.thinking;
    } else if (report.type === "tool-input-delta") {
      // The preview a delta reports is the state after it: only the last of a run is compared.
      if (last?.type === "tool-input-delta" && last.index === report.index) out.pop();
      out.push({ type: report.type, index: report.index, callId: report.callId });
    } else {
      const copy = report.type === "text-delta" || report.type === "thinking-delta";
      out.push(copy ? { ...report } : report);
    }
  }
  return out;
}

/** `events` cut into batches at random places, each batch joined. */
function batchedAndJoined(events: readonly StreamEvent[], seed: number): StreamEvent[] {
  const random = mulberry32(seed);
  const out: StreamEvent[] = [];
  let i = 0;
  while (i < events.length) {
    const size = 1 + Math.floor(random() * 12);
    out.push(...joinDeltas(events.slice(i, i + size)));
    i += size;
  }
  return out;
}

describe("joinDeltas", () => {
  it("joins a run of one block's deltas of one kind into one, in order", () => {
    const events = [json(1, '{"a":'), json(1, '"x'), json(1, 'y"}'), stop(1)];
    expect(joinDeltas(events)).toEqual([json(1, '{"a":"xy"}'), stop(1)]);
  });

  it("never joins across another block, another kind or another event", () => {
    const thinking: StreamEvent = {
      type: "content_block_delta",
      index: 0,
      delta: { type: "thinking_delta", thinking: "hm" },
    };
    const events = [text(0, "a"), text(1, "b"), text(0, "c"), thinking, text(0, "d"), stop(0)];
    expect(joinDeltas(events)).toEqual(events);
    expect(joinDeltas([text(0, "a"), stop(0), text(0, "b")])).toEqual([
      text(0, "a"),
      stop(0),
      text(0, "b"),
    ]);
  });

  it("returns the batch itself when nothing joins, and leaves its input untouched", () => {
    const single = [text(0, "a"), stop(0)];
    expect(joinDeltas(single)).toBe(single);
    const events = [text(0, "a"), text(0, "b")];
    const copy = structuredClone(events);
    joinDeltas(events);
    expect(events).toEqual(copy);
  });

  it("leaves a delta a check would refuse where it is, unjoined", () => {
    const broken = {
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text: 7 },
    } as unknown as StreamEvent;
    const notAnIndex = { ...text(0, "b"), index: "0" } as unknown as StreamEvent;
    const events = [text(0, "a"), broken, text(0, "b"), notAnIndex, text(0, "c")];
    expect(joinDeltas(events)).toEqual(events);
  });

  it("leaves what is not an event object where it is", () => {
    const events = [text(0, "a"), null, text(0, "b"), text(0, "c")] as unknown as StreamEvent[];
    const out = joinDeltas(events);
    expect(out).toEqual([text(0, "a"), null, text(0, "bc")]);
  });

  it("tells the deltas a joined delta was made of, and nothing for any other event", () => {
    const events = [text(0, "a"), text(0, "b"), stop(0)];
    const [joined, stopped] = joinDeltas(events);
    expect(deltasJoinedIn(joined!)).toEqual([text(0, "a"), text(0, "b")]);
    expect(deltasJoinedIn(stopped!)).toBeUndefined();
    expect(deltasJoinedIn(events[0]!)).toBeUndefined();
  });

  it("keeps signature and citation deltas as they came", () => {
    const signature: StreamEvent = {
      type: "content_block_delta",
      index: 0,
      delta: { type: "signature_delta", signature: "s1" },
    };
    expect(joinDeltas([signature, signature])).toEqual([signature, signature]);
  });

  for (const { name, sse } of streamFixtures) {
    it(`assembles ${name} the same, batched at random and joined (50 seeds)`, () => {
      const events = sseToStreamEvents(sse);
      const whole = outcome(events);
      for (let seed = 1; seed <= 50; seed++) {
        const joined = outcome(batchedAndJoined(events, seed));
        expect(joined.failure).toEqual(whole.failure);
        expect(joinedReports(joined.reports)).toEqual(joinedReports(whole.reports));
      }
    });
  }

  it("assembles any run of deltas the same joined (property)", () => {
    const delta = fc.oneof(
      fc.record({ index: fc.integer({ min: 0, max: 2 }), t: fc.string(), kind: fc.constant(0) }),
      fc.record({ index: fc.integer({ min: 0, max: 2 }), t: fc.string(), kind: fc.constant(1) }),
    );
    fc.assert(
      fc.property(fc.array(delta, { maxLength: 40 }), fc.integer(), (deltas, seed) => {
        const start: StreamEvent[] = [
          { type: "message_start", message: { id: "m", model: "x", content: [] } },
          { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
          { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
          {
            type: "content_block_start",
            index: 2,
            content_block: { type: "tool_use", id: "t", name: "n", input: {} },
          },
        ];
        // Text deltas go to the text blocks 0 and 1, argument pieces to the tool block 2; a
        // delta of the wrong kind for its block fails the same way joined or not.
        const body = deltas.map((d) => (d.kind === 0 ? text(d.index, d.t) : json(d.index, d.t)));
        const end: StreamEvent[] = [stop(0), stop(1), stop(2), { type: "message_stop" }];
        const events = [...start, ...body, ...end];
        const whole = outcome(events);
        const joined = outcome(batchedAndJoined(events, seed));
        expect(joined.failure).toEqual(whole.failure);
        expect(joinedReports(joined.reports)).toEqual(joinedReports(whole.reports));
      }),
      { numRuns: 300 },
    );
  });
});
