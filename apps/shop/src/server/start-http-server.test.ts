/**
 * The socket-level bounds of `startHttpServer`, over real sockets: connections past the cap are
 * answered 503 `server_busy` with `Retry-After` and closed (the ones within it keep working);
 * headers and bodies trickled one byte at a time are cut with 408 `request_timeout`; a response
 * that streams for longer than the request timeout is not cut.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../config.js";
import { shopPolicy } from "../model/shop-policy.js";
import { type HttpServer, startHttpServer } from "./start-http-server.js";
import { startShop } from "./start-shop.js";
import { createTestShop, type TestShop } from "./test-shop.testkit.js";

const servers: HttpServer[] = [];
const shops: TestShop[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close({ graceMs: 0 });
  for (const shop of shops.splice(0)) await shop.close();
});

async function serve(
  fetch: (request: Request) => Response | Promise<Response>,
  options: Parameters<typeof startHttpServer>[1] extends infer O ? Omit<O, "port"> : never,
): Promise<HttpServer> {
  const server = await startHttpServer(fetch, { port: 0, hostname: "127.0.0.1", ...options });
  servers.push(server);
  return server;
}

/** A raw connection: what it received so far, and whether the server closed it. */
interface RawConnection {
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
  /** Writes `bytes` one at a time every `everyMs` until done or the connection closes. */
  trickle(bytes: string, everyMs: number): Promise<number>;
}

async function rawConnection(port: number): Promise<RawConnection> {
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  let received = "";
  socket.on("data", (chunk) => {
    received += chunk.toString("latin1");
  });
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  let open = true;
  void closed.then(() => {
    open = false;
  });
  return {
    socket,
    received: () => received,
    closed,
    async trickle(bytes, everyMs) {
      let sent = 0;
      for (const byte of bytes) {
        if (!open || received !== "") break;
        socket.write(byte, "latin1");
        sent++;
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
      return sent;
    },
  };
}

function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
}

function errorOf(answer: string): { code: string; message: string } {
  const body = answer.slice(answer.indexOf("\r\n\r\n") + 4);
  return (JSON.parse(body) as { error: { code: string; message: string } }).error;
}

const ok = () => new Response("ok", { headers: { "content-type": "text/plain" } });

