/**
 * An upload the client gave up on is not a server failure: over a real socket, a client sends
 * half of a message body (declared by content-length, or chunked) and destroys its socket. The
 * request is logged at info as 400 `client_aborted`, never at error with a stack, and counted
 * under `shop_errors_total{code="client_aborted"}`, not `internal`; no turn starts.
 */

import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type HttpServer, startHttpServer } from "./start-http-server.js";
import { createTestShop, type TestShop } from "./test-shop.testkit.js";

let t: TestShop;
let http: HttpServer;
beforeAll(async () => {
  t = await createTestShop();
  http = await startHttpServer(t.shop.app.fetch, { port: 0, hostname: "127.0.0.1" });
});
afterAll(async () => {
  await http.close({ graceMs: 0 });
  await t.close();
});

interface LogLine {
  level: number;
  msg: string;
  path?: string;
  status?: number;
  err?: unknown;
  code?: string;
}

const logLines = () => t.logs.map((line) => JSON.parse(line) as LogLine);

/** Writes `head` and `half`, waits until the server has read them, then destroys the socket. */
async function abandon(head: string, half: string): Promise<void> {
  const socket = connect(http.port, "127.0.0.1");
  socket.on("error", () => {});
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  await new Promise<void>((resolve) => socket.write(head + half, () => resolve()));
  // The request reaches the route (its log line carries the path once it ends): then leave.
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.destroy();
}

async function errorsCounted(): Promise<string> {
  return (await t.shop.metrics.exposition()).text;
}

describe("an aborted upload", () => {
  it.each([
    ["declared by content-length", false],
    ["sent chunked", true],
  ])(
    "%s: logged at info as 400 client_aborted, counted as client_aborted, no turn",
    async (_, chunked) => {
      const { id, token } = await t.session();
      const path = `/api/sessions/${id}/messages`;
      const body = JSON.stringify({ text: `show me running shoes ${"x".repeat(2_000)}` });
      const half = body.slice(0, body.length / 2);
      const head =
        `POST ${path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\n` +
        "content-type: application/json\r\n" +
        (chunked
          ? "transfer-encoding: chunked\r\n\r\n"
          : `content-length: ${Buffer.byteLength(body)}\r\n\r\n`);
      const before = logLines().length;
      await abandon(head, chunked ? `${half.length.toString(16)}\r\n${half}\r\n` : half);

      await vi.waitFor(() =>
        expect(logLines().some((line) => line.msg === "request" && line.path === path)).toBe(true),
      );
      const lines = logLines().slice(before);
      const request = lines.find((line) => line.msg === "request" && line.path === path);
      expect(request).toMatchObject({ level: 30, status: 400 });
      expect(lines.filter((line) => line.level >= 50)).toEqual([]);
      expect(lines.some((line) => line.err !== undefined)).toBe(false);
      expect(lines).toContainEqual(
        expect.objectContaining({
          msg: "request body did not arrive in full",
          code: "client_aborted",
        }),
      );
      const metrics = await errorsCounted();
      expect(metrics).toMatch(/shop_errors_total\{source="http",code="client_aborted"\} [12]\n/);
      expect(metrics).not.toContain('code="internal"');
      expect(t.shop.turns.log(id)).toBeUndefined();
    },
  );

  it("a whole body still reads: the same request sent in full starts its turn", async () => {
    const { id, token } = await t.session();
    const response = await fetch(`${http.url}/api/sessions/${id}/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ text: "show me running shoes" }),
    });
    expect(response.status).toBe(200);
    await response.text();
    expect(t.shop.turns.log(id)).toBeDefined();
  });
});
