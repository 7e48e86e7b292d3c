import http from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { OverlapError } from "../../errors.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { type FrameTranslator, SseBatchReader } from "../sse-batch-reader.js";
import { incomingBatches } from "./incoming-batches.js";
import { createNodeHttpFetch, incomingBodyOf } from "./node-http-fetch.js";

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
  const running = server;
  server = undefined;
  if (!running) return;
  running.closeAllConnections();
  await new Promise((done) => running.close(done));
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

  it("gives the connection back to the pool once the whole body came, all read or not", async () => {
    let connections = 0;
    // Past the bound of waiting events: the reader leaves before the rest of the body is read.
    const body = Array.from({ length: 5_000 }, (_, n) => frame(n)).join("");
    const url = await serve((res, req) => {
      res.end(req.url === "/long" ? body : `${frame(1)}event: end\ndata: {}\n\n`);
    });
    server?.on("connection", () => connections++);
    const fetch = createNodeHttpFetch({ minReadIntervalMs: 0 });
    const read = async (path: string, leaveAfterFirst: boolean) => {
      const incoming = incomingBodyOf(await fetch(new URL(path, url)));
      if (!incoming) throw new Error("no direct body");
      let events = 0;
      for await (const batch of incomingBatches(
        incoming,
        new SseBatchReader(translate),
        new AbortController().signal,
      )) {
        events += batch.length;
        if (leaveAfterFirst) {
          await sleep(50); // the rest of the body comes meanwhile
          break;
        }
      }
      return events;
    };
    expect(await read("/short", false)).toBe(1);
    expect(await read("/long", true)).toBeGreaterThan(0);
    expect(await read("/short", false)).toBe(1);
    expect(connections).toBe(1);
  });

  it("ends quietly when aborted, while the reader holds a batch or waits", async () => {
    const url = await serve((res) => {
      res.write(frame(1));
      const timer = setInterval(() => res.write(frame(2)), 5);
      res.on("close", () => clearInterval(timer));
    });
    const controller = new AbortController();
    const response = await createNodeHttpFetch({ minReadIntervalMs: 0 })(url, {
      signal: controller.signal,
    });
    const incoming = incomingBodyOf(response);
    if (!incoming) throw new Error("no direct body");
    const seen: number[] = [];
    for await (const batch of incomingBatches(
      incoming,
      new SseBatchReader(translate),
      controller.signal,
    )) {
      seen.push(...numbers(batch));
      // The fetch destroys the body on abort: no failure comes of it.
      if (seen.length === 1) controller.abort();
      await sleep(20);
    }
    expect(seen[0]).toBe(1);
    const again = incomingBatches(incoming, new SseBatchReader(translate), controller.signal);
    expect(await again.next()).toEqual({ done: true, value: undefined });
  });

  it("hands over the events that came with a failure before the failure", async () => {
    const { Readable } = await import("node:stream");
    const body = new Readable({ read() {} });
    body.push(frame(1));
    const seen: number[] = [];
    const error = await (async () => {
      for await (const batch of incomingBatches(
        body,
        new SseBatchReader(translate),
        new AbortController().signal,
      )) {
        seen.push(...numbers(batch));
        // While the reader holds its batch: an event, then a frame that cannot be read.
        if (seen.length === 1) body.push(`${frame(2)}data: bad\n\n`);
        await sleep(10);
      }
    })().catch((err: unknown) => err);
    expect(seen).toEqual([1, 2]);
    expect((error as OverlapError).code).toBe("stream_interrupted");
  });

  it("drains a body that came whole when the reader leaves with part of it unread", async () => {
    const { Readable } = await import("node:stream");
    // As a Node response: `complete` once its whole body came, read or not.
    const body = Object.assign(new Readable({ read() {} }), { complete: false });
    body.push(Array.from({ length: 4_200 }, (_, n) => frame(n)).join(""));
    setTimeout(() => {
      // Comes while the reader holds its first batch, past the bound: left unread.
      body.push(frame(4_200));
      body.push(null);
      body.complete = true;
    }, 5);
    for await (const batch of incomingBatches(
      body,
      new SseBatchReader(translate),
      new AbortController().signal,
    )) {
      expect(batch.length).toBe(4_200);
      await sleep(30);
      break;
    }
    await sleep(5);
    // Read to its end (not destroyed before it): a response's connection goes back to the pool.
    expect(body.readableEnded).toBe(true);
  });

  it("reads a stream in object mode piece by piece, and a body already over", async () => {
    const { Readable } = await import("node:stream");
    const pieces = [frame(1), "data: {", '"n":2}\n\n', frame(3)].map((t) => Buffer.from(t));
    const objects = new Readable({ objectMode: true, read() {} });
    for (const piece of pieces) objects.push(piece);
    objects.push(null);
    const seen: number[] = [];
    for await (const batch of incomingBatches(
      objects,
      new SseBatchReader(translate),
      new AbortController().signal,
    ))
      seen.push(...numbers(batch));
    expect(seen).toEqual([1, 2, 3]);
    const destroyed = new Readable({ read() {} });
    destroyed.destroy();
    const error = await (async () => {
      for await (const _ of incomingBatches(
        destroyed,
        new SseBatchReader(translate),
        new AbortController().signal,
      ));
    })().catch((err: unknown) => err);
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
