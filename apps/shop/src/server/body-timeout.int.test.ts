/**
 * A request's body is bounded by the request timeout whatever state its chat is in: a body
 * trickled a byte at a time is cut at the timeout on a fresh chat and on a chat whose checkout
 * waits for the shopper's Confirm, on every route that takes a body (a message, the approval
 * itself, a stream asked for with a body, a request pipelined behind the waiting turn's own
 * stream); the waiting turn is not disturbed and is confirmed afterwards. Real sockets, a short
 * timeout.
 */

import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServer, startHttpServer } from "./start-http-server.js";
import { createTestShop, readEvents, type TestShop } from "./test-shop.testkit.js";

const REQUEST_TIMEOUT_MS = 1_000;
/** How far past the timeout a cut may come: Node checks every 250 ms here, the machine is busy. */
const SLACK_MS = 1_500;

let t: TestShop;
let server: HttpServer;
beforeAll(async () => {
  t = await createTestShop({ pacing: { tokensPerSecond: 400, firstTokenMs: 10 } });
  server = await startHttpServer(t.shop.app.fetch, {
    port: 0,
    hostname: "127.0.0.1",
    headersTimeoutMs: REQUEST_TIMEOUT_MS,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
  });
});
afterAll(async () => {
  await server.close({ graceMs: 0 });
  await t.close();
});

interface Connection {
  socket: Socket;
  received: () => string;
  /** Milliseconds from `since` to the server's close, once closed. */
  closedAfter: (since: number) => Promise<number>;
}

function open(): Connection {
  const socket = connect(server.port, "127.0.0.1");
  socket.on("error", () => {});
  let received = "";
  socket.on("data", (chunk) => {
    received += chunk.toString("latin1");
  });
  const closed = new Promise<number>((resolve) =>
    socket.once("close", () => resolve(performance.now())),
  );
  return {
    socket,
    received: () => received,
    closedAfter: async (since) => (await closed) - since,
  };
}

/** Writes `head`, then the body a byte every 50 ms until the server closes; the time it took. */
async function trickle(connection: Connection, head: string, body: string): Promise<number> {
  const started = performance.now();
  connection.socket.write(head);
  const closed = connection.closedAfter(started);
  let done = false;
  void closed.then(() => {
    done = true;
  });
  for (const byte of body) {
    if (done) break;
    connection.socket.write(byte);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return closed;
}

const BODY = JSON.stringify({ text: `check out ${"x".repeat(200)}`, approve: true });
const headOf = (method: string, path: string, token: string) =>
  `${method} ${path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\n` +
  `content-type: application/json\r\ncontent-length: ${BODY.length}\r\n\r\n`;

/** A chat whose checkout waits for Confirm: its id, token, call id and the stream's socket. */
async function waitingChat() {
  const { id, token } = await t.session();
  await readEvents(
    await t.call("POST", `/api/sessions/${id}/messages`, {
      token,
      json: { text: "add the Volt Aero trail runner in size 10 to my cart" },
    }),
  );
  const stream = open();
  const checkOut = JSON.stringify({ text: "check out" });
  stream.socket.write(
    `POST /api/sessions/${id}/messages HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\n` +
      `content-type: application/json\r\ncontent-length: ${checkOut.length}\r\n\r\n${checkOut}`,
  );
  let callId: string | undefined;
  while (callId === undefined) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    callId = /"type":"approval-request"[^\n]*?"callId":"([^"]+)"/.exec(stream.received())?.[1];
  }
  return { id, token, callId, stream };
}

describe("a trickled body is cut at the request timeout", () => {
  it("on a fresh chat and on a chat waiting for Confirm, on every route with a body; the waiting turn goes on", async () => {
    const fresh = await t.session();
    const waiting = await waitingChat();
    const routes = (chat: { id: string; token: string }, callId: string) => [
      ["POST", `/api/sessions/${chat.id}/messages`],
      ["POST", `/api/sessions/${chat.id}/approvals/${callId}`],
      ["GET", `/api/sessions/${chat.id}/stream`],
      ["PUT", `/api/sessions/${chat.id}/demo`],
      ["POST", `/api/sessions/${chat.id}/cart/items`],
    ];
    const attempts = [
      ...routes(fresh, "toolu_none").map(([m, p]) => ({
        label: `fresh ${m} ${p}`,
        m,
        p,
        c: fresh,
      })),
      ...routes(waiting, waiting.callId).map(([m, p]) => ({
        label: `waiting ${m} ${p}`,
        m,
        p,
        c: waiting,
      })),
    ];
    const took = await Promise.all(
      attempts.map(({ m, p, c }) =>
        trickle(open(), headOf(m as string, p as string, c.token), BODY),
      ),
    );
    for (const [i, ms] of took.entries()) {
      expect(ms, attempts[i]?.label).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
      expect(ms, attempts[i]?.label).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
    }
    // The waiting turn is still there, and Confirm places the order.
    const confirmed = await t.call(
      "POST",
      `/api/sessions/${waiting.id}/approvals/${encodeURIComponent(waiting.callId)}`,
      { token: waiting.token, json: { approve: true } },
    );
    expect(confirmed.status).toBe(200);
    await expect
      .poll(async () => (await t.store.listOrders({ sessionId: waiting.id })).length)
      .toBe(1);
    waiting.stream.socket.destroy();
  });

  it("pipelined behind the waiting turn's own stream, a trickled body is cut too", async () => {
    const waiting = await waitingChat();
    const started = performance.now();
    const took = await trickle(
      waiting.stream,
      headOf("POST", `/api/sessions/${waiting.id}/messages`, waiting.token),
      BODY,
    );
    expect(took).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
    expect(performance.now() - started).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
  });
});

describe("a client that ignores the 408 and keeps its side open", () => {
  it("is cut within 2 s of the answer, headers or body, so it holds no place under the caps", async () => {
    const results = await Promise.all(
      ["headers", "body"].map(async (mode) => {
        const socket = connect({ port: server.port, host: "127.0.0.1", allowHalfOpen: true });
        socket.on("error", () => {});
        let answeredAt = 0;
        socket.on("data", () => {
          answeredAt ||= performance.now();
        });
        let closed = false;
        const closedAt = new Promise<number>((resolve) =>
          socket.once("close", () => {
            closed = true;
            resolve(performance.now());
          }),
        );
        await new Promise((resolve) => socket.once("connect", resolve));
        socket.write(
          mode === "body"
            ? "POST /healthz HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n"
            : "GET /healthz HTTP/1.1\r\n",
        );
        // Goes on sending, answer or not, for up to 6 s.
        for (let i = 0; i < 120 && !closed; i++) {
          socket.write(mode === "body" ? "a" : "x-a: b\r\n");
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        socket.destroy();
        return { mode, answered: answeredAt > 0, afterAnswer: (await closedAt) - answeredAt };
      }),
    );
    for (const result of results) {
      expect(result.answered, result.mode).toBe(true);
      expect(result.afterAnswer, result.mode).toBeLessThan(2_000 + 500);
    }
  });
});
