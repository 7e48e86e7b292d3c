import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SseByteReader } from "./sse-byte-reader.js";
import type { SseFrame } from "./sse-decoder.js";

const bytes = (text: string) => new TextEncoder().encode(text);

/** Every frame of `chunks` read in order, then the end. */
function readAll(chunks: ReadonlyArray<Uint8Array | string>, maxEventChars?: number) {
  const reader = new SseByteReader(maxEventChars === undefined ? {} : { maxEventChars });
  const frames: SseFrame[] = [];
  for (const chunk of chunks) {
    const read = reader.read(chunk);
    frames.push(...read.frames);
    if (read.limit) return { frames, limit: read.limit.code };
  }
  frames.push(...reader.read(undefined).frames);
  return { frames, limit: undefined };
}

const BODY =
  "\uFEFFid: 1\nevent: a\ndata: 你好 🎉\n\nid: 2\ndata: second\r\n\r\n: ping\n\ndata: cut";

describe("SseByteReader", () => {
  it("gives the same frames for any split of the bytes, a character across chunks decoded whole", () => {
    const whole = readAll([bytes(BODY)]);
    expect(whole.frames.map((f) => [f.id, f.event, f.data])).toEqual([
      ["1", "a", "你好 🎉"],
      ["2", undefined, "second"],
    ]);
    const all = bytes(BODY);
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: all.length - 1 })), (cuts) => {
        const at = [0, ...[...cuts].sort((a, b) => a - b), all.length];
        const chunks = at.slice(1).map((end, i) => all.subarray(at[i], end));
        expect(readAll(chunks)).toEqual(whole);
      }),
    );
  });

  it("strips exactly one leading byte order mark", () => {
    const { frames } = readAll([bytes("\uFEFF\uFEFFdata: x\n\ndata: y\n\n")]);
    // The second mark starts the first line's field name, so that line is no `data` field.
    expect(frames.map((f) => f.data)).toEqual(["y"]);
  });

  it("past the limit gives the frames completed before the oversized event, then the limit", () => {
    const reader = new SseByteReader({ maxEventChars: 64 });
    const read = reader.read(bytes(`data: small\n\ndata: ${"x".repeat(200)}\n\n`));
    expect(read.frames.map((f) => f.data)).toEqual(["small"]);
    expect(read.limit?.code).toBe("limit_exceeded");
    expect(reader.read(bytes("data: later\n\n")).limit?.code).toBe("limit_exceeded");
  });

  it("discards an unterminated last event at the end", () => {
    expect(readAll([bytes("data: done\n\ndata: half")]).frames.map((f) => f.data)).toEqual([
      "done",
    ]);
  });
});
