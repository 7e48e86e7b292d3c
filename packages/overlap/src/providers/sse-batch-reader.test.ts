import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OverlapError } from "../errors.js";
import type { StreamEvent } from "../stream/stream-event.js";
import {
  type FrameTranslator,
  SseBatchReader,
  type SseBatchReaderOptions,
} from "./sse-batch-reader.js";

const bytes = (text: string) => new TextEncoder().encode(text);

/** `event: stop` ends the stream; `data: bad` cannot be read; other data is `{"n": …}`. */
const translate: FrameTranslator = (frame, out) => {
  if (frame.event === "stop") return true;
  if (frame.data === "bad") throw new Error("not JSON");
  out.push({ type: "ping", ...(JSON.parse(frame.data) as object) } as unknown as StreamEvent);
  return undefined;
};

/** Every chunk read in order, then the end: the events and the failure's code. */
function readAll(chunks: readonly Uint8Array[], options?: SseBatchReaderOptions) {
  const reader = new SseBatchReader(translate, options);
  const events: unknown[] = [];
  for (const chunk of [...chunks, undefined]) {
    const read = reader.read(chunk);
    events.push(...read.events.map((e) => (e as unknown as { n?: number }).n ?? e.type));
    if (read.failure) return { events, failure: read.failure.code };
    if (reader.over) return { events, failure: undefined };
  }
  return { events, failure: undefined };
}

/** `whole` split at every set of cut points gives the same result. */
function sameForAnySplit(whole: Uint8Array, options?: SseBatchReaderOptions) {
  const expected = readAll([whole], options);
  fc.assert(
    fc.property(fc.uniqueArray(fc.integer({ min: 1, max: whole.length - 1 })), (cuts) => {
      const at = [0, ...[...cuts].sort((a, b) => a - b), whole.length];
      const chunks = at.slice(1).map((end, i) => whole.subarray(at[i], end));
      expect(readAll(chunks, options)).toEqual(expected);
    }),
  );
  return expected;
}

describe("SseBatchReader", () => {
  it("translates the frames of any split of the bytes alike, a character across chunks whole", () => {
    const body = bytes(
      'data: {"n":1,"s":"你好 🎉"}\r\n\r\n: ping\n\ndata: {"n":2}\n\ndata: {"n":3}',
    );
    // The unterminated last event is not an event.
    expect(sameForAnySplit(body)).toEqual({ events: [1, 2], failure: undefined });
  });

  it("strips exactly one byte order mark, as an EventSource does", () => {
    const one = readAll([bytes('\uFEFFdata: {"n":1}\n\ndata: {"n":2}\n\n')]);
    expect(one.events).toEqual([1, 2]);
    // A second mark is text: the first frame's field is not `data`, so that frame is empty.
    const two = readAll([bytes('\uFEFF\uFEFFdata: {"n":1}\n\ndata: {"n":2}\n\n')]);
    expect(two.events).toEqual([2]);
  });

  it("stops at the end marker: frames after it are not read", () => {
    const body = bytes('data: {"n":1}\n\nevent: stop\ndata: {}\n\ndata: {"n":2}\n\n');
    expect(sameForAnySplit(body)).toEqual({ events: [1], failure: undefined });
  });

  it("a frame that cannot be read fails the stream after the events before it", () => {
    const body = bytes('data: {"n":1}\n\ndata: bad\n\ndata: {"n":2}\n\n');
    expect(sameForAnySplit(body)).toEqual({ events: [1], failure: "stream_interrupted" });
  });

  it("an event past maxEventChars is limit_exceeded, after the events before it", () => {
    const body = bytes(`data: {"n":1}\n\ndata: {"n":2,"pad":"${"x".repeat(100)}"}\n\n`);
    expect(sameForAnySplit(body, { maxEventChars: 50 })).toEqual({
      events: [1],
      failure: "limit_exceeded",
    });
  });

  it("adds the finishing events at the body's end, or its failure, never after a failure", () => {
    const finish = () => [{ type: "message_stop" } as StreamEvent];
    expect(readAll([bytes('data: {"n":1}\n\n')], { finish }).events).toEqual([1, "message_stop"]);
    const cut = () => {
      throw new OverlapError("stream_interrupted", "ended early");
    };
    expect(readAll([bytes('data: {"n":1}\n\n')], { finish: cut })).toEqual({
      events: [1],
      failure: "stream_interrupted",
    });
    expect(readAll([bytes('data: {"n":1}\n\ndata: bad\n\n')], { finish })).toEqual({
      events: [1],
      failure: "stream_interrupted",
    });
  });
});
