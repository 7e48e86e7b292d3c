import { describe, expect, it } from "vitest";
import { encodeAgentEvent, encodeSseComment, encodeSseFrame } from "../sse/sse-encoder.js";
import { mulberry32 } from "../testing/replay.js";
import { buildTurnEvents, EXAMPLE_SCRIPT, withIds } from "./__fixtures__/turn-script.js";
import { type ReadSummary, type ReceivedEvent, readAgentEvents } from "./read-agent-events.js";

const utf8 = new TextEncoder();
const logged = withIds(buildTurnEvents(EXAMPLE_SCRIPT).events);

/** A recorded turn as a server writes it: a retry hint, heartbeats, and two frames to skip. */
function recordedStream(): string {
  let text = "retry: 3000\n\n";
  logged.forEach(({ id, event }, i) => {
    if (i % 4 === 0) text += `${encodeSseComment("heartbeat")}\n`;
    if (i === 3)
      text += encodeSseFrame({ event: "tool-progress", data: '{"type":"tool-progress"}' });
    if (i === 9) text += encodeSseFrame({ event: "text-delta", data: '{"type":"text-delta",' });
    text += encodeAgentEvent(event, id);
  });
  return text;
}

/** Cuts `bytes` into pieces of 1..maxChunk bytes, pseudo-randomly: cuts fall inside characters. */
function cutSeeded(bytes: Uint8Array, seed: number, maxChunk: number): Uint8Array[] {
  const random = mulberry32(seed);
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + Math.floor(random() * maxChunk);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

/** A body that hands out one chunk per pull, as a network would. */
function bodyOf(chunks: readonly Uint8Array[], onCancel?: () => void): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
    cancel() {
      onCancel?.();
    },
  });
}

async function readAll(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): Promise<{ events: ReceivedEvent[]; summary: ReadSummary }> {
  const events: ReceivedEvent[] = [];
  const reader = readAgentEvents(body, signal);
  for (;;) {
    const next = await reader.next();
    if (next.done) return { events, summary: next.value };
    events.push(next.value);
  }
}

describe("readAgentEvents", () => {
  const bytes = utf8.encode(recordedStream());

  it("reads a recorded turn: events with their ids; heartbeats ignored, bad frames skipped and counted", async () => {
    const { events, summary } = await readAll(bodyOf([bytes]));
    expect(events).toEqual(logged);
    expect(summary).toEqual({ events: logged.length, skipped: 2 });
  });

  it("yields identical events in 300 seeded chunkings, cuts inside multi-byte characters included", async () => {
    let cutInsideCharacter = 0;
    for (let seed = 0; seed < 300; seed++) {
      const chunks = cutSeeded(bytes, seed, 1 + (seed % 48));
      // A chunk starting with a UTF-8 continuation byte was cut inside a character.
      cutInsideCharacter += chunks.filter((c) => c.length > 0 && (c[0]! & 0xc0) === 0x80).length;
      const { events, summary } = await readAll(bodyOf(chunks));
      expect(events).toEqual(logged);
      expect(summary.skipped).toBe(2);
    }
    expect(cutInsideCharacter).toBeGreaterThan(100);
  });

  it("reads CRLF line ends and a leading byte order mark", async () => {
    const text = `\uFEFF${recordedStream().replaceAll("\n", "\r\n")}`;
    const { events } = await readAll(bodyOf(cutSeeded(utf8.encode(text), 5, 7)));
    expect(events).toEqual(logged);
  });

  it("yields each event as soon as its frame is complete", async () => {
    let push: (text: string) => void = () => {};
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        push = (text) => controller.enqueue(utf8.encode(text));
      },
    });
    const reader = readAgentEvents(body);
    const first = logged[0]!;
    push(encodeAgentEvent(first.event, first.id));
    expect((await reader.next()).value).toEqual(first);
    await reader.return({ events: 0, skipped: 0 });
  });

  it("drops an unterminated last frame (its id was never applied, so a resume replays it)", async () => {
    const [a, b] = [logged[0]!, logged[1]!];
    const text = encodeAgentEvent(a.event, a.id) + encodeAgentEvent(b.event, b.id).slice(0, -1);
    const { events } = await readAll(bodyOf([utf8.encode(text)]));
    expect(events).toEqual([a]);
  });

  it("gives undefined as the id of a frame without one", async () => {
    const event = logged[1]!.event;
    const text = encodeSseFrame({ event: event.type, data: JSON.stringify(event) });
    expect((await readAll(bodyOf([utf8.encode(text)]))).events).toEqual([{ id: undefined, event }]);
  });

  it("stops at once when the signal aborts during a read, and cancels the body", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const first = logged[0]!;
        controller.enqueue(utf8.encode(encodeAgentEvent(first.event, first.id)));
        // ...then nothing more: a stalled connection.
      },
      cancel() {
        cancelled = true;
      },
    });
    const controller = new AbortController();
    const reader = readAgentEvents(body, controller.signal);
    expect((await reader.next()).done).toBe(false);
    const pending = reader.next();
    controller.abort();
    expect(await pending).toEqual({ done: true, value: { events: 1, skipped: 0 } });
    expect(cancelled).toBe(true);
  });

  it("reads nothing with an already aborted signal", async () => {
    let cancelled = false;
    const { events } = await readAll(
      bodyOf([bytes], () => {
        cancelled = true;
      }),
      AbortSignal.abort(),
    );
    expect(events).toEqual([]);
    expect(cancelled).toBe(true);
  });

  it("cancels the body when the consumer stops early", async () => {
    let cancelled = false;
    const body = bodyOf(cutSeeded(bytes, 1, 16), () => {
      cancelled = true;
    });
    for await (const received of readAgentEvents(body)) {
      expect(received).toEqual(logged[0]);
      break;
    }
    expect(cancelled).toBe(true);
  });

  it("throws what the network throws, after the events before it", async () => {
    const first = logged[0]!;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(utf8.encode(encodeAgentEvent(first.event, first.id)));
        controller.error(new TypeError("terminated"));
      },
    });
    const seen: ReceivedEvent[] = [];
    await expect(
      (async () => {
        for await (const received of readAgentEvents(body)) seen.push(received);
      })(),
    ).rejects.toThrow("terminated");
    expect(seen.length).toBeLessThanOrEqual(1);
  });
});
