/**
 * Hostile input over real HTTP: a shop started like `npm start` starts it (`startShop`,
 * SQLite in a temporary directory, the default rate limits) takes a few thousand generated hostile
 * requests (a table of request shapes, each with seeded variations, written as raw bytes on their
 * own connections so that nothing is cleaned up by a client library on the way), then a normal turn.
 *
 * Every answer must be its 4xx (or the documented 2xx: a replay for a garbage `Last-Event-ID`, a
 * health check with odd headers), errors in the API's shape `{ error: { code, message } }`; no 5xx,
 * no request slower than a bound, no file from outside the web build, memory not growing with the
 * number of requests; afterwards the server still serves and a turn succeeds. 429s of the session
 * rate limit (30 per minute per address) are correct answers to the session-spam shape.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { mulberry32 } from "overlap-runtime/testing";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { shopPolicy } from "../model/shop-policy.js";
import { type RunningShop, startShop } from "./start-shop.js";
import { readEvents } from "./test-shop.testkit.js";

const MERCHANT_TOKEN = "merchant-token-for-the-storm-0123456789";
/** Variations per request shape. */
const VARIATIONS = 130;
/** Requests in flight at once. */
const CONCURRENCY = 8;
/** No single answer may take longer (it is a few milliseconds each on a laptop). */
const MAX_REQUEST_MS = 5_000;

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

interface Session {
  id: string;
  token: string;
}

/** What the shapes build requests for. */
interface Ctx {
  alice: Session;
  bob: Session;
  merchant: Session;
  /** A session with one finished turn: its stream replays. */
  replay: Session;
}

/** One generated request: raw parts, and what answers are right. */
interface HostileRequest {
  method: string;
  /** Sent as is (already percent-encoded where wanted; may hold `..`). */
  target: string;
  headers?: Array<[string, string]>;
  body?: string;
  /** Send the body with chunked transfer-encoding (no content-length). */
  chunked?: boolean;
  /** Bytes written instead of the request built from the fields above. */
  raw?: Buffer;
  /** The right statuses. */
  statuses: readonly number[];
  /** The right error codes (when the status is an error). */
  codes?: readonly string[];
}

type Random = () => number;
const pick = <T>(rng: Random, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
const int = (rng: Random, min: number, max: number) => min + Math.floor(rng() * (max - min + 1));

/** A string of random code units (any of them: controls, surrogate halves, NUL). */
function junk(rng: Random, length: number): string {
  let text = "";
  for (let i = 0; i < length; i++) {
    text += String.fromCharCode(
      pick(rng, [
        () => int(rng, 0, 0x1f),
        () => int(rng, 0x20, 0x7e),
        () => int(rng, 0x80, 0xffff),
      ])(),
    );
  }
  return text;
}

/** Percent-encodes every UTF-16 unit's low byte that is not plain: ids with NUL, `/`, `%`... */
function rawPercent(rng: Random, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) {
    const byte = int(rng, 0, 255);
    out += /[A-Za-z0-9-]/.test(String.fromCharCode(byte))
      ? String.fromCharCode(byte)
      : `%${byte.toString(16).padStart(2, "0").toUpperCase()}`;
  }
  return out;
}

const JSON_TYPE: [string, string] = ["content-type", "application/json"];
const bearer = (token: string): [string, string] => ["authorization", `Bearer ${token}`];

/** Cuts a valid body short or corrupts one character: never valid JSON. */
function malformedJson(rng: Random): string {
  const valid = JSON.stringify({
    text: "add the Aero trail runner",
    productId: "p-0001",
    quantity: 2,
  });
  switch (int(rng, 0, 4)) {
    case 0:
      return valid.slice(0, int(rng, 0, valid.length - 1));
    case 1:
      return `${valid}${pick(rng, ["}", ",", "x", "]"])}`;
    case 2:
      return valid.replace(":", pick(rng, [";", "=", ""]));
    case 3:
      return `{${junk(rng, int(rng, 1, 40))}`;
    default:
      return pick(rng, ["", " ", "undefined", "NaN", "{'text': 'hi'}", "\u0000", "\ufeff{}x"]);
  }
}

