/**
 * The client's reader against hostile streams: random bytes in random chunkings, a recorded turn
 * cut anywhere with junk spliced in, and servers that never end a line or an event. Nothing
 * escapes but OverlapError `limit_exceeded`, nothing hangs, memory stays bounded; the stream client
 * turns an oversized event into a failed turn instead of resuming it again and again.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isOverlapError } from "../errors.js";
import { encodeAgentEvent } from "../sse/sse-encoder.js";
import { buildTurnEvents, EXAMPLE_SCRIPT, withIds } from "./__fixtures__/turn-script.js";
import { AgentStreamClient } from "./agent-stream-client.js";
import { type ReceivedEvent, readAgentEvents } from "./read-agent-events.js";

const utf8 = new TextEncoder();
const turn = withIds(buildTurnEvents(EXAMPLE_SCRIPT).events);
const turnText = turn.map(({ id, event }) => encodeAgentEvent(event, id)).join("");

/** Cuts `bytes` at the given offsets (modulo its length + 1): cuts may fall inside characters. */
function cut(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
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

function bodyOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

/** A body that sends `first`, then `filler` forever; counts pulls and notices the cancel. */
function endless(first: string, filler: string) {
  const head = utf8.encode(first);
  const chunk = utf8.encode(filler);
  let pulls = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(pulls++ === 0 ? head : chunk);
    },
    cancel() {
      cancelled = true;
    },
  });
  return { body, pulled: () => pulls, cancelled: () => cancelled };
}

interface Read {
  ids: (string | undefined)[];
  failed: boolean;
}

/** Reads a body to its end; a throw must be the limit's OverlapError. */
async function read(body: ReadableStream<Uint8Array>, maxEventChars?: number): Promise<Read> {
  const events: ReceivedEvent[] = [];
  try {
    for await (const e of readAgentEvents(
      body,
      undefined,
      maxEventChars === undefined ? {} : { maxEventChars },
    )) {
      events.push(e);
    }
  } catch (err) {
    if (!isOverlapError(err, "limit_exceeded")) throw err;
    return { ids: events.map((e) => e.id), failed: true };
  }
  return { ids: events.map((e) => e.id), failed: false };
}

/** A recorded turn with random junk spliced in at random places. */
const corruptedTurn = fc
  .array(
    fc.tuple(
      fc.nat(),
      fc.oneof(
        fc.string({ unit: "binary", maxLength: 40 }),
        fc.constantFrom(
          "\n\n",
          "data: {\n",
          ": hb\r\n",
          "\r",
          "event: done\n",
          `data: ${"q".repeat(300)}`,
        ),
      ),
    ),
    { maxLength: 5 },
  )
  .map((junk) => {
    let text = turnText;
    for (const [at, piece] of junk) {
      const p = at % (text.length + 1);
      text = text.slice(0, p) + piece + text.slice(p);
    }
    return text;
  });

describe("readAgentEvents against hostile streams", () => {
  it("random bytes in random chunkings: events or limit_exceeded, the same in every chunking", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 400 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.integer({ min: 1, max: 100 }),
        async (bytes, offsets, max) => {
          const whole = await read(bodyOf([bytes]), max);
          expect(await read(bodyOf(cut(bytes, offsets)), max)).toEqual(whole);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a recorded turn with junk spliced in: under the limit the same events as without one; past it a prefix of them", async () => {
    await fc.assert(
      fc.asyncProperty(
        corruptedTurn,
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.integer({ min: 100, max: 600 }),
        async (text, offsets, max) => {
          const bytes = utf8.encode(text);
          const unlimited = await read(bodyOf(cut(bytes, offsets)));
          expect(unlimited.failed).toBe(false);
          const limited = await read(bodyOf(cut(bytes, offsets)), max);
          if (limited.failed) {
            expect(unlimited.ids.slice(0, limited.ids.length)).toEqual(limited.ids);
          } else {
            expect(limited).toEqual(unlimited);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("the default limit lets a whole recorded turn through", async () => {
    const result = await read(bodyOf([utf8.encode(turnText)]));
    expect(result).toEqual({ ids: turn.map((e) => e.id), failed: false });
  });

  it("a server that never ends a line: limit_exceeded after a bounded read, the events before kept, the body cancelled", async () => {
    const first = turn[0]!;
    const peer = endless(`${encodeAgentEvent(first.event, first.id)}data: `, "z".repeat(1 << 20));
    const result = await read(peer.body);
    expect(result).toEqual({ ids: [first.id], failed: true });
    expect(peer.pulled()).toBeLessThanOrEqual(12); // 8 Mi characters in 1 MiB chunks
    expect(peer.cancelled()).toBe(true);
  });

  it("a server that never ends an event: the same", async () => {
    const peer = endless("", "data: x\n".repeat(1 << 15));
    expect(await read(peer.body, 1 << 20)).toEqual({ ids: [], failed: true });
    expect(peer.pulled()).toBeLessThanOrEqual(8);
    expect(peer.cancelled()).toBe(true);
  });

  it("heartbeats forever never add up to an event", async () => {
    const chunks = Array.from({ length: 64 }, () => utf8.encode(": heartbeat\n\n".repeat(1000)));
    chunks.push(utf8.encode(turnText));
    const result = await read(bodyOf(chunks), 1000);
    expect(result).toEqual({ ids: turn.map((e) => e.id), failed: false });
  });
});

describe("AgentStreamClient and an oversized event", () => {
  it("fails the turn with limit_exceeded instead of resuming into the same event again", async () => {
    const first = turn[0]!;
    let resumes = 0;
    const client = new AgentStreamClient({
      send: async () =>
        new Response(
          `${encodeAgentEvent(first.event, first.id)}data: ${"w".repeat(9 * 1024 * 1024)}`,
          { headers: { "content-type": "text/event-stream" } },
        ),
      resume: async () => {
        resumes++;
        return new Response(null, { status: 204 });
      },
      sleep: async () => {},
    });
    await client.send("hello");
    expect(resumes).toBe(0);
    expect(client.state.running).toBe(false);
    expect(client.state.error).toEqual({
      code: "limit_exceeded",
      message: "The response was larger than allowed.",
    });
    expect(client.state.lastEventId).toBe(first.id);
  });
});
