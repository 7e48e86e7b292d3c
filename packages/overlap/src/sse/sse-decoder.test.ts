import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SseDecoder, type SseFrame } from "./sse-decoder.js";

/** Decodes `chunks` in order and returns the frames and comments seen. */
function decode(chunks: readonly string[]): {
  frames: SseFrame[];
  comments: string[];
  decoder: SseDecoder;
} {
  const frames: SseFrame[] = [];
  const comments: string[] = [];
  const decoder = new SseDecoder(
    (f) => frames.push(f),
    (c) => comments.push(c),
  );
  for (const chunk of chunks) decoder.push(chunk);
  decoder.end();
  return { frames, comments, decoder };
}

/** Every way to cut `text` into two pieces, plus one piece per character. */
function allSplits(text: string): string[][] {
  const splits: string[][] = [[text], [...text]];
  for (let i = 1; i < text.length; i++) splits.push([text.slice(0, i), text.slice(i)]);
  return splits;
}

describe("SseDecoder", () => {
  it("decodes named frames with ids", () => {
    const { frames } = decode(["event: a\nid: 1\ndata: x\n\nevent: b\ndata: y\n\n"]);
    expect(frames).toEqual([
      { event: "a", id: "1", data: "x" },
      { event: "b", data: "y" },
    ]);
  });

  it.each([
    ["LF", "\n"],
    ["CRLF", "\r\n"],
    ["CR", "\r"],
  ])("accepts %s line ends in every chunking", (_name, eol) => {
    const text = `event: e${eol}data: one${eol}data: two${eol}${eol}data: three${eol}${eol}`;
    for (const chunks of allSplits(text)) {
      expect(decode(chunks).frames).toEqual([{ event: "e", data: "one\ntwo" }, { data: "three" }]);
    }
  });

  it("treats a CRLF split across chunks as one line end", () => {
    const { frames } = decode(["data: a\r", "\n", "\r", "\ndata: b\r\n\r\n"]);
    expect(frames).toEqual([{ data: "a" }, { data: "b" }]);
  });

  it("dispatches at a blank line ended by CR without waiting for the next chunk", () => {
    const frames: SseFrame[] = [];
    const decoder = new SseDecoder((f) => frames.push(f));
    decoder.push("data: a\r\r");
    expect(frames).toEqual([{ data: "a" }]);
    // The LF that may follow belongs to the CR already seen: no extra blank line.
    decoder.push("\ndata: b\n\n");
    expect(frames).toEqual([{ data: "a" }, { data: "b" }]);
  });

  it("mixes line ends within one stream", () => {
    const { frames } = decode(["data: a\rdata: b\r\ndata: c\n\r\n"]);
    expect(frames).toEqual([{ data: "a\nb\nc" }]);
  });

  it("strips exactly one leading BOM, even in its own chunk", () => {
    expect(decode(["\uFEFFdata: x\n\n"]).frames).toEqual([{ data: "x" }]);
    expect(decode(["", "\uFEFF", "data: x\n\n"]).frames).toEqual([{ data: "x" }]);
    // A second BOM is part of the first field name, which is then unknown.
    expect(decode(["\uFEFF\uFEFFdata: x\n\ndata: y\n\n"]).frames).toEqual([{ data: "y" }]);
    // A BOM later in the stream is ordinary text.
    expect(decode(["data: \uFEFFx\n\n"]).frames).toEqual([{ data: "\uFEFFx" }]);
  });

  it("reports comments and never dispatches them", () => {
    const { frames, comments } = decode([": heartbeat\n\n:\n:no space\ndata: x\n: mid\n\n"]);
    expect(frames).toEqual([{ data: "x" }]);
    expect(comments).toEqual(["heartbeat", "", "no space", "mid"]);
  });

  it("removes only one leading space from a value", () => {
    const { frames } = decode(["data:x\ndata:  y\ndata: \ndata:\n\n"]);
    expect(frames).toEqual([{ data: "x\n y\n\n" }]);
  });

  it("reads a field name without a colon as a field with an empty value", () => {
    const { frames } = decode(["data\ndata\n\nevent\ndata: z\n\n"]);
    expect(frames).toEqual([{ data: "\n" }, { data: "z" }]);
  });

  it("does not dispatch a frame without data lines, and forgets its event name", () => {
    const { frames } = decode(["event: lost\n\ndata: x\n\nevent: e\nid: 7\n\n"]);
    expect(frames).toEqual([{ data: "x" }]);
  });

  it("dispatches an empty data line as an empty string", () => {
    expect(decode(["data:\n\n"]).frames).toEqual([{ data: "" }]);
  });

  it("ignores unknown fields and splits on the first colon only", () => {
    const { frames } = decode(["foo: bar\nevent: a:b\ndata: c: d\n\n"]);
    expect(frames).toEqual([{ event: "a:b", data: "c: d" }]);
  });

  it("ignores an id containing NUL and keeps the last event id across frames", () => {
    const { frames, decoder } = decode([
      "id: 1\ndata: a\n\ndata: b\n\nid: 2\0x\ndata: c\n\nid\ndata: d\n\n",
    ]);
    expect(frames).toEqual([
      { id: "1", data: "a" },
      { data: "b" },
      { data: "c" },
      { id: "", data: "d" },
    ]);
    expect(decoder.lastEventId).toBe("");
    const kept = decode(["id: 5\ndata: a\n\nid: 6\n\n"]).decoder;
    // An id in a frame that is never dispatched still counts (spec).
    expect(kept.lastEventId).toBe("6");
  });

  it("accepts retry only when it is all ASCII digits", () => {
    const { frames, decoder } = decode([
      "retry: 3000\n\nretry: 12a\ndata: a\n\nretry: 250\ndata: b\n\nretry: -1\nretry:\n\n",
    ]);
    expect(frames).toEqual([{ data: "a" }, { retry: 250, data: "b" }]);
    expect(decoder.retry).toBe(250);
  });

  it("discards an unterminated final event at end()", () => {
    expect(decode(["data: a\n\ndata: b\n"]).frames).toEqual([{ data: "a" }]);
    expect(decode(["data: a\n\ndata: b"]).frames).toEqual([{ data: "a" }]);
    expect(decode(["data: a\n\ndata: b\r"]).frames).toEqual([{ data: "a" }]);
  });

  it("starts afresh after end() (a reconnection)", () => {
    const frames: SseFrame[] = [];
    const decoder = new SseDecoder((f) => frames.push(f));
    decoder.push("id: 9\ndata: half");
    decoder.end();
    decoder.push("\uFEFFdata: whole\n\n");
    expect(frames).toEqual([{ data: "whole" }]);
    expect(decoder.lastEventId).toBe("9");
  });

  it("handles long lines delivered in many small chunks", () => {
    const long = "x".repeat(200_000);
    const chunks = ["data: "];
    for (let i = 0; i < long.length; i += 7) chunks.push(long.slice(i, i + 7));
    chunks.push("\n\n");
    expect(decode(chunks).frames).toEqual([{ data: long }]);
  });

  it("yields the same frames in every chunking of an arbitrary stream", () => {
    const piece = fc.constantFrom(
      "data: a",
      "data:b",
      "data",
      "event: e",
      "id: 1",
      "id: \0",
      "retry: 10",
      ": c",
      "\uFEFF",
      "",
      "x",
    );
    const eol = fc.constantFrom("\n", "\r", "\r\n");
    const stream = fc
      .array(fc.tuple(piece, eol), { maxLength: 30 })
      .map((lines) => lines.map(([l, e]) => l + e).join(""));
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 20 }), (text, cuts) => {
        const whole = decode([text]);
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const chunks: string[] = [];
        let at = 0;
        for (const p of points) {
          chunks.push(text.slice(at, p));
          at = p;
        }
        chunks.push(text.slice(at));
        const split = decode(chunks);
        expect(split.frames).toEqual(whole.frames);
        expect(split.comments).toEqual(whole.comments);
        expect(split.decoder.lastEventId).toBe(whole.decoder.lastEventId);
      }),
      { numRuns: 300 },
    );
  });
});
