import { setImmediate as nextTurn } from "node:timers/promises";
import { Hono } from "hono";
import type { AgentEvent, LoggedEvent } from "overlap-runtime";
import { describe, expect, it } from "vitest";
import type { Session } from "../db/shop-store.js";
import type { AppEnv } from "./app-env.js";
import { ShopMetrics } from "./metrics.js";
import { onSseClose, sseBodyOf, sseResponse } from "./sse-response.js";
import { StreamLimits } from "./stream-limits.js";

const text = (seq: number): LoggedEvent => ({
  id: `t:${seq}`,
  event: { type: "text-delta", text: `#${seq}` } as AgentEvent,
});

/** A log that yields what `source` yields, with the signal the response reads it with. */
function logOf(source: (signal: AbortSignal) => AsyncIterable<LoggedEvent>) {
  let signal: AbortSignal | undefined;
  return {
    log: {
      turnId: "t",
      read: (_last: string | null | undefined, s?: AbortSignal) => {
        signal = s;
        return source(s as AbortSignal);
      },
    },
    signal: () => signal,
  };
}

async function chunksOf(response: Response): Promise<string[]> {
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of response.body as ReadableStream<Uint8Array>) {
    chunks.push(decoder.decode(chunk));
  }
  return chunks;
}

const frameIds = (chunk: string) => [...chunk.matchAll(/^id: (.*)$/gm)].map((m) => m[1]);

describe("sseResponse", () => {
  it("sends the frames of one turn of the event loop in one chunk, later ones apart, nothing lost", async () => {
    const { log } = logOf(async function* () {
      yield text(1);
      yield text(2);
      await nextTurn();
      await nextTurn();
      yield text(3);
      await nextTurn();
      await nextTurn();
      yield text(4);
      yield text(5);
    });
    const response = sseResponse(log, undefined);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("x-turn-id")).toBe("t");
    const chunks = await chunksOf(response);
    expect(chunks[0]).toMatch(/^retry: 1000\n\n/);
    expect(chunks.map(frameIds)).toEqual([["t:1", "t:2"], ["t:3"], ["t:4", "t:5"]]);
    expect(chunks.join("")).toContain(
      'event: text-delta\nid: t:3\ndata: {"type":"text-delta","text":"#3"}\n\n',
    );
  });

  it("tells onClose and onSseClose's listeners once: at the log's end, at its failure, at a cancel", async () => {
    const calls: string[] = [];
    const ended = sseResponse(
      logOf(async function* () {
        yield text(1);
      }).log,
      undefined,
      { onClose: () => calls.push("end") },
    );
    expect(onSseClose(ended.body as ReadableStream<Uint8Array>, () => calls.push("end, too"))).toBe(
      true,
    );
    await chunksOf(ended);
    // Over: nothing more can be registered.
    expect(onSseClose(ended.body as ReadableStream<Uint8Array>, () => calls.push("late"))).toBe(
      false,
    );

    const failed = sseResponse(
      logOf(async function* () {
        yield text(1);
        throw new Error("boom");
      }).log,
      undefined,
      { onClose: () => calls.push("error") },
    );
    await expect(chunksOf(failed)).rejects.toThrow("boom");

    const endless = logOf(async function* (signal) {
      for (let seq = 1; !signal.aborted; seq++) {
        yield text(seq);
        await nextTurn();
      }
    });
    const cancelled = sseResponse(endless.log, undefined, { onClose: () => calls.push("cancel") });
    const reader = (cancelled.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel("left");
    expect(endless.signal()?.aborted).toBe(true);
    await nextTurn();
    await nextTurn();
    expect(calls).toEqual(["end", "end, too", "error", "cancel"]);
  });

  it("onSseClose refuses a body it did not make", () => {
    expect(onSseClose(new ReadableStream<Uint8Array>(), () => {})).toBe(false);
  });

  it("sseBodyOf gives the body of a response it made, and nothing for another", async () => {
    const { log } = logOf(async function* () {
      yield text(1);
    });
    const response = sseResponse(log, undefined);
    const body = sseBodyOf(response);
    expect(body).toBeDefined();
    let closed = false;
    expect(onSseClose(body!, () => (closed = true))).toBe(true);
    expect((await chunksOf(response)).join("")).toContain("id: t:1");
    expect(closed).toBe(true);
    expect(sseBodyOf(new Response("x", { headers: { "content-type": "text/event-stream" } }))).toBe(
      undefined,
    );
  });

  it("the open-stream gauge and the stream limits know its end without reading the answer's body", async () => {
    // On the Node server, reading `body` of Hono's light response makes a full web Response.
    const metrics = new ShopMetrics();
    const streams = new StreamLimits({ perChat: 1 });
    let end: () => void = () => {};
    const { log } = logOf(async function* () {
      yield text(1);
      await new Promise<void>((resolve) => {
        end = resolve;
      });
    });
    const app = new Hono<AppEnv>();
    app.use(metrics.middleware);
    app.use(streams.middleware);
    app.get("/stream", (c) => {
      c.set("session", { id: "chat-1", kind: "shopper", shopperId: "shopper-1" } as Session);
      c.set("clientAddress", "10.0.0.1");
      const permit = streams.acquire(c);
      const response = sseResponse(log, undefined, { onClose: permit.release });
      Object.defineProperty(response, "body", {
        get: () => {
          throw new Error("the answer's body was read");
        },
      });
      return response;
    });
    const response = await app.request("/stream");
    expect(response.status).toBe(200);
    const gauge = async () =>
      (await metrics.registry.getSingleMetric("shop_open_sse_connections")!.get()).values[0]?.value;
    expect(await gauge()).toBe(1);
    expect(streams.openFor("chat", "chat-1")).toBe(1);
    const reading = (async () => {
      const chunks: string[] = [];
      const decoder = new TextDecoder();
      for await (const chunk of sseBodyOf(response)!) chunks.push(decoder.decode(chunk));
      return chunks.join("");
    })();
    end();
    expect(await reading).toContain("id: t:1");
    expect(await gauge()).toBe(0);
    expect(streams.openFor("chat", "chat-1")).toBe(0);
  });
});
