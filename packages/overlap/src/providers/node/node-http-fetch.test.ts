import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StreamEvent } from "../../stream/stream-event.js";
import { bodyBatches } from "../body-batches.js";
import { type FrameTranslator, SseBatchReader } from "../sse-batch-reader.js";
import { createNodeHttpFetch, incomingBodyOf, nodeHttpFetch } from "./node-http-fetch.js";

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => unknown;

let server: Server;
let origin = "";
let handler: Handler = (_req, res) => {
  res.end();
};
const connections = new Set<Socket>();
let connectionCount = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => void handler(req, res, body));
  });
  server.on("connection", (socket) => {
    connectionCount++;
    connections.add(socket);
    socket.on("close", () => connections.delete(socket));
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const frame = (n: number) => `event: tick\ndata: {"type":"tick","n":${n}}\n\n`;

/** Each frame's data is the event. */
const tick: FrameTranslator = (f, out) => {
  out.push(JSON.parse(f.data) as StreamEvent);
  return undefined;
};

/** Every event of a response read by overlap's reader, in batches. */
async function batchesOf(response: Response, signal = new AbortController().signal) {
  const batches: StreamEvent[][] = [];
  const reader = bodyBatches(async () => response, new SseBatchReader(tick), signal);
  for await (const batch of reader) batches.push([...batch]);
  return batches;
}

describe("nodeHttpFetch", () => {
  it("sends the method, headers and body, and answers with status, headers and a readable body", async () => {
    handler = (req, res, body) => {
      res.setHeader("set-cookie", ["a=1", "b=2"]);
      res.writeHead(422, "Unprocessable", { "content-type": "application/json", "x-seen": body });
      res.end(JSON.stringify({ method: req.method, auth: req.headers["x-api-key"] }));
    };
    const response = await nodeHttpFetch(`${origin}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": "k", "content-type": "application/json" },
      body: '{"héllo":1}',
    });
    expect(response.status).toBe(422);
    expect(response.statusText).toBe("Unprocessable");
    expect(response.headers.get("x-seen")).toBe('{"héllo":1}');
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await response.json()).toEqual({ method: "POST", auth: "k" });
  });

  it("gives a body-less status no body", async () => {
    handler = (_req, res) => {
      res.writeHead(204).end();
    };
    const response = await nodeHttpFetch(`${origin}/none`);
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
    expect(incomingBodyOf(response)).toBeUndefined();
  });

  it("rejects a failed connection as the global fetch does (a TypeError), and an abort as the signal's reason", async () => {
    const refused = await nodeHttpFetch("http://127.0.0.1:1/").catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(TypeError);
    expect((refused as Error).message).toBe("fetch failed");

    handler = async (_req, res) => {
      await sleep(2_000);
      res.end();
    };
    const controller = new AbortController();
    const pending = nodeHttpFetch(`${origin}/slow`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const aborted = await pending.catch((err: unknown) => err);
    expect((aborted as Error).name).toBe("AbortError");
    const already = await nodeHttpFetch(`${origin}/slow`, { signal: controller.signal }).catch(
      (err: unknown) => err,
    );
    expect((already as Error).name).toBe("AbortError");
  });

  it("asks for an uncompressed body, and decodes one that comes compressed anyway", async () => {
    const seen: Array<string | undefined> = [];
    for (const [encoding, compress] of [
      ["gzip", gzipSync],
      ["deflate", deflateSync],
      ["br", brotliCompressSync],
    ] as const) {
      handler = (req, res) => {
        seen.push(req.headers["accept-encoding"]);
        res.writeHead(200, { "content-type": "text/event-stream", "content-encoding": encoding });
        res.end(compress(Buffer.from(frame(0) + frame(1) + frame(2))));
      };
      const response = await nodeHttpFetch(`${origin}/${encoding}`);
      expect(incomingBodyOf(response), encoding).toBeUndefined();
      const events = (await batchesOf(response)).flat();
      expect(
        events.map((e) => (e as unknown as { n: number }).n),
        encoding,
      ).toEqual([0, 1, 2]);
    }
    expect(seen).toEqual(["identity", "identity", "identity"]);
  });

  it("hands a request it does not handle (a stream body, another scheme) to the global fetch", async () => {
    const response = await nodeHttpFetch("data:text/plain,hello");
    expect(await response.text()).toBe("hello");
    expect(incomingBodyOf(response)).toBeUndefined();
  });

  it("keeps the connection for the next request, also after a paced response", async () => {
    handler = async (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (let n = 0; n < 200; n++) {
        res.write(frame(n));
        if (n % 20 === 19) await sleep(1);
      }
      res.end();
    };
    const fetch = createNodeHttpFetch({ minReadIntervalMs: 5 });
    const before = connectionCount;
    for (let i = 0; i < 3; i++) {
      const events = (await batchesOf(await fetch(`${origin}/sse`))).flat();
      expect(events.map((e) => (e as unknown as { n: number }).n)).toEqual(
        Array.from({ length: 200 }, (_, n) => n),
      );
    }
    expect(connectionCount - before).toBe(1);
  });

  it("closes an idle connection after idleConnectionMs when the server says nothing", async () => {
    const served: Socket[] = [];
    handler = (req, res) => {
      served.push(req.socket);
      // An explicit connection header: Node's server then announces no timeout.
      res.writeHead(200, { connection: "keep-alive", "content-type": "text/plain" });
      res.end("ok");
    };
    const fetch = createNodeHttpFetch({ idleConnectionMs: 300 });
    expect(await (await fetch(`${origin}/quiet`)).text()).toBe("ok");
    expect(await (await fetch(`${origin}/quiet`)).text()).toBe("ok");
    expect(served[1]).toBe(served[0]); // reused while fresh
    await sleep(700);
    expect(connections.has(served[0]!)).toBe(false);
    expect(await (await fetch(`${origin}/quiet`)).text()).toBe("ok");
    expect(served[2]).not.toBe(served[0]);
  });

  it("closes an idle connection a second before the server said it would, never reusing it as it closes", async () => {
    const served: Socket[] = [];
    handler = (req, res) => {
      served.push(req.socket);
      res.writeHead(200, { "keep-alive": "timeout=2", "content-type": "text/plain" });
      res.end("ok");
    };
    const fetch = createNodeHttpFetch();
    const first = await fetch(`${origin}/idle`);
    expect(await first.text()).toBe("ok");
    // The server (keepAliveTimeout 5 s here) would keep it; the client let it go after 1 s.
    await sleep(1_400);
    expect(connections.has(served[0]!)).toBe(false);
    const second = await fetch(`${origin}/idle`);
    expect(await second.text()).toBe("ok");
    expect(served[1]).not.toBe(served[0]);
  });
});

describe("overlap's reader straight from the socket", () => {
  it("reads a fast stream in at most one batch per interval, every event once and in order", async () => {
    const frames = 3_000;
    handler = async (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      // About 300 ms of frames in small bursts, one write each (one chunk of the body each).
      for (let n = 0; n < frames; n++) {
        res.write(frame(n));
        if (n % 10 === 9) await sleep(1);
      }
      res.end();
    };
    const interval = 25;
    const start = performance.now();
    const batches = await batchesOf(
      await createNodeHttpFetch({ minReadIntervalMs: interval })(`${origin}/fast`),
    );
    const elapsed = performance.now() - start;
    const events = batches.flat().map((e) => (e as unknown as { n: number }).n);
    expect(events).toEqual(Array.from({ length: frames }, (_, n) => n));
    // One read per interval, plus the reads of 16 KiB or more (a bulk read is never held back: a
    // stalled process finds that much waiting). A busy machine only gathers more per read.
    let bytes = 0;
    for (let n = 0; n < frames; n++) bytes += frame(n).length;
    expect(batches.length).toBeLessThanOrEqual(
      Math.ceil(elapsed / interval) + 2 + Math.ceil(bytes / 16_384),
    );
  });

  it("keeps up with a trickle of small writes: what waited while a read was held goes on at once", async () => {
    // One frame a millisecond, each its own write: faster than one per interval, so every read
    // is held; the frames gathered meanwhile must all come at the interval's end, not one per
    // interval (which would fall ever further behind the writer).
    const frames = 400;
    let lastWriteAt = 0;
    handler = async (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (let n = 0; n < frames; n++) {
        await sleep(1);
        res.write(frame(n));
      }
      lastWriteAt = performance.now();
      await sleep(200);
      res.end();
    };
    const response = await createNodeHttpFetch({ minReadIntervalMs: 4 })(`${origin}/trickle`);
    let lastEventAt = 0;
    let seen = 0;
    for await (const batch of bodyBatches(
      async () => response,
      new SseBatchReader(tick),
      new AbortController().signal,
    )) {
      seen += batch.length;
      if (seen === frames) lastEventAt = performance.now();
    }
    expect(seen).toBe(frames);
    // The last frame is read within a few intervals of its write (before the fix: seconds later).
    expect(lastEventAt - lastWriteAt).toBeLessThan(100);
  });

  it("holds a stalled reader's events without losing any: the body waits, then all come in order", async () => {
    const frames = 10_000;
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (let n = 0; n < frames; n++) res.write(frame(n));
      res.end();
    };
    const response = await nodeHttpFetch(`${origin}/burst`);
    await sleep(100);
    const seen: number[] = [];
    expect(incomingBodyOf(response)).toBeDefined();
    const reader = bodyBatches(
      async () => response,
      new SseBatchReader(tick),
      new AbortController().signal,
    );
    for await (const batch of reader) {
      for (const e of batch) seen.push((e as unknown as { n: number }).n);
      await sleep(5);
    }
    expect(seen).toEqual(Array.from({ length: frames }, (_, n) => n));
  });

  it("a dropped connection is stream_interrupted after the events that came; an abort ends quietly", async () => {
    handler = async (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(frame(0) + frame(1));
      await sleep(30);
      res.socket?.destroy();
    };
    const seen: StreamEvent[] = [];
    const failure = await (async () => {
      try {
        for (const batch of await batchesOf(await nodeHttpFetch(`${origin}/drop`))) {
          seen.push(...batch);
        }
      } catch (err) {
        return err as { code?: string };
      }
    })();
    expect(failure?.code).toBe("stream_interrupted");

    handler = async (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (let n = 0; n < 1_000; n++) {
        res.write(frame(n));
        await sleep(1);
        if (res.destroyed) return;
      }
      res.end();
    };
    const controller = new AbortController();
    const response = await nodeHttpFetch(`${origin}/long`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const batches = await batchesOf(response, controller.signal);
    const got = batches.flat().length;
    expect(got).toBeGreaterThan(0);
    expect(got).toBeLessThan(1_000);
  });
});
