/**
 * The SSE decoders against hostile input: random text and random bytes in random chunkings, and
 * peers that never end a line or an event. Nothing escapes but OverlapError `limit_exceeded`,
 * nothing hangs, and what a decoder holds stays under `maxEventChars`.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isOverlapError, OverlapError } from "../errors.js";
import { decodeSseStream } from "./decode-sse-stream.js";
import { DEFAULT_MAX_SSE_EVENT_CHARS, SseDecoder, type SseFrame } from "./sse-decoder.js";
import { SseEventBound } from "./sse-event-bound.js";

/** Cuts `text` at the given offsets (modulo its length + 1). */
function cut<T extends { length: number; slice(a: number, b?: number): T }>(
  whole: T,
  offsets: readonly number[],
): T[] {
  const points = [...new Set(offsets.map((o) => o % (whole.length + 1)))].sort((a, b) => a - b);
  const pieces: T[] = [];
  let at = 0;
  for (const p of points) {
    pieces.push(whole.slice(at, p));
    at = p;
  }
  pieces.push(whole.slice(at));
  return pieces;
}

interface Decoded {
  frames: SseFrame[];
  failed: boolean;
}

/** Decodes `chunks`; a throw must be the limit's OverlapError. */
function decode(chunks: readonly string[], maxEventChars?: number): Decoded {
  const frames: SseFrame[] = [];
  const decoder = new SseDecoder(
    (f) => frames.push(f),
    undefined,
    maxEventChars === undefined ? {} : { maxEventChars },
  );
  try {
    for (const chunk of chunks) decoder.push(chunk);
  } catch (err) {
    if (!isOverlapError(err, "limit_exceeded")) throw err;
    return { frames, failed: true };
  }
  decoder.end();
  return { frames, failed: false };
}

/**
 * The limit written out plainly: true when some line (the last one even without its line end), plus
 * the event's earlier field lines (each with its line end; comments aside), passes `max`.
 */
function passesLimit(text: string, max: number): boolean {
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  // The piece after the last line end is a line only when something of it arrived.
  if (lines.at(-1) === "") lines.pop();
  let event = 0;
  for (const line of lines) {
    if (line.length + event > max) return true;
    if (line === "") event = 0;
    else if (!line.startsWith(":")) event += line.length + 1;
  }
  return false;
}

/** SSE-like text: field lines, comments, blank lines and junk, with every kind of line end. */
const sseText = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom("data: ", "data:", "event: e", "id: 1", "retry: 5", ": hb", "", "\uFEFF"),
        fc.string({ maxLength: 12 }),
        fc.string({ unit: "binary", maxLength: 12 }),
        fc.constantFrom("x".repeat(40), `data: ${"y".repeat(30)}`),
      ),
      fc.constantFrom("\n", "\r", "\r\n", ""),
    ),
    { maxLength: 25 },
  )
  .map((parts) => parts.map(([line, eol]) => line + eol).join(""));

async function* iterate<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

/** A byte stream that sends `first`, then `filler` forever; counts the chunks pulled. */
function endless(
  first: string,
  filler: string,
): { stream: ReadableStream<Uint8Array>; pulled: () => number; cancelled: () => boolean } {
  const encoder = new TextEncoder();
  const head = encoder.encode(first);
  const chunk = encoder.encode(filler);
  let pulls = 0;
  let wasCancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(pulls++ === 0 ? head : chunk);
    },
    cancel() {
      wasCancelled = true;
    },
  });
  return { stream, pulled: () => pulls, cancelled: () => wasCancelled };
}

