import http from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { OverlapError } from "../errors.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { incomingBatches } from "./incoming-batches.js";
import { createNodeHttpFetch, incomingBodyOf } from "./node-http-fetch.js";
import { type FrameTranslator, SseBatchReader } from "./sse-batch-reader.js";

/** Each frame's data is `{"n": k}`; `event: end` ends the stream. */
const translate: FrameTranslator = (frame, out) => {
  if (frame.event === "end") return true;
  out.push({ type: "ping", ...(JSON.parse(frame.data) as object) } as unknown as StreamEvent);
  return undefined;
};
const frame = (n: number) => `data: {"n":${n}}\n\n`;
const numbers = (events: readonly StreamEvent[]) =>
  events.map((e) => (e as unknown as { n: number }).n);

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((done) => server?.close(done));
  server = undefined;
});

/** A server answering every request with `respond`; resolves to its URL. */
async function serve(
  respond: (res: http.ServerResponse, req: http.IncomingMessage) => void,
): Promise<string> {
  server = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    respond(res, req);
  });
  await new Promise<void>((ok) => server?.listen(0, "127.0.0.1", ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

async function open(url: string, minReadIntervalMs = 0): Promise<http.IncomingMessage> {
  const response = await createNodeHttpFetch({ minReadIntervalMs })(url);
  const incoming = incomingBodyOf(response);
  if (!incoming) throw new Error("no direct body");
  return incoming;
}

describe("incomingBatches", () => {
  it.each([0, 4])(
    "hands over every event once, in order, in few batches (reads paced at %i ms)",
    async (interval) => {
      const url = await serve((res) => {
        // Each frame its own write (a chunk of the chunked body), in bursts.
        let n = 0;
        const burst = () => {
          for (let i = 0; i < 50; i++) res.write(frame(n++));
          if (n < 2_000) setImmediate(burst);
          else res.end("event: end\ndata: {}\n\n");
        };
        burst();
      });
      const seen: number[] = [];
      let batchCount = 0;
      const reader = new SseBatchReader(translate);
      for await (const batch of incomingBatches(
        await open(url, interval),
        reader,
        new AbortController().signal,
      )) {
        batchCount++;
        seen.push(...numbers(batch));
      }
      expect(seen).toEqual(Array.from({ length: 2_000 }, (_, i) => i));
      // 2,001 chunks came; the batches gather those that arrived together.
      expect(batchCount).toBeLessThan(1_000);
    },
  );

  it("holds the connection back while the round does not take events", async () => {
    const total = 40_000;
    let written = 0;
    const url = await serve((res) => {
      const more = () => {
        while (written < total) {
          if (!res.write(frame(written++))) return void res.once("drain", more);
        }
        res.end("event: end\ndata: {}\n\n");
      };
      more();
    });
    const seen: number[] = [];
    const sizes: number[] = [];
    const reader = new SseBatchReader(translate);
    for await (const batch of incomingBatches(
      await open(url),
      reader,
      new AbortController().signal,
    )) {
      if (sizes.length === 0) await sleep(300); // a slow sink: the body waits, not memory
      sizes.push(batch.length);
      seen.push(...numbers(batch));
    }
    expect(seen).toEqual(Array.from({ length: total }, (_, i) => i));
    // What waited past the bound stayed in the socket: no batch holds everything the server
    // could write during the stall (4,096 waiting events, then the read that crossed it).
    expect(Math.max(...sizes)).toBeLessThan(total / 2);
  });

  it("ends with the body when the stream has no end marker", async () => {
    const url = await serve((res) => {
      res.write(frame(1));
      setTimeout(() => res.end(frame(2)), 20);
    });
    const seen: number[] = [];
    for await (const batch of incomingBatches(
      await open(url),
      new SseBatchReader(translate),
      new AbortController().signal,
    ))
      seen.push(...numbers(batch));
    expect(seen).toEqual([1, 2]);
  });

  it("fails as stream_interrupted when the connection drops mid-frame, after the events before it", async () => {
    const url = await serve((res) => {
      res.write(frame(1));
      res.write('data: {"n":');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const seen: number[] = [];
    const error = await (async () => {
      for await (const batch of incomingBatches(
        await open(url),
        new SseBatchReader(translate),
        new AbortController().signal,
      ))
        seen.push(...numbers(batch));
    })().catch((err: unknown) => err);
    expect(seen).toEqual([1]);
    expect(error).toBeInstanceOf(OverlapError);
    expect((error as OverlapError).code).toBe("stream_interrupted");
  });

  it("closes the connection when the reader leaves early", async () => {
    let closed: () => void = () => {};
    const serverSawClose = new Promise<void>((ok) => {
      closed = ok;
    });
    const url = await serve((res) => {
      res.write(frame(1));
      const timer = setInterval(() => res.write(frame(2)), 5);
      res.on("close", () => {
        clearInterval(timer);
        closed();
      });
    });
    for await (const batch of incomingBatches(
      await open(url),
      new SseBatchReader(translate),
      new AbortController().signal,
    )) {
      expect(numbers(batch)[0]).toBe(1);
      break;
    }
    await serverSawClose;
  });
});
