import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../protocol/agent-event.js";
import { SseDecoder, type SseFrame } from "./sse-decoder.js";
import {
  encodeAgentEvent,
  encodeSseComment,
  encodeSseFrame,
  type SseFrameInit,
} from "./sse-encoder.js";

function decodeChunks(chunks: readonly string[]): { frames: SseFrame[]; comments: string[] } {
  const frames: SseFrame[] = [];
  const comments: string[] = [];
  const decoder = new SseDecoder(
    (f) => frames.push(f),
    (c) => comments.push(c),
  );
  for (const chunk of chunks) decoder.push(chunk);
  decoder.end();
  return { frames, comments };
}

/** Cuts `text` at the given offsets (taken modulo its length), in order. */
function cut(text: string, offsets: readonly number[]): string[] {
  const points = [...new Set(offsets.map((o) => o % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let at = 0;
  for (const p of points) {
    chunks.push(text.slice(at, p));
    at = p;
  }
  chunks.push(text.slice(at));
  return chunks;
}

/** What a reader gets back for a frame: SSE turns every line end into `\n`. */
function expected(frame: SseFrameInit): SseFrame {
  const out: SseFrame = { data: frame.data.replace(/\r\n?/g, "\n") };
  if (frame.event) out.event = frame.event;
  if (frame.id !== undefined) out.id = frame.id;
  if (frame.retry !== undefined) out.retry = frame.retry;
  return out;
}

const anyText = fc.string({ unit: "binary", maxLength: 40 });
const lineText = anyText.filter((s) => !/[\r\n]/.test(s));
const frameArb: fc.Arbitrary<SseFrameInit> = fc.record(
  {
    event: lineText,
    data: fc.oneof(anyText, fc.constantFrom("", "\n", "\r\n\r", "a\rb\nc\r\nd", " lead", ":x")),
    id: lineText.filter((s) => !s.includes("\0")),
    retry: fc.nat(),
  },
  { requiredKeys: ["data"] },
);

describe("encodeSseFrame", () => {
  it("writes fields and splits data into data lines", () => {
    expect(encodeSseFrame({ event: "e", id: "7", retry: 1000, data: "a\nb" })).toBe(
      "event: e\nid: 7\nretry: 1000\ndata: a\ndata: b\n\n",
    );
    expect(encodeSseFrame({ data: "" })).toBe("data: \n\n");
    expect(encodeSseFrame({ event: "", data: "x" })).toBe("data: x\n\n");
  });

  it.each([
    ["event", { event: "a\nevent: evil", data: "x" }],
    ["event", { event: "a\r", data: "x" }],
    ["id", { id: "1\ndata: injected", data: "x" }],
    ["id", { id: "1\r\n\r\n", data: "x" }],
  ])("rejects CR/LF in %s (frame injection)", (field, frame) => {
    expect(() => encodeSseFrame(frame)).toThrow(TypeError);
    expect(() => encodeSseFrame(frame)).toThrow(
      new RegExp(`SSE ${field} must not contain CR or LF`),
    );
  });

  it("rejects an id with NUL and a retry that is not a non-negative integer", () => {
    expect(() => encodeSseFrame({ id: "a\0", data: "x" })).toThrow(TypeError);
    expect(() => encodeSseFrame({ retry: -1, data: "x" })).toThrow(TypeError);
    expect(() => encodeSseFrame({ retry: 1.5, data: "x" })).toThrow(TypeError);
  });

  it("round-trips arbitrary frames through SseDecoder in any chunking", () => {
    fc.assert(
      fc.property(
        fc.array(frameArb, { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (frames, offsets) => {
          const text = frames.map(encodeSseFrame).join("");
          expect(decodeChunks(cut(text, offsets)).frames).toEqual(frames.map(expected));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("round-trips in one-character chunks", () => {
    fc.assert(
      fc.property(fc.array(frameArb, { maxLength: 4 }), (frames) => {
        const text = frames.map(encodeSseFrame).join("");
        expect(decodeChunks([...text]).frames).toEqual(frames.map(expected));
      }),
      { numRuns: 200 },
    );
  });
});

describe("encodeSseComment", () => {
  it("writes a comment the decoder reports and skips", () => {
    const text = encodeSseComment("ping") + encodeSseFrame({ data: "x" }) + encodeSseComment("");
    expect(text).toBe(": ping\ndata: x\n\n: \n");
    expect(decodeChunks([text])).toEqual({ frames: [{ data: "x" }], comments: ["ping", ""] });
  });

  it("round-trips arbitrary single-line text", () => {
    fc.assert(
      fc.property(lineText, (text) => {
        expect(decodeChunks([encodeSseComment(text)]).comments).toEqual([text]);
      }),
    );
  });

  it("rejects CR/LF", () => {
    expect(() => encodeSseComment("a\ndata: evil\n\n")).toThrow(TypeError);
    expect(() => encodeSseComment("a\r")).toThrow(TypeError);
  });
});

describe("encodeAgentEvent", () => {
  it("writes the type as event name, the whole event as JSON data, and the id", () => {
    const event: AgentEvent = {
      type: "text-delta",
      round: 1,
      index: 0,
      text: "line one\nline two\r\n\u2028 购物车 🛒",
    };
    const text = encodeAgentEvent(event, "r1-42");
    expect(text.split("\n").filter((l) => l.startsWith("data:"))).toHaveLength(1);
    const { frames } = decodeChunks([...text]);
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ event: "text-delta", id: "r1-42" });
    expect(JSON.parse(frames[0]!.data)).toEqual(event);
  });

  it("rejects an id that would inject a frame", () => {
    const event: AgentEvent = { type: "done", roundCount: 1, stopReason: "end_turn" };
    expect(() => encodeAgentEvent(event, "1\n\nevent: error\ndata: {}")).toThrow(TypeError);
    expect(() => encodeAgentEvent(event, "1\r")).toThrow(TypeError);
    expect(() => encodeAgentEvent(event, "1\u0000")).toThrow(TypeError);
    expect(() =>
      encodeAgentEvent({ ...event, type: "done\nevent: x" } as unknown as AgentEvent, "1"),
    ).toThrow(TypeError);
  });

  it("writes exactly the frame encodeSseFrame writes, for any text, type and id", () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.string(), (text, type, id) => {
        const event = { type, round: 1, index: 0, text } as unknown as AgentEvent;
        let expected: string | Error;
        try {
          expected = encodeSseFrame({ event: type, data: JSON.stringify(event), id });
        } catch (error) {
          expected = error as Error;
        }
        if (expected instanceof Error) expect(() => encodeAgentEvent(event, id)).toThrow(TypeError);
        else expect(encodeAgentEvent(event, id)).toBe(expected);
      }),
    );
  });
});
