/**
 * One test per defect found by the hostile-input storm (`hostile-storm.test.ts`): each request
 * answers its 4xx in the API's error shape `{ error: { code, message } }`, and nothing bad reaches
 * the store or the model.
 */

import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openStore } from "../db/open-store.js";
import { withDefaultUser } from "../db/postgres-store.js";
import { startHttpServer } from "./start-http-server.js";
import { createTestShop, type TestShop } from "./test-shop.testkit.js";

let t: TestShop;
beforeAll(async () => {
  t = await createTestShop();
});
afterAll(() => t.close());

async function errorOf(response: Response) {
  expect(response.headers.get("content-type")).toContain("application/json");
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

/**
 * Path ids that cannot be ids (a NUL, a lone surrogate, over-long), on every route with an id,
 * with a valid token: each is the route's 404, before any query, with no error logged.
 */
async function idsThatCannotBeIds(shop: TestShop): Promise<void> {
  const { id, token } = await shop.session();
  const merchant = await shop.session("merchant");
  const logsBefore = shop.logs.length;
  const queries = [
    vi.spyOn(shop.store, "findSessionByToken"),
    vi.spyOn(shop.store, "findShopperByToken"),
    vi.spyOn(shop.store, "getSession"),
  ];
  try {
    const long = "s".repeat(65);
    const cases: Array<[string, string, string, string?]> = [
      ["GET", "/api/sessions/%00", "not_found"],
      ["GET", "/api/sessions/a%00b/cart", "not_found"],
      ["GET", `/api/sessions/${long}`, "not_found"],
      ["GET", `/api/sessions/${"%ED%A0%80".repeat(30)}`, "not_found"],
      ["POST", "/api/sessions/%00/messages", "not_found"],
      ["GET", "/api/sessions/%00/stream", "not_found"],
      ["POST", "/api/sessions/%00/cancel", "not_found"],
      ["GET", "/api/sessions/%00/demo", "not_found"],
      ["POST", `/api/sessions/${id}/approvals/%00`, "approval_not_found"],
      ["POST", `/api/sessions/${id}/approvals/${"c".repeat(201)}`, "approval_not_found"],
      ["PATCH", `/api/sessions/${id}/cart/items/p-00%001`, "unknown_product"],
      ["DELETE", `/api/sessions/${id}/cart/items/${"p".repeat(65)}`, "unknown_product"],
      ["GET", "/api/merchant/sessions/%00", "not_found", merchant.token],
      [
        "POST",
        `/api/merchant/sessions/${merchant.id}/approvals/%00`,
        "approval_not_found",
        merchant.token,
      ],
    ];
    for (const [method, path, code, bearer] of cases) {
      const response = await shop.call(method, path, {
        token: bearer ?? token,
        ...(method === "POST" || method === "PATCH"
          ? { json: { text: "hi", approve: true, quantity: 1 } }
          : {}),
      });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect((await errorOf(response)).code, `${method} ${path}`).toBe(code);
    }
    for (const query of queries) expect(query).not.toHaveBeenCalled();
  } finally {
    for (const query of queries) query.mockRestore();
  }
  const levels = shop.logs
    .slice(logsBefore)
    .map((line) => (JSON.parse(line) as { level: number }).level);
  expect(levels.filter((level) => level >= 50)).toEqual([]);
  // A real id still opens.
  expect((await shop.call("GET", `/api/sessions/${id}`, { token })).status).toBe(200);
}

/** Sends raw bytes to `port` and returns the whole answer (the server closes the connection). */
function rawRequest(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    socket.setTimeout(5_000, () => socket.destroy(new Error("no answer within 5 s")));
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
    });
    socket.on("end", () => resolve(answer));
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
    socket.write(bytes, "latin1");
  });
}

describe("a body declared as another media type is 415", () => {
  it("text/plain, a form or XML never start a turn or change a cart; JSON types and none are read", async () => {
    const { id, token } = await t.session();
    const json = JSON.stringify({ text: "hello" });
    for (const type of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/xml",
      "application/jsonp",
    ]) {
      const response = await t.call("POST", `/api/sessions/${id}/messages`, {
        token,
        body: json,
        headers: { "content-type": type },
      });
      expect(response.status, type).toBe(415);
      expect(await errorOf(response)).toEqual({
        code: "unsupported_media_type",
        message: "Send the request body as JSON (Content-Type: application/json).",
      });
      const cart = await t.call("POST", `/api/sessions/${id}/cart/items`, {
        token,
        body: JSON.stringify({ productId: "p-0001", quantity: 1, size: "US 10", color: "Volt" }),
        headers: { "content-type": type },
      });
      expect(cart.status, type).toBe(415);
    }
    expect(t.shop.turns.log(id)).toBeUndefined();
    expect((await t.store.getCart(id)).lines).toEqual([]);
    for (const type of [
      "application/json; charset=utf-8",
      "Application/JSON",
      "application/merge-patch+json",
    ]) {
      const response = await t.call("POST", `/api/sessions/${id}/cart/items`, {
        token,
        body: JSON.stringify({ productId: "p-0001", quantity: 1, size: "US 10", color: "Volt" }),
        headers: { "content-type": type },
      });
      expect(response.status, type).toBe(200);
    }
  });
});