/** The table: a request shape per row, each called with a seeded generator. */
const SHAPES: ReadonlyArray<[string, (rng: Random, ctx: Ctx) => HostileRequest]> = [
  [
    "malformed JSON, a message",
    (rng, { alice }) => ({
      method: "POST",
      target: `/api/sessions/${alice.id}/messages`,
      headers: [bearer(alice.token), JSON_TYPE],
      body: malformedJson(rng),
      statuses: [400],
      codes: ["invalid_json"],
    }),
  ],
  [
    "malformed JSON, a cart item",
    (rng, { alice }) => {
      const add = rng() < 0.5;
      return {
        method: add ? "POST" : "PATCH",
        target: `/api/sessions/${alice.id}/cart/items${add ? "" : "/p-0001"}`,
        headers: [bearer(alice.token), JSON_TYPE],
        body: malformedJson(rng),
        statuses: [400],
        codes: ["invalid_json"],
      };
    },
  ],
  [
    "JSON of the wrong shape",
    (rng, { alice }) => ({
      method: "POST",
      target: `/api/sessions/${alice.id}/${rng() < 0.5 ? "messages" : "cart/items"}`,
      headers: [bearer(alice.token), JSON_TYPE],
      body: JSON.stringify(
        pick(rng, [
          [],
          null,
          42,
          "text",
          { text: int(rng, -5, 5) },
          { text: null },
          { text: ["a"] },
          { text: { toString: "x" } },
          { productId: int(rng, 0, 9), quantity: 1 },
          { productId: "p-0001", quantity: pick(rng, ["2", null, 1.5, 1e308, true, [], {}]) },
          { __proto__: { text: "polluted" } },
          JSON.parse('{"__proto__": {"text": "polluted"}}'),
        ]),
      ),
      statuses: [400],
      codes: ["invalid_request"],
    }),
  ],
  [
    "deeply nested JSON",
    (rng, { alice }) => {
      const depth = int(rng, 100, 7_000);
      return {
        method: "POST",
        target: `/api/sessions/${alice.id}/messages`,
        headers: [bearer(alice.token), JSON_TYPE],
        body: pick(rng, ["[", '{"a":'])
          .repeat(depth)
          .concat("1")
          .concat((rng() < 0.5 ? "]" : "}").repeat(depth)),
        statuses: [400, 413],
        codes: ["invalid_json", "invalid_request", "payload_too_large"],
      };
    },
  ],
  [
    "a body over the limit (content-length)",
    (rng, { alice }) => ({
      method: "POST",
      target: `/api/sessions/${alice.id}/messages`,
      headers: [bearer(alice.token), JSON_TYPE],
      body: JSON.stringify({ text: "x".repeat(int(rng, 16_400, 200_000)) }),
      statuses: [413],
      codes: ["payload_too_large"],
    }),
  ],
  [
    "a body over the limit (chunked, no length)",
    (rng, { alice }) => ({
      method: "POST",
      target: `/api/sessions/${alice.id}/cart/items`,
      headers: [bearer(alice.token), JSON_TYPE],
      body: `{"productId": "${"p".repeat(int(rng, 16_400, 100_000))}", "quantity": 1}`,
      chunked: true,
      statuses: [413],
      codes: ["payload_too_large"],
    }),
  ],
  [
    "a wrong content type",
    (rng, { alice }) => ({
      method: "POST",
      target: `/api/sessions/${alice.id}/${rng() < 0.5 ? "messages" : "cart/items"}`,
      headers: [
        bearer(alice.token),
        [
          "content-type",
          pick(rng, [
            "text/plain",
            "text/html; charset=utf-8",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=----x",
            "application/xml",
            "application/octet-stream",
            "image/png",
            "application/jsonx",
            "json",
          ]),
        ],
      ],
      body: JSON.stringify({
        text: "hello",
        productId: "p-0001",
        quantity: 1,
        size: "US 10",
        color: "Volt",
      }),
      statuses: [415],
      codes: ["unsupported_media_type"],
    }),
  ],
  [
    "a huge text",
    (rng, { alice }) => {
      const unit = pick(rng, ["z", "🛒", "é", "买"]);
      const length = int(rng, 4_001, unit === "z" ? 16_000 : 4_500);
      return {
        method: "POST",
        target: `/api/sessions/${alice.id}/messages`,
        headers: [bearer(alice.token), JSON_TYPE],
        body: JSON.stringify({ text: unit.repeat(length) }),
        statuses: [400, 413],
        codes: ["invalid_request", "payload_too_large"],
      };
    },
  ],
  [
    "text that is not well-formed (lone surrogates, NUL) or blank",
    (rng, { alice }) => ({
      method: "POST",
      target: `/api/sessions/${alice.id}/messages`,
      headers: [bearer(alice.token), JSON_TYPE],
      body: JSON.stringify({
        text: pick(rng, [
          `${junk(rng, 5)}\ud800`,
          `\udfff${junk(rng, 5)}`,
          `tea${"\u0000".repeat(int(rng, 1, 3))}`,
          " \n\t ".repeat(int(rng, 1, 30)),
          "\u200b\u200d\ufeff ".repeat(int(rng, 1, 30)),
          "",
        ]),
      }),
      statuses: [400],
      codes: ["invalid_request", "empty_message"],
    }),
  ],
  [
    "an unknown session id (random bytes, NUL, unicode, very long)",
    (rng, { alice }) => ({
      method: pick(rng, ["GET", "POST"]),
      target: `/api/sessions/${rawPercent(rng, int(rng, 1, rng() < 0.1 ? 2_000 : 40))}${pick(rng, ["", "/cart", "/stream", "/cancel"])}`,
      headers: [bearer(alice.token)],
      statuses: [404],
      codes: ["not_found"],
    }),
  ],
  [
    "another session's token",
    (rng, { alice, bob }) => ({
      method: pick(rng, ["GET", "POST", "PATCH", "DELETE"]),
      target: `/api/sessions/${alice.id}${pick(rng, ["", "/cart", "/stream", "/cancel", "/messages", "/cart/items", "/cart/items/p-0001"])}`,
      headers: [bearer(bob.token), JSON_TYPE],
      body: JSON.stringify({
        text: "hi",
        productId: "p-0001",
        quantity: 1,
        size: "US 10",
        color: "Volt",
      }),
      statuses: [404],
      codes: ["not_found"],
    }),
  ],
  [
    "a token that is no token",
    (rng, { alice }) => ({
      method: "GET",
      target: `/api/sessions/${alice.id}${pick(rng, ["", "/cart", "/stream"])}`,
      headers: [
        [
          "authorization",
          pick(rng, [
            `Bearer ${rawPercent(rng, int(rng, 1, 60))}`,
            `Bearer ${"t".repeat(int(rng, 513, 4_000))}`,
            `Basic ${Buffer.from("a:b").toString("base64")}`,
            "Bearer",
            "Bearer  ",
            `bearer ${alice.token.slice(0, -1)}`,
            `${alice.token}`,
            `Bearer ${alice.token} extra`,
            `Bearer ${alice.token}é`,
          ]),
        ],
      ],
      statuses: [401],
      codes: ["unauthorized"],
    }),
  ],
  [
    "merchant routes with a shopper token",
    (rng, { alice }) => {
      const [method, target] = pick(rng, [
        ["POST", "/api/merchant/sessions"],
        ["GET", `/api/merchant/sessions/${alice.id}`],
        ["GET", `/api/merchant/sessions/${alice.id}/stream`],
        ["POST", `/api/merchant/sessions/${alice.id}/messages`],
        ["POST", `/api/merchant/sessions/${alice.id}/cancel`],
      ] as Array<[string, string]>);
      return {
        method,
        target,
        headers: [bearer(alice.token), JSON_TYPE],
        body: JSON.stringify({ text: "restock everything" }),
        statuses: [403],
        codes: ["forbidden"],
      };
    },
  ],
  [
    "shopper routes with a merchant token",
    (rng, { merchant }) => {
      const [method, suffix] = pick(rng, [
        ["GET", ""],
        ["GET", "/cart"],
        ["POST", "/messages"],
        ["POST", "/cart/items"],
      ] as Array<[string, string]>);
      return {
        method,
        target: `/api/sessions/${merchant.id}${suffix}`,
        headers: [bearer(merchant.token), JSON_TYPE],
        body: JSON.stringify({
          text: "hi",
          productId: "p-0001",
          quantity: 1,
          size: "US 10",
          color: "Volt",
        }),
        statuses: [403],
        codes: ["forbidden"],
      };
    },
  ],
  [
    "a wrong merchant token",
    (rng) => ({
      method: "POST",
      target: "/api/merchant/sessions",
      headers: [bearer(`${MERCHANT_TOKEN.slice(0, int(rng, 0, MERCHANT_TOKEN.length - 1))}x`)],
      statuses: [403],
      codes: ["forbidden"],
    }),
  ],
  [
    "a garbage Last-Event-ID (header or query): the turn replays from its start",
    (rng, { replay }) => {
      const id = pick(rng, [
        rawPercent(rng, int(rng, 1, 300)),
        `${"9".repeat(int(rng, 1, 400))}`,
        ":".repeat(int(rng, 1, 50)),
        "-1",
        "NaN",
        `x:${Number.MAX_SAFE_INTEGER}9`,
      ]);
      const inHeader = rng() < 0.5;
      return {
        method: "GET",
        target: `/api/sessions/${replay.id}/stream${inHeader ? "" : `?lastEventId=${id}`}`,
        headers: [
          bearer(replay.token),
          ...(inHeader ? [["last-event-id", id] as [string, string]] : []),
        ],
        statuses: [200],
      };
    },
  ],
  [
    "odd but legal headers",
    (rng) => ({
      method: pick(rng, ["GET", "HEAD"]),
      target: "/healthz",
      headers: [
        pick(rng, [
          ["x-request-id", rawPercent(rng, int(rng, 1, 200))],
          ["accept", pick(rng, ["application/xml", "*/*;q=abc", "text/event-stream"])],
          ["accept-encoding", "gzip;q=2, br;q=-1, identity;q=nan"],
          ["cookie", `a=${"b".repeat(int(rng, 1, 8_000))}`],
          ["x-forwarded-for", "127.0.0.1, ::1, not-an-ip"],
          ["content-length", "0"],
          ["range", "bytes=-1-2,abc"],
          ["if-none-match", "*"],
        ] as Array<[string, string]>),
      ],
      statuses: [200],
    }),
  ],
  [
    "headers Node's parser refuses",
    (rng) => {
      const header = pick(rng, [
        `X-Bad: a${String.fromCharCode(int(rng, 0, 8))}b`,
        `X-Big: ${"h".repeat(int(rng, 17_000, 40_000))}`,
        "Content-Length: abc",
        "Content-Length: 5\r\nContent-Length: 6",
        "Transfer-Encoding: chunked\r\nContent-Length: 3",
        `Bad Name: x`,
        `X-Folded: a\r\n  b`,
      ]);
      return {
        method: "GET",
        target: "/healthz",
        raw: Buffer.from(
          `GET /healthz HTTP/1.1\r\nHost: localhost\r\n${header}\r\nConnection: close\r\n\r\n`,
          "latin1",
        ),
        statuses: [400, 431],
        codes: ["bad_request", "headers_too_large"],
      };
    },
  ],
  [
    "a malformed request line",
    (rng) => ({
      method: "",
      target: "",
      raw: Buffer.from(
        pick(rng, [
          `FROB / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
          `GET / HTTP/9.9\r\nHost: x\r\nConnection: close\r\n\r\n`,
          `GET  HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
          `${junk(rng, int(rng, 1, 30)).replace(/[\r\n]/g, "")}\r\nConnection: close\r\n\r\n`,
          `GET /a b c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
          `GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n`,
          `GET /healthz HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n`,
          `GET /healthz HTTP/1.1\r\nHost: [::1\r\nConnection: close\r\n\r\n`,
          `GET /assets\\..\\package.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
          `GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
          `GET http://evil.example/healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
          `GET ftp://x/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        ]),
        "latin1",
      ),
      statuses: [200, 400, 404, 505],
      codes: ["bad_request", "not_found"],
    }),
  ],
  [
    "a wrong method",
    (rng, { alice }) => {
      const [method, target] = pick(rng, [
        ["PUT", `/api/sessions/${alice.id}/messages`],
        ["DELETE", "/api/sessions"],
        ["PATCH", `/api/sessions/${alice.id}`],
        ["GET", `/api/sessions/${alice.id}/messages`],
        ["GET", `/api/sessions/${alice.id}/cancel`],
        ["PUT", `/api/sessions/${alice.id}/cart/items/p-0001`],
        ["POST", "/healthz"],
        ["OPTIONS", `/api/sessions/${alice.id}`],
        ["TRACE", "/"],
        ["DELETE", "/api/merchant/sessions"],
      ] as Array<[string, string]>);
      return {
        method,
        target,
        headers: [bearer(alice.token)],
        statuses: [404],
        codes: ["not_found"],
      };
    },
  ],
  [
    "path traversal in static file routes",
    (rng) => ({
      method: pick(rng, ["GET", "HEAD"]),
      target: pick(rng, [
        "/assets/../../../../package.json",
        "/assets/..%2f..%2f..%2f..%2fpackage.json",
        "/assets/%2e%2e/%2e%2e/%2e%2e/%2e%2e/package.json",
        "/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/..%5c..%5c..%5cpackage.json",
        "/assets/..\\..\\..\\package.json",
        "/assets/%00.js",
        "/.env",
        "/assets/.gitignore",
        "//etc/passwd",
        "/assets/%c0%ae%c0%ae/%c0%ae%c0%ae/package.json",
        `/assets/${"../".repeat(int(rng, 1, 20))}etc/passwd`,
        "/index.html/../../package.json",
        `/${rawPercent(rng, int(rng, 1, 60))}`,
      ]),
      statuses: [400, 404],
      codes: ["not_found", "bad_request"],
    }),
  ],
  [
    "a product id that is no product",
    (rng, { alice }) => {
      const method = pick(rng, ["PATCH", "DELETE"]);
      return {
        method,
        target: `/api/sessions/${alice.id}/cart/items/${pick(rng, [rawPercent(rng, int(rng, 1, 30)), "%00", "p-0001%00", "x".repeat(int(rng, 65, 3_000)), "%ED%A0%80"])}`,
        headers: [bearer(alice.token), JSON_TYPE],
        ...(method === "PATCH" ? { body: JSON.stringify({ quantity: 1 }) } : {}),
        statuses: [400, 404, 409],
        codes: ["invalid_request", "unknown_product", "not_in_cart", "not_found"],
      };
    },
  ],
  [
    "a cart item against the rules",
    (rng, { alice }) => ({
      method: "POST",
      target: `/api/sessions/${alice.id}/cart/items`,
      headers: [bearer(alice.token), JSON_TYPE],
      body: JSON.stringify({
        productId: pick(rng, ["p-0001", "p-9999", "p-00\u00001", "\ud800", ""]),
        quantity: pick(rng, [0, -1, 11, 1_000_000, Number.MAX_SAFE_INTEGER]),
      }),
      statuses: [400, 404, 409],
      codes: ["invalid_request", "unknown_product", "quantity_out_of_range"],
    }),
  ],
  [
    "session spam (429 past the per-address limit)",
    () => ({
      method: "POST",
      target: "/api/sessions",
      statuses: [201, 429],
      codes: ["rate_limited"],
    }),
  ],
  [
    "cancel with nothing running, or on another's session",
    (rng, { alice, bob }) => {
      const own = rng() < 0.5;
      return {
        method: "POST",
        target: `/api/sessions/${alice.id}/cancel`,
        headers: [bearer(own ? alice.token : bob.token)],
        statuses: own ? [200] : [404],
        codes: ["not_found"],
      };
    },
  ],
];

/** An answer: status, headers (lower-case names), body. */
interface Answer {
  status: number;
  headers: Map<string, string>;
  body: Buffer<ArrayBufferLike>;
  ms: number;
}

function build(request: HostileRequest): Buffer<ArrayBufferLike> {
  if (request.raw) return request.raw;
  const body = request.body === undefined ? undefined : Buffer.from(request.body, "utf8");
  const lines = [
    `${request.method} ${request.target} HTTP/1.1`,
    "Host: localhost",
    "Connection: close",
  ];
  for (const [name, value] of request.headers ?? []) lines.push(`${name}: ${value}`);
  if (body && request.chunked) lines.push("Transfer-Encoding: chunked");
  else if (body) lines.push(`Content-Length: ${body.length}`);
  const head = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "utf8");
  if (!body) return head;
  if (!request.chunked) return Buffer.concat([head, body]);
  const parts: Buffer[] = [head];
  for (let at = 0; at < body.length; at += 4_096) {
    const piece = body.subarray(at, at + 4_096);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n"));
  }
  parts.push(Buffer.from("0\r\n\r\n"));
  return Buffer.concat(parts);
}

/** Writes the request on a fresh connection and reads the answer until the server closes it. */
function send(port: number, request: HostileRequest): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.setTimeout(MAX_REQUEST_MS, () =>
      socket.destroy(new Error(`no answer within ${MAX_REQUEST_MS} ms`)),
    );
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    // The server may answer (413, 400) and close before reading the whole body: that is fine.
    socket.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "ECONNRESET" || err.code === "EPIPE") return;
      reject(err);
    });
    socket.on("close", () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf("\r\n\r\n");
      if (end < 0) {
        reject(
          new Error(`no HTTP answer (${all.length} bytes): ${all.toString("latin1", 0, 200)}`),
        );
        return;
      }
      const [statusLine = "", ...headerLines] = all.toString("latin1", 0, end).split("\r\n");
      const headers = new Map<string, string>();
      for (const line of headerLines) {
        const colon = line.indexOf(":");
        headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      let body: Buffer<ArrayBufferLike> = all.subarray(end + 4);
      if (headers.get("transfer-encoding") === "chunked") body = unchunk(body);
      resolve({
        status: Number(statusLine.split(" ")[1]),
        headers,
        body,
        ms: performance.now() - started,
      });
    });
    // Written, not ended: a client that half-closes its side is taken by Node as gone.
    socket.write(build(request));
  });
}

function unchunk(data: Buffer<ArrayBufferLike>): Buffer<ArrayBufferLike> {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    const lineEnd = data.indexOf("\r\n", at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(data.toString("latin1", at, lineEnd), 16);
    if (!(size > 0)) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Files outside the web build whose contents must never come back. */
const SECRETS = ['"name": "overlap-monorepo"', "root:x:0:0", "node_modules", "MERCHANT_TOKEN"];

describe("a few thousand hostile requests over real HTTP, then a normal turn", () => {
  let dir = "";
  let shop: RunningShop;
  let ctx: Ctx;
  let finalSession: Session;

  const post = async (path: string, token?: string, body?: unknown) => {
    const response = await fetch(`${shop.url}${path}`, {
      method: "POST",
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return response;
  };
  const newSession = async (): Promise<Session> => {
    const response = await post("/api/sessions");
    expect(response.status).toBe(201);
    return (await response.json()) as Session;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "shop-storm-"));
    shop = await startShop({
      config: loadConfig({ PORT: "0", DATA_DIR: dir, MERCHANT_TOKEN }),
      logger: pino({ level: "silent" }),
      env: {},
      policy: shopPolicy,
      pacing: { fast: true },
    });
    // Sessions first: the storm uses up the per-address session budget on purpose.
    const [alice, bob, replay] = [await newSession(), await newSession(), await newSession()];
    finalSession = await newSession();
    const merchantResponse = await post("/api/merchant/sessions", MERCHANT_TOKEN);
    const merchant = (await merchantResponse.json()) as Session;
    const turn = await post(`/api/sessions/${replay.id}/messages`, replay.token, { text: "hello" });
    expect(turn.status).toBe(200);
    await turn.text(); // one finished turn: its stream replays
    ctx = { alice, bob, merchant, replay };
  }, 60_000);

  afterAll(async () => {
    await shop?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("answers each with its 4xx in the API's error shape, never 5xx, never slowly, without growing", async () => {
    const requests: Array<{ shape: string; request: HostileRequest }> = [];
    for (let variation = 0; variation < VARIATIONS; variation++) {
      for (const [shape, make] of SHAPES) {
        const rng = mulberry32(variation * 1_000 + requests.length);
        requests.push({ shape, request: make(rng, ctx) });
      }
    }
    const failures: string[] = [];
    const byStatus = new Map<number, number>();
    let slowest = 0;
    const run = async (slice: typeof requests) => {
      let next = 0;
      const worker = async () => {
        while (next < slice.length) {
          const { shape, request } = slice[next++]!;
          let answer: Answer;
          try {
            answer = await send(shop.port, request);
          } catch (err) {
            failures.push(`${shape}: ${(err as Error).message} (${describeRequest(request)})`);
            continue;
          }
          slowest = Math.max(slowest, answer.ms);
          byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
          const problem = check(request, answer);
          if (problem) failures.push(`${shape}: ${problem} (${describeRequest(request)})`);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    };

    const started = performance.now();
    const third = Math.floor(requests.length / 3);
    await run(requests.slice(0, third)); // warms up every code path
    gc();
    const heapAfterWarmUp = process.memoryUsage().heapUsed;
    await run(requests.slice(third));
    gc();
    const growth = process.memoryUsage().heapUsed - heapAfterWarmUp;
    const seconds = (performance.now() - started) / 1000;

    console.info(
      `hostile storm: ${requests.length} requests (${SHAPES.length} shapes × ${VARIATIONS}) in ${seconds.toFixed(1)} s, ` +
        `slowest ${slowest.toFixed(0)} ms, heap growth over the last ${requests.length - third}: ` +
        `${(growth / 1024 / 1024).toFixed(1)} MiB, statuses ${JSON.stringify(Object.fromEntries([...byStatus].sort()))}`,
    );
    expect(failures.slice(0, 20)).toEqual([]);
    expect([...byStatus.keys()].filter((s) => s >= 500)).toEqual([]);
    expect(slowest).toBeLessThan(MAX_REQUEST_MS);
    // Rough: heapUsed after gc() also counts compiled code and collector slack (about 8 MiB
    // here; heap snapshots before and after 1,500 more of the largest bodies show no live growth).
    // What it catches: a leak of about 10 KiB or more per request over the last 2,167 requests.
    expect(growth).toBeLessThan(24 * 1024 * 1024);

    // Still serving: health, and a normal turn from start to done.
    expect((await fetch(`${shop.url}/healthz`)).status).toBe(200);
    const turn = await post(`/api/sessions/${finalSession.id}/messages`, finalSession.token, {
      text: "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart and tell me the total",
    });
    expect(turn.status).toBe(200);
    const events = await readEvents(turn);
    expect(events.some((e) => e.event.type === "error")).toBe(false);
    expect(events.at(-1)?.event).toMatchObject({ type: "done", stopReason: "end_turn" });
    const cart = (await (
      await fetch(`${shop.url}/api/sessions/${finalSession.id}/cart`, {
        headers: { authorization: `Bearer ${finalSession.token}` },
      })
    ).json()) as { cart: { lines: unknown[] } };
    expect(cart.cart.lines.length).toBeGreaterThan(0);
  }, 180_000);
});

function describeRequest(request: HostileRequest): string {
  return request.raw
    ? JSON.stringify(request.raw.toString("latin1", 0, 120))
    : `${request.method} ${request.target.slice(0, 120)}`;
}

/** Why `answer` is wrong for `request`, or undefined when it is right. */
function check(request: HostileRequest, answer: Answer): string | undefined {
  if (!request.statuses.includes(answer.status)) {
    return `status ${answer.status}, expected ${request.statuses.join("/")}: ${answer.body.toString("utf8", 0, 200)}`;
  }
  const text = answer.body.toString("utf8");
  for (const secret of SECRETS) {
    if (text.includes(secret)) return `the answer holds ${JSON.stringify(secret)}`;
  }
  if (answer.status < 400 || request.method === "HEAD") return undefined;
  if (!answer.headers.get("content-type")?.includes("application/json")) {
    return `an error without a JSON body (${answer.headers.get("content-type")})`;
  }
  let error: unknown;
  try {
    error = (JSON.parse(text) as { error?: unknown }).error;
  } catch {
    return `an error body that is not JSON: ${text.slice(0, 200)}`;
  }
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code !== "string" || typeof message !== "string" || message === "") {
    return `not the error shape: ${text.slice(0, 200)}`;
  }
  if (request.codes && !request.codes.includes(code)) {
    return `code ${code}, expected ${request.codes.join("/")}: ${message}`;
  }
  if (answer.status === 429 && !/^\d+$/.test(answer.headers.get("retry-after") ?? "")) {
    return "a 429 without retry-after";
  }
  return undefined;
}
