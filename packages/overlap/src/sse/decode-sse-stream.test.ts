import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeSseStream } from "./decode-sse-stream.js";
import type { SseFrame } from "./sse-decoder.js";
import { encodeSseFrame } from "./sse-encoder.js";

async function* iterate<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

async function collect(source: Parameters<typeof decodeSseStream>[0]): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  for await (const frame of decodeSseStream(source)) frames.push(frame);
  return frames;
}

/** Cuts bytes at the given offsets (modulo the length), so cuts may fall inside a character. */
function cutBytes(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (const p of points) {
    chunks.push(bytes.subarray(at, p));
    at = p;
  }
  chunks.push(bytes.subarray(at));
  return chunks;
}

const utf8 = new TextEncoder();

describe("decodeSseStream", () => {
  it("decodes characters split across byte chunks (2, 3 and 4 byte UTF-8)", async () => {
    const text = encodeSseFrame({ event: "t", data: "é 购物 🛒🎁" });
    const bytes = utf8.encode(text);
    const oneByte = [...bytes].map((b) => Uint8Array.of(b));
    expect(await collect(iterate(oneByte))).toEqual([{ event: "t", data: "é 购物 🛒🎁" }]);
  });

  it("round-trips arbitrary frames in random byte chunkings", async () => {
    const data = fc.string({ unit: "binary", maxLength: 30 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(data, { minLength: 1, maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        async (datas, offsets) => {
          const text = datas.map((d) => encodeSseFrame({ data: d })).join("");
          const frames = await collect(iterate(cutBytes(utf8.encode(text), offsets)));
          expect(frames).toEqual(datas.map((d) => ({ data: d.replace(/\r\n?/g, "\n") })));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reads a ReadableStream of bytes", async () => {
    const bytes = utf8.encode("\uFEFFdata: 一\r\n\r\ndata: 二\r\n\r\n");
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of cutBytes(bytes, [1, 2, 9, 10])) controller.enqueue(chunk);
        controller.close();
      },
    });
    expect(await collect(stream)).toEqual([{ data: "一" }, { data: "二" }]);
  });

  it("accepts string chunks", async () => {
    expect(await collect(iterate(["data: a\n", "\ndata: b\n\n"]))).toEqual([
      { data: "a" },
      { data: "b" },
    ]);
  });

  it("yields each frame as soon as its chunk arrives", async () => {
    let pulled = 0;
    async function* source(): AsyncGenerator<string> {
      pulled++;
      yield "data: 1\n\n";
      pulled++;
      yield "data: 2\n\n";
    }
    const it = decodeSseStream(source());
    expect((await it.next()).value).toEqual({ data: "1" });
    expect(pulled).toBe(1);
    await it.return(undefined);
  });

  it("discards an unterminated last event and turns a cut character into U+FFFD", async () => {
    const bytes = utf8.encode("data: ok\n\ndata: 🛒");
    expect(await collect(iterate([bytes.subarray(0, bytes.length - 1)]))).toEqual([{ data: "ok" }]);
    const cutChar = utf8.encode("data: x🛒\n\n");
    // Drop the 4th byte of the emoji: the decoder must replace, not throw.
    const broken = Uint8Array.from([...cutChar.subarray(0, 10), ...cutChar.subarray(11)]);
    expect(await collect(iterate([broken]))).toEqual([{ data: "x\uFFFD" }]);
  });

  it("cancels a ReadableStream when the consumer stops early", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(utf8.encode("data: tick\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const frame of decodeSseStream(stream)) {
      expect(frame).toEqual({ data: "tick" });
      break;
    }
    expect(cancelled).toBe(true);
  });
});
