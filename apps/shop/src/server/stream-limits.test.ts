/**
 * The bounds on open SSE streams: counted per chat, per shopper and per client address, refused
 * with 429 `too_many_streams` and `Retry-After` before any work (a refused message starts no
 * turn), and given back on every way a stream ends: its end, its client going away (also while
 * heartbeats are being written), an error answer instead of a stream. The HTTP cases run over
 * real sockets against the real app, with turns that wait a minute for their first token.
 */

import { request as httpRequest, type IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type HttpServer, startHttpServer } from "./start-http-server.js";
import { StreamLimits } from "./stream-limits.js";
import { createTestShop, type TestShop } from "./test-shop.testkit.js";

describe("StreamLimits.tryAcquire", () => {
  it("counts per chat, shopper and address, refuses at a bound without counting, forgets keys at zero", () => {
    const limits = new StreamLimits({ perChat: 2, perShopper: 3, perAddress: 4 });
    const a1 = limits.tryAcquire({ chat: "a", shopper: "u", address: "1.1.1.1" });
    const a2 = limits.tryAcquire({ chat: "a", shopper: "u", address: "1.1.1.1" });
    expect(a1.ok && a2.ok).toBe(true);
    expect(limits.tryAcquire({ chat: "a", shopper: "u", address: "1.1.1.1" })).toEqual({
      ok: false,
      bound: "chat",
      max: 2,
    });
    // Another chat of the same shopper: the shopper's bound.
    const b1 = limits.tryAcquire({ chat: "b", shopper: "u", address: "1.1.1.1" });
    expect(b1.ok).toBe(true);
    expect(limits.tryAcquire({ chat: "b", shopper: "u", address: "1.1.1.1" })).toMatchObject({
      ok: false,
      bound: "shopper",
    });
    // Another shopper from the same address: the address's bound.
    const c1 = limits.tryAcquire({ chat: "c", shopper: "v", address: "1.1.1.1" });
    expect(c1.ok).toBe(true);
    expect(limits.tryAcquire({ chat: "d", shopper: "w", address: "1.1.1.1" })).toMatchObject({
      ok: false,
      bound: "address",
      max: 4,
    });
    // A merchant session (no shopper) counts per chat and address only.
    expect(limits.tryAcquire({ chat: "m", address: "2.2.2.2" }).ok).toBe(true);
    expect(limits.openCount).toBe(5);
    expect(limits.openFor("address", "1.1.1.1")).toBe(4);

    for (const permit of [a1, a2, b1, c1]) if (permit.ok) permit.release();
    if (a1.ok) a1.release(); // a second release gives nothing back twice
    expect(limits.openCount).toBe(1);
    expect(limits.openFor("chat", "a")).toBe(0);
    expect(limits.openFor("shopper", "u")).toBe(0);
    expect(limits.openFor("address", "1.1.1.1")).toBe(0);
    expect(limits.openFor("address", "2.2.2.2")).toBe(1);
  });
});

/** An open response over a socket of its own; `close` destroys the socket (the client leaves). */
interface OpenResponse {
  status: number;
  headers: IncomingMessage["headers"];
  /** The whole body, for an answer that ends (an error). */
  text(): Promise<string>;
  close(): void;
}

function open(
  port: number,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<OpenResponse> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          ...(payload === undefined
            ? {}
            : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: async () => {
            let text = "";
            for await (const chunk of res) text += String(chunk);
            return text;
          },
          close: () => req.destroy(),
        });
      },
    );
    req.on("error", (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end(payload);
  });
}

async function refusal(response: OpenResponse) {
  expect(response.status).toBe(429);
  expect(response.headers["content-type"]).toContain("application/json");
  expect(response.headers["retry-after"]).toBe("5");
  return ((await JSON.parse(await response.text())) as { error: { code: string; message: string } })
    .error;
}