describe("text a model or a store cannot take is refused at the door", () => {
  it("a message with a lone surrogate or a NUL is 400 and never becomes a turn", async () => {
    const { id, token } = await t.session();
    for (const text of ["\ud800", "abc\udc00", "tea\u0000", "\udbff\udbff"]) {
      const response = await t.call("POST", `/api/sessions/${id}/messages`, {
        token,
        json: { text },
      });
      expect(response.status).toBe(400);
      const error = await errorOf(response);
      expect(error.code).toBe("invalid_request");
      expect(error.message).toContain("well-formed text");
    }
    expect(t.shop.turns.log(id)).toBeUndefined();
    expect(await t.store.conversations.load(id)).toEqual([]);
    // Emoji and other well-formed characters outside the BMP are fine.
    const ok = await t.call("POST", `/api/sessions/${id}/messages`, {
      token,
      json: { text: "🛒 红茶 ok" },
    });
    expect(ok.status).toBe(200);
    await ok.text();
  });

  it("a product id with NUL, a lone surrogate or over 64 characters is 400 in a body, 404 in a path", async () => {
    const { id, token } = await t.session();
    const base = `/api/sessions/${id}/cart/items`;
    for (const productId of ["p-00\u00001", "\ud800", "p".repeat(65)]) {
      const body = await t.call("POST", base, { token, json: { productId, quantity: 1 } });
      expect(body.status).toBe(400);
      expect((await errorOf(body)).code).toBe("invalid_request");
    }
    // In a path it names a product that cannot exist: the catalog's 404, as an unknown id.
    for (const path of ["p-00%001", "p".repeat(65)]) {
      for (const method of ["PATCH", "DELETE"]) {
        const response = await t.call(method, `${base}/${path}`, {
          token,
          ...(method === "PATCH" ? { json: { quantity: 1 } } : {}),
        });
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(await errorOf(response)).toEqual({
          code: "unknown_product",
          message: "That product is not in the catalog.",
        });
      }
    }
    // A lone surrogate cannot be percent-encoded as UTF-8: its bytes stay undecoded, an unknown id.
    expect((await t.call("DELETE", `${base}/%ED%A0%80`, { token })).status).toBe(404);
    // A plain unknown id is still the catalog's 404.
    expect((await t.call("DELETE", `${base}/nope`, { token })).status).toBe(404);
  });
});

describe("path ids that cannot be ids are 404 before any query", () => {
  it("NUL, lone surrogates and over-long ids in every id parameter (SQLite)", async () => {
    await idsThatCannotBeIds(t);
  });
});

describe("requests Node's parser or the Node adapter refuses answer in the API's error shape", () => {
  let http: Awaited<ReturnType<typeof startHttpServer>>;
  beforeAll(async () => {
    http = await startHttpServer(t.shop.app.fetch, { port: 0, hostname: "127.0.0.1" });
  });
  afterAll(() => http.close({ graceMs: 100 }));

  const cases: Array<[string, string, number, string]> = [
    [
      "a header with a control character",
      "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n",
      400,
      "bad_request",
    ],
    ["an unknown method", "FROB /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 400, "bad_request"],
    [
      "a content-length that is no number",
      "POST /api/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
      400,
      "bad_request",
    ],
    ["a garbage request line", "\u0000\u0001\u0002 nonsense\r\n\r\n", 400, "bad_request"],
    [
      "headers over Node's 16 KiB",
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
      431,
      "headers_too_large",
    ],
    ["no Host header", "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n", 400, "bad_request"],
    [
      "a Host header that is no host",
      "GET /healthz HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n",
      400,
      "bad_request",
    ],
    [
      "a backslash in the path",
      "GET /assets\\..\\package.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
      400,
      "bad_request",
    ],
  ];
  it.each(cases)("%s", async (_name, request, status, code) => {
    const answer = await rawRequest(http.port, request);
    const [head = "", body = ""] = answer.split("\r\n\r\n");
    expect(head.split("\r\n")[0]).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(head.toLowerCase()).toContain("content-type: application/json");
    expect(JSON.parse(body)).toEqual({ error: { code, message: expect.any(String) } });
    // The server goes on serving.
    expect((await fetch(`${http.url}/healthz`)).status).toBe(200);
  });
});

const DATABASE_URL = withDefaultUser(process.env.DATABASE_URL || "postgres://127.0.0.1:5432/test");
async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
const postgres = await postgresReachable();

describe.skipIf(!postgres)("on PostgreSQL, whose text cannot hold NUL", () => {
  const schema = `shop_hostile_${randomBytes(4).toString("hex")}`;
  let shop: TestShop;
  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    shop = await createTestShop({
      store: await openStore({ databaseUrl: DATABASE_URL, pgSchema: schema }),
    });
  });
  afterAll(async () => {
    await shop?.close();
    await shop?.store.close();
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  });

  it("path ids that cannot be ids are 404 before any query, not the driver's error as a 500", async () => {
    await idsThatCannotBeIds(shop);
  });

  it("a NUL in a product id is a 400 in a body, a 404 in a path, not the driver's error as a 500", async () => {
    const { id, token } = await shop.session();
    const base = `/api/sessions/${id}/cart/items`;
    const answers = [
      await shop.call("DELETE", `${base}/p-00%001`, { token }),
      await shop.call("PATCH", `${base}/p-00%001`, { token, json: { quantity: 1 } }),
      await shop.call("POST", base, { token, json: { productId: "p-00\u00001", quantity: 1 } }),
    ];
    expect(answers.map((r) => r.status)).toEqual([404, 404, 400]);
    const added = await shop.call("POST", base, {
      token,
      json: { productId: "p-0001", quantity: 1, size: "US 10", color: "Volt" },
    });
    expect(added.status).toBe(200);
  });
});
