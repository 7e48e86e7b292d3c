import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { coalesceChunks } from "./sse-response.js";

const bytes = (text: string) => new TextEncoder().encode(text);

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string[]> {
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of stream) chunks.push(decoder.decode(chunk));
  return chunks;
}

describe("coalesceChunks", () => {
  it("joins the chunks of one turn of the event loop, keeps later ones apart, loses nothing", async () => {
    const source = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(bytes("a"));
        controller.enqueue(bytes("b"));
        controller.enqueue(bytes("c"));
        await nextTurn();
        await nextTurn();
        controller.enqueue(bytes("d"));
        await nextTurn();
        await nextTurn();
        controller.enqueue(bytes("e"));
        controller.enqueue(bytes("f"));
        controller.close();
      },
    });
    expect(await readAll(coalesceChunks(source))).toEqual(["abc", "d", "ef"]);
  });

  it("passes an error on, and a cancel back to the source", async () => {
    const failing = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes("x"));
        controller.error(new Error("boom"));
      },
    });
    await expect(readAll(coalesceChunks(failing))).rejects.toThrow("boom");

    let cancelled: unknown;
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(bytes("y")),
      cancel: (reason) => {
        cancelled = reason;
      },
    });
    const reader = coalesceChunks(endless).getReader();
    expect(new TextDecoder().decode((await reader.read()).value).length).toBeGreaterThan(0);
    await reader.cancel("left");
    expect(cancelled).toBe("left");
  });
});

describe("coalesceChunks onClose", () => {
  it("is called once when the source ends, when it fails, and when the result is cancelled", async () => {
    const calls: string[] = [];
    const ending = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes("a"));
        controller.close();
      },
    });
    const ended = coalesceChunks(ending, () => calls.push("end"));
    expect(await readAll(ended)).toEqual(["a"]);

    const failing = new ReadableStream<Uint8Array>({
      start: (controller) => controller.error(new Error("boom")),
    });
    await expect(readAll(coalesceChunks(failing, () => calls.push("error")))).rejects.toThrow();

    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(bytes("y")),
    });
    const reader = coalesceChunks(endless, () => calls.push("cancel")).getReader();
    await reader.read();
    await reader.cancel("left");
    // The source's own end after the cancel does not call it again.
    await nextTurn();
    await nextTurn();
    expect(calls).toEqual(["end", "error", "cancel"]);
  });
});
