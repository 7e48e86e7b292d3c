/**
 * The per-address connection cap over real sockets on loopback (127.0.0.2 and .3 stand in for
 * other clients): one address holding slow connections gets only its share, the next ones from it
 * are answered 429 and closed, and `/healthz` on a new connection from another address is served;
 * behind a trusted proxy the cap counts each request's forwarded client.
 */

import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type HttpServer,
  type StartHttpServerOptions,
  startHttpServer,
} from "./start-http-server.js";

const servers: HttpServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await server.close({ graceMs: 0 });
});

/** Answers `/healthz` at once; any other request once its body has arrived. */
const app = async (request: Request) => {
  if (new URL(request.url).pathname === "/healthz") return Response.json({ ok: true });
  return new Response(await request.text());
};

async function serve(options: Omit<StartHttpServerOptions, "port">): Promise<HttpServer> {
  const server = await startHttpServer(app, {
    port: 0,
    hostname: "127.0.0.1",
    headersTimeoutMs: 20_000,
    requestTimeoutMs: 20_000,
    ...options,
  });
  servers.push(server);
  return server;
}

interface Held {
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
}

/** A connection from `from` (a loopback address) that sends `first` and then holds. */
async function hold(port: number, from: string, first = "GET / HTTP/1.1\r\n"): Promise<Held> {
  const socket = connect({ port, host: "127.0.0.1", localAddress: from });
  sockets.push(socket);
  socket.on("error", () => {});
  let received = "";
  socket.on("data", (chunk) => {
    received += chunk.toString("latin1");
  });
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  socket.write(first);
  return { socket, received: () => received, closed };
}

/** `GET /healthz` on a new connection from `from`: the status and body. */
async function probe(port: number, from: string): Promise<string> {
  const held = await hold(
    port,
    from,
    "GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
  );
  await held.closed;
  return held.received();
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
const codeOf = (answer: string) =>
  (JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) as { error: { code: string } }).error
    .code;

describe("connections per client address", () => {
  it("one address trickling headers on more sockets than the cap holds only its share; /healthz from another is served", async () => {
    const server = await serve({ maxConnections: 20, maxConnectionsPerAddress: 8 });
    const held: Held[] = [];
    for (let i = 0; i < 25; i++) held.push(await hold(server.port, "127.0.0.2"));
    // The 17 past the cap were answered 429 and closed; the 8 within it are still open.
    const refused = held.slice(8);
    await Promise.all(refused.map((h) => h.closed));
    for (const h of refused) {
      expect(statusOf(h.received())).toBe(429);
      expect(h.received()).toMatch(/\r\nretry-after: 2\r\n/);
      expect(codeOf(h.received())).toBe("too_many_connections");
    }
    expect(held.slice(0, 8).every((h) => !h.socket.destroyed && h.received() === "")).toBe(true);
    // Another address gets in, and so does the first one once it closes some.
    expect(statusOf(await probe(server.port, "127.0.0.1"))).toBe(200);
    held[0]?.socket.destroy();
    await vi.waitFor(async () => expect(statusOf(await probe(server.port, "127.0.0.2"))).toBe(200));
  });

  it("keeps the last slots for an address holding none: a probe gets in while others fill the rest", async () => {
    // 10 slots, 2 of them reserved; four addresses of 4 connections each want 16.
    const server = await serve({
      maxConnections: 10,
      maxConnectionsPerAddress: 4,
      reservedConnections: 2,
    });
    const held: Held[] = [];
    for (const from of ["127.0.0.2", "127.0.0.3", "127.0.0.4"]) {
      for (let i = 0; i < 4; i++) held.push(await hold(server.port, from));
    }
    // .2 and .3 took 8; .4 got one reserved slot, its others were refused as the server is full.
    const refusedOf4 = held.slice(9);
    await Promise.all(refusedOf4.map((h) => h.closed));
    expect(refusedOf4.map((h) => [statusOf(h.received()), codeOf(h.received())])).toEqual([
      [503, "server_busy"],
      [503, "server_busy"],
      [503, "server_busy"],
    ]);
    expect(statusOf(await probe(server.port, "127.0.0.1"))).toBe(200);
  });

  it("behind a trusted proxy, counts each request's forwarded client, not the proxy", async () => {
    const server = await serve({
      maxConnections: 50,
      maxConnectionsPerAddress: 3,
      trustProxy: { hops: 1 },
    });
    const post = (client: string) =>
      `POST /upload HTTP/1.1\r\nhost: x\r\nx-forwarded-for: ${client}\r\ncontent-length: 5\r\n\r\n`;
    // The proxy (127.0.0.1) opens 6 connections: more than one address may hold.
    const held: Held[] = [];
    for (let i = 0; i < 6; i++) held.push(await hold(server.port, "127.0.0.1", ""));
    // Three requests of one client hold their bodies open; its fourth is refused, not the proxy.
    for (const h of held.slice(0, 3)) h.socket.write(post("203.0.113.7"));
    const fourth = held[3] as Held;
    fourth.socket.write(post("203.0.113.7"));
    await fourth.closed;
    expect(statusOf(fourth.received())).toBe(429);
    // Another client on the same proxy is served.
    const other = held[4] as Held;
    other.socket.write(post("198.51.100.9"));
    other.socket.write("hello");
    await vi.waitFor(() => expect(other.received()).toMatch(/\r\n\r\nhello$/));
    // A request of the proxy's own (no forwarded client) is not capped either.
    expect(statusOf(await probe(server.port, "127.0.0.1"))).toBe(200);
    // Once one of the client's bodies arrives and its connection closes, it is served again.
    (held[0] as Held).socket.end("12345");
    await (held[0] as Held).closed;
    const last = held[5] as Held;
    last.socket.write(post("203.0.113.7"));
    last.socket.write("world");
    await vi.waitFor(() => expect(last.received()).toMatch(/\r\n\r\nworld$/));
  });
});