describe("stream limits over HTTP", () => {
  let t: TestShop;
  let http: HttpServer;
  beforeAll(async () => {
    t = await createTestShop({
      // Turns wait a minute for their first token: their streams stay open while the test runs.
      pacing: { firstTokenMs: 60_000 },
      heartbeatMs: 20,
      streamLimits: { perChat: 2, perShopper: 3, perAddress: 5 },
    });
    http = await startHttpServer(t.shop.app.fetch, { port: 0, hostname: "127.0.0.1" });
  });
  afterAll(async () => {
    await http.close({ graceMs: 0 });
    await t.close();
  });
  const streams = () => t.shop.streams;

  it("a chat's third stream is refused 429 with Retry-After; a stream whose client left gives its place back", async () => {
    const { id, token } = await t.session();
    const first = await open(http.port, "POST", `/api/sessions/${id}/messages`, token, {
      text: "show me running shoes",
    });
    expect(first.status).toBe(200);
    expect(first.headers["content-type"]).toBe("text/event-stream");
    const second = await open(http.port, "GET", `/api/sessions/${id}/stream`, token);
    expect(second.status).toBe(200);
    expect(streams().openFor("chat", id)).toBe(2);

    const third = await open(http.port, "GET", `/api/sessions/${id}/stream`, token);
    expect(await refusal(third)).toEqual({
      code: "too_many_streams",
      message:
        "Too many open streams for this chat (at most 2 at once). Close one, or try again in 5 s.",
    });
    expect(streams().openFor("chat", id)).toBe(2);

    // The client of the second leaves while heartbeats are written every 20 ms.
    second.close();
    await vi.waitFor(() => expect(streams().openFor("chat", id)).toBe(1));
    const again = await open(http.port, "GET", `/api/sessions/${id}/stream`, token);
    expect(again.status).toBe(200);
    expect(streams().openFor("chat", id)).toBe(2);

    // The turn ends (cancelled): both streams end, and their places are free.
    expect((await t.call("POST", `/api/sessions/${id}/cancel`, { token })).status).toBe(200);
    await Promise.all([first.text(), again.text()]);
    await vi.waitFor(() => expect(streams().openFor("chat", id)).toBe(0));
  });

  it("a message refused for the shopper's bound starts no turn; error answers give their place back", async () => {
    const a = await t.session();
    const first = await open(http.port, "POST", `/api/sessions/${a.id}/messages`, a.token, {
      text: "show me running shoes",
    });
    expect(first.status).toBe(200);
    // A message refused as a turn already running (409) gives its place back.
    const busy = await open(http.port, "POST", `/api/sessions/${a.id}/messages`, a.token, {
      text: "and socks",
    });
    expect(busy.status).toBe(409);
    await busy.text();
    expect(streams().openFor("chat", a.id)).toBe(1);
    const extra = await open(http.port, "GET", `/api/sessions/${a.id}/stream`, a.token);
    expect(extra.status).toBe(200);
    // A second chat of the same shopper, opened with the first chat's token.
    const created = await t.call("POST", "/api/sessions", { token: a.token });
    const b = (await created.json()) as { id: string; token: string; shopperId: string };
    const third = await open(http.port, "GET", `/api/sessions/${b.id}/stream`, a.token);
    // No turn in chat b: 204, and the place it took is given back at once.
    expect(third.status).toBe(204);
    expect(streams().openFor("chat", b.id)).toBe(0);
    const shopper = b.shopperId;
    expect(streams().openFor("shopper", shopper)).toBe(2);

    const held = await open(http.port, "POST", `/api/sessions/${b.id}/messages`, b.token, {
      text: "show me socks",
    });
    expect(held.status).toBe(200);
    expect(streams().openFor("shopper", shopper)).toBe(3);
    const c = (await (await t.call("POST", "/api/sessions", { token: b.token })).json()) as {
      id: string;
      token: string;
    };
    const refused = await open(http.port, "POST", `/api/sessions/${c.id}/messages`, c.token, {
      text: "show me socks",
    });
    expect((await refusal(refused)).message).toContain("this shopper's chats (at most 3 at once)");
    expect(t.shop.turns.log(c.id)).toBeUndefined();

    for (const r of [first, extra, held]) r.close();
    await vi.waitFor(() => expect(streams().openFor("shopper", shopper)).toBe(0));
    await t.call("POST", `/api/sessions/${a.id}/cancel`, { token: a.token });
    await t.call("POST", `/api/sessions/${b.id}/cancel`, { token: b.token });
  });

  it("streams of different shoppers from one address meet the address's bound", async () => {
    const opened: OpenResponse[] = [];
    const shoppers = await Promise.all([1, 2, 3].map(() => t.session()));
    for (const s of shoppers.slice(0, 2)) {
      const post = await open(http.port, "POST", `/api/sessions/${s.id}/messages`, s.token, {
        text: "show me running shoes",
      });
      expect(post.status).toBe(200);
      const get = await open(http.port, "GET", `/api/sessions/${s.id}/stream`, s.token);
      expect(get.status).toBe(200);
      opened.push(post, get);
    }
    const s3 = shoppers[2] as { id: string; token: string };
    const fifth = await open(http.port, "POST", `/api/sessions/${s3.id}/messages`, s3.token, {
      text: "show me running shoes",
    });
    expect(fifth.status).toBe(200);
    opened.push(fifth);
    expect(streams().openFor("address", "127.0.0.1")).toBe(5);
    const sixth = await open(http.port, "GET", `/api/sessions/${s3.id}/stream`, s3.token);
    expect((await refusal(sixth)).message).toContain("this address (at most 5 at once)");

    for (const r of opened) r.close();
    await vi.waitFor(() => expect(streams().openCount).toBe(0));
    for (const s of shoppers) await t.call("POST", `/api/sessions/${s.id}/cancel`, s);
  });
});