describe("SseDecoder limit (maxEventChars)", () => {
  it("is 8 Mi characters by default", () => {
    expect(DEFAULT_MAX_SSE_EVENT_CHARS).toBe(8 * 1024 * 1024);
  });

  it("refuses a line past the limit even without a line end, with a clear error", () => {
    const frames: SseFrame[] = [];
    const decoder = new SseDecoder((f) => frames.push(f), undefined, { maxEventChars: 16 });
    decoder.push("data: ok\n\n");
    decoder.push("data: 0123456789"); // 16: at the limit
    let thrown: unknown;
    try {
      decoder.push("a");
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(OverlapError);
    expect(thrown).toMatchObject({ code: "limit_exceeded", details: { limit: 16 } });
    expect((thrown as Error).message).toBe(
      "An SSE event passed the limit of 16 characters (maxEventChars).",
    );
    expect(frames).toEqual([{ data: "ok" }]);
    // The rest of the stream cannot be framed safely: refused until a new stream starts.
    expect(() => decoder.push("\n\ndata: later\n\n")).toThrow(OverlapError);
    decoder.end();
    decoder.push("data: again\n\n");
    expect(frames).toEqual([{ data: "ok" }, { data: "again" }]);
  });

  it("counts an event's lines together: many short data lines pass it too; comments do not count", () => {
    expect(decode(["data: 1234\n".repeat(3)], 32).failed).toBe(false); // 33 only at the 4th line
    expect(decode(["data: 1234\n".repeat(4)], 32).failed).toBe(true);
    expect(decode([`${": heartbeat\n".repeat(100)}data: x\n\n`], 32)).toEqual({
      frames: [{ data: "x" }],
      failed: false,
    });
    // A blank line ends the event: many small events never add up.
    expect(decode(["data: 1234\n\n".repeat(100)], 32).frames).toHaveLength(100);
  });

  it("fails exactly when the limit written out says so, in every chunking, keeping the frames before", () => {
    fc.assert(
      fc.property(
        sseText,
        fc.array(fc.nat(), { maxLength: 15 }),
        fc.integer({ min: 1, max: 60 }),
        (text, offsets, max) => {
          const unlimited = decode([text]);
          const whole = decode([text], max);
          const split = decode(cut(text, offsets), max);
          expect(whole.failed).toBe(passesLimit(text, max));
          expect(split).toEqual(whole);
          // The frames before the failure are the unlimited decoding's first ones.
          expect(unlimited.frames.slice(0, whole.frames.length)).toEqual(whole.frames);
          if (!whole.failed) expect(whole.frames).toEqual(unlimited.frames);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it("SseEventBound admits exactly what SseDecoder accepts", () => {
    fc.assert(
      fc.property(
        sseText,
        fc.array(fc.nat(), { maxLength: 15 }),
        fc.integer({ min: 1, max: 60 }),
        (text, offsets, max) => {
          const bound = new SseEventBound(max);
          let admitted = "";
          for (const chunk of cut(text, offsets)) {
            const n = bound.count(chunk);
            admitted += chunk.slice(0, n);
            if (bound.error) break;
          }
          expect(bound.error !== undefined).toBe(decode([text], max).failed);
          if (bound.error) {
            expect(bound.error).toMatchObject({ code: "limit_exceeded" });
            // What was admitted completes the same frames the decoder dispatched before failing.
            expect(decode([admitted]).frames).toEqual(decode([text], max).frames);
          } else {
            expect(admitted).toBe(text);
          }
        },
      ),
      { numRuns: 1_000 },
    );
  });
});

describe("decodeSseStream against hostile bytes", () => {
  it("random bytes in random chunkings: frames or limit_exceeded, the same in every chunking", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 300 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.integer({ min: 1, max: 80 }),
        async (bytes, offsets, max) => {
          const read = async (chunks: Uint8Array[]) => {
            const frames: SseFrame[] = [];
            try {
              for await (const f of decodeSseStream(iterate(chunks), { maxEventChars: max })) {
                frames.push(f);
              }
            } catch (err) {
              if (!isOverlapError(err, "limit_exceeded")) throw err;
              return { frames, failed: true };
            }
            return { frames, failed: false };
          };
          const whole = await read([bytes]);
          expect(await read(cut(bytes, offsets))).toEqual(whole);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("a peer that never ends a line: limit_exceeded after a bounded read, the body cancelled", async () => {
    const peer = endless("data: ok\n\ndata: ", "z".repeat(1024 * 1024));
    const frames: SseFrame[] = [];
    let thrown: unknown;
    try {
      for await (const f of decodeSseStream(peer.stream)) frames.push(f);
    } catch (err) {
      thrown = err;
    }
    expect(isOverlapError(thrown, "limit_exceeded")).toBe(true);
    expect(frames).toEqual([{ data: "ok" }]);
    // 8 Mi characters of 1 MiB chunks: it stopped reading right after the limit.
    expect(peer.pulled()).toBeLessThanOrEqual(12);
    expect(peer.cancelled()).toBe(true);
  });

  it("a peer that never ends an event (endless short data lines): the same", async () => {
    const peer = endless("", "data: x\n".repeat(64 * 1024));
    let thrown: unknown;
    try {
      for await (const _ of decodeSseStream(peer.stream, { maxEventChars: 1024 * 1024 })) {
        // never dispatched
      }
    } catch (err) {
      thrown = err;
    }
    expect(isOverlapError(thrown, "limit_exceeded")).toBe(true);
    // Two chunks reach the limit; the stream may have pulled one ahead.
    expect(peer.pulled()).toBeLessThanOrEqual(6);
    expect(peer.cancelled()).toBe(true);
  });
});
