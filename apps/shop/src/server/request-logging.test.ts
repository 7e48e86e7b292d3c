import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "./app-env.js";
import { capturedLog } from "./captured-log.testkit.js";
import { requestLogging } from "./request-logging.js";

/** An app behind the request log, whose routes answer in several ways; the log lines kept. */
function loggedApp() {
  const { logger, records: lines } = capturedLog();
  const app = new Hono<AppEnv>();
  app.use(requestLogging(logger));
  const given: Record<string, Response> = {};
  app.get("/json", (c) => {
    given.json = c.json({ ok: true }, 201);
    return given.json;
  });
  app.get("/sse", () => {
    given.sse = new Response(new ReadableStream({ start: (s) => s.close() }), {
      headers: { "content-type": "text/event-stream" },
    });
    return given.sse;
  });
  // A redirect's headers cannot change: the answer is copied to carry the id.
  app.get("/redirect", () => Response.redirect("http://localhost/json", 302));
  return { app, given, lines };
}

describe("requestLogging", () => {
  it("puts the request id on the handler's own answer, and logs the request once", async () => {
    const { app, given, lines } = loggedApp();
    const json = await app.request("/json", { headers: { "x-request-id": "req-1" } });
    expect(json.headers.get("x-request-id")).toBe("req-1");
    expect(json.status).toBe(201);
    expect(await json.json()).toEqual({ ok: true });
    // Not a copy of it (Hono's `c.header` after the handler would have made one).
    expect(json).toBe(given.json);

    const sse = await app.request("/sse");
    expect(sse).toBe(given.sse);
    expect(sse.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(sse.headers.get("content-type")).toBe("text/event-stream");

    const redirect = await app.request("/redirect", { headers: { "x-request-id": "req-3" } });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe("http://localhost/json");
    expect(redirect.headers.get("x-request-id")).toBe("req-3");

    expect(lines.map((l) => [l.reqId, l.path, l.status])).toEqual([
      ["req-1", "/json", 201],
      [sse.headers.get("x-request-id"), "/sse", 200],
      ["req-3", "/redirect", 302],
    ]);
  });
});