describe("the connection cap", () => {
  it("answers the connection past MAX_CONNECTIONS 503 with Retry-After and closes it; the others go on", async () => {
    const server = await serve(ok, { maxConnections: 2 });
    const a = await rawConnection(server.port);
    const b = await rawConnection(server.port);
    a.socket.write("GET /a HTTP/1.1\r\nhost: x\r\n\r\n");
    await vi.waitFor(() => expect(a.received()).toContain("\r\n\r\nok"));

    const c = await rawConnection(server.port);
    c.socket.write("GET /c HTTP/1.1\r\nhost: x\r\n\r\n");
    await c.closed;
    const answer = c.received();
    expect(statusOf(answer)).toBe(503);
    expect(answer).toMatch(/\r\nretry-after: 2\r\n/);
    expect(answer).toMatch(/\r\ncontent-type: application\/json\r\n/);
    expect(errorOf(answer)).toEqual({
      code: "server_busy",
      message: "The server has too many connections open. Try again shortly.",
    });

    // The connections within the cap are served as before (keep-alive: a second request on a).
    a.socket.write("GET /a2 HTTP/1.1\r\nhost: x\r\n\r\n");
    await vi.waitFor(() => expect(a.received().split("\r\n\r\nok").length).toBe(3));
    b.socket.write("GET /b HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
    await b.closed;
    expect(statusOf(b.received())).toBe(200);

    // b is closed: a new connection fits again.
    await vi.waitFor(async () => {
      const response = await fetch(`${server.url}/d`, { headers: { connection: "close" } });
      expect(response.status).toBe(200);
      await response.text();
    });
  });
});

describe("request timeouts", () => {
  it("headers trickled one byte at a time are cut with 408 request_timeout", async () => {
    const server = await serve(ok, { headersTimeoutMs: 300, requestTimeoutMs: 1_000 });
    const connection = await rawConnection(server.port);
    const headers = `GET / HTTP/1.1\r\nhost: x\r\nx-slow: ${"a".repeat(400)}\r\n\r\n`;
    // 400 bytes at 25 ms each would take 10 s: the server answers long before the last one.
    const sent = await connection.trickle(headers, 25);
    await connection.closed;
    expect(sent).toBeLessThan(headers.length);
    expect(statusOf(connection.received())).toBe(408);
    expect(errorOf(connection.received()).code).toBe("request_timeout");
  });

  it("a message body trickled one byte at a time is cut with 408; no turn starts, nothing is logged as an error", async () => {
    const t = await createTestShop();
    shops.push(t);
    const server = await serve(t.shop.app.fetch, { headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const { id, token } = await t.session();
    const body = JSON.stringify({ text: `show me running shoes ${"x".repeat(400)}` });
    const connection = await rawConnection(server.port);
    connection.socket.write(
      `POST /api/sessions/${id}/messages HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    const sent = await connection.trickle(body, 25);
    await connection.closed;
    expect(sent).toBeLessThan(body.length);
    expect(statusOf(connection.received())).toBe(408);
    expect(errorOf(connection.received())).toEqual({
      code: "request_timeout",
      message: "The request took too long to arrive.",
    });
    // The route's read of the body fails next: counted as a timeout, logged at info.
    await vi.waitFor(async () =>
      expect((await t.shop.metrics.exposition()).text).toContain(
        'shop_errors_total{source="http",code="request_timeout"} 1',
      ),
    );
    const exposition = (await t.shop.metrics.exposition()).text;
    expect(exposition).not.toContain('code="internal"');
    expect(t.shop.turns.log(id)).toBeUndefined();
    const lines = t.logs.map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    expect(lines.some((line) => line.msg === "request body did not arrive in full")).toBe(true);
  });

  it("a response streaming for longer than the request timeout is not cut", async () => {
    const chunks = 12;
    const stream = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          async start(controller) {
            for (let i = 0; i < chunks; i++) {
              controller.enqueue(new TextEncoder().encode(`data: ${i}\n\n`));
              await new Promise((resolve) => setTimeout(resolve, 100));
            }
            controller.close();
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      );
    // 12 chunks 100 ms apart: the response lasts longer than the 1 s request timeout, while the
    // server checks for late requests every 25 ms.
    const server = await serve(stream, { headersTimeoutMs: 100, requestTimeoutMs: 1_000 });
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text.match(/data: \d+/g)).toHaveLength(chunks);
  });
});

describe("startShop", () => {
  it("applies MAX_STREAMS_PER_CHAT and MAX_CONNECTIONS from the settings", async () => {
    const dir = await mkdtemp(join(tmpdir(), "shop-edge-"));
    const config = loadConfig({
      PORT: "0",
      DATA_DIR: dir,
      MAX_STREAMS_PER_CHAT: "1",
      MAX_CONNECTIONS: "2",
    });
    const shop = await startShop({
      config,
      logger: pino({ level: "silent" }),
      env: {},
      policy: shopPolicy,
      // The turn waits a minute for its first token: its stream stays open.
      pacing: { firstTokenMs: 60_000 },
    });
    try {
      // On a connection of its own, closed after the answer: it holds no place under the cap.
      const creating = await rawConnection(shop.port);
      creating.socket.write("POST /api/sessions HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
      await creating.closed;
      const { id, token } = JSON.parse(
        creating.received().slice(creating.received().indexOf("\r\n\r\n") + 4),
      ) as { id: string; token: string };
      const first = await rawConnection(shop.port);
      const body = JSON.stringify({ text: "show me running shoes" });
      first.socket.write(
        `POST /api/sessions/${id}/messages HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\n` +
          `content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      );
      await vi.waitFor(() => expect(first.received()).toContain("text/event-stream"));
      // The server may not have seen the session's connection close yet (then: 503, again).
      const second = await vi.waitFor(async () => {
        const connection = await rawConnection(shop.port);
        connection.socket.write(
          `GET /api/sessions/${id}/stream HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\n\r\n`,
        );
        await vi.waitFor(() => expect(connection.received()).toContain("\r\n\r\n"));
        expect(statusOf(connection.received())).toBe(429);
        return connection;
      });
      expect(second.received()).toContain('"code":"too_many_streams"');
      // Two connections open (the stream, and the refused one kept alive): a third is refused.
      const third = await rawConnection(shop.port);
      third.socket.write("GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n");
      await third.closed;
      expect(statusOf(third.received())).toBe(503);
      first.socket.destroy();
      second.socket.destroy();
    } finally {
      await shop.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
