/**
 * The example's HTTP API on node:http (see README.md): send a message, follow a chat's turn as
 * SSE (resumable with Last-Event-ID on any instance), read the conversation and the notes,
 * cancel a turn. Every error is JSON `{ error: { code, message } }`.
 */

import { Readable } from "node:stream";
import { sseResponseBody } from "overlap-runtime";
import { TurnRunningError } from "overlap-runtime/durable";

const CHAT_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_BODY_BYTES = 64 * 1024;
const MAX_TEXT_CHARS = 8_000;

class HttpError extends Error {
  constructor(status, code, message, headers = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/**
 * The request handler. `app`: `{ host, store, pool, notesTable, label, draining() }`; the
 * returned `streams` are the open event streams (shutdown ends them).
 */
export function createHandler(app) {
  const streams = new Set();
  const handle = async (req, res) => {
    try {
      await route(app, streams, req, res);
    } catch (error) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const known = error instanceof HttpError;
      if (!known) console.error("request failed:", error);
      const status = known ? error.status : 500;
      res.writeHead(status, {
        "content-type": "application/json",
        ...(known ? error.headers : {}),
      });
      res.end(
        JSON.stringify({
          error: known
            ? { code: error.code, message: error.message, ...error.details }
            : { code: "internal", message: "Something went wrong." },
        }),
      );
    }
  };
  return { handle, streams };
}

async function route(app, streams, req, res) {
  const url = new URL(req.url ?? "/", "http://localhost");
  const parts = url.pathname.split("/").filter(Boolean);
  if (url.pathname === "/healthz" && req.method === "GET") {
    return json(res, app.draining() ? 503 : 200, {
      ok: !app.draining(),
      instance: app.host.holder,
      model: app.label,
    });
  }
  if (parts[0] !== "chats" || parts.length < 2 || parts.length > 3) {
    throw new HttpError(404, "not_found", "No such route.");
  }
  let chatId;
  try {
    chatId = decodeURIComponent(parts[1]);
  } catch {
    chatId = ""; // malformed escapes: not a chat id
  }
  if (!CHAT_ID.test(chatId)) {
    throw new HttpError(400, "bad_chat_id", "A chat id is 1 to 64 letters, digits, - or _.");
  }
  const action = `${req.method} ${parts[2] ?? ""}`;
  switch (action) {
    case "POST messages":
      return postMessage(app, chatId, req, res);
    case "GET events":
      return streamEvents(app, streams, chatId, url, req, res);
    case "GET ":
      return getChat(app, chatId, res);
    case "GET notes":
      return getNotes(app, chatId, res);
    case "POST cancel":
      return cancel(app, chatId, res);
    default:
      throw new HttpError(405, "method_not_allowed", `${req.method} is not allowed here.`);
  }
}

/** POST /chats/:id/messages `{ "text": "..." }`: 202 with the turn, or 409 while one runs. */
async function postMessage(app, chatId, req, res) {
  if (app.draining()) {
    throw new HttpError(503, "shutting_down", "This instance is stopping.", { "retry-after": "1" });
  }
  const body = await readJson(req);
  const text = body?.text;
  if (typeof text !== "string" || text.trim() === "" || text.length > MAX_TEXT_CHARS) {
    throw new HttpError(400, "bad_message", `"text" must be 1 to ${MAX_TEXT_CHARS} characters.`);
  }
  let turn;
  try {
    turn = await app.host.start({ chatId, message: text });
  } catch (error) {
    if (!(error instanceof TurnRunningError)) throw error;
    const retry = new HttpError(409, "turn_running", "A turn of this chat is running.", {
      "retry-after": String(Math.max(1, Math.ceil(error.retryAfterMs / 1000))),
    });
    retry.details = { retryAfterMs: error.retryAfterMs };
    throw retry;
  }
  app.track(turn);
  const events = `/chats/${encodeURIComponent(chatId)}/events`;
  return json(res, 202, { chatId, turnId: turn.turnId, events }, { location: events });
}

/** GET /chats/:id/events: the chat's latest turn as SSE, after Last-Event-ID when given. */
async function streamEvents(app, streams, chatId, url, req, res) {
  const lastEventId = req.headers["last-event-id"] ?? url.searchParams.get("lastEventId");
  if (!(await app.store.events.latest(chatId))) {
    throw new HttpError(404, "unknown_chat", "This chat has no turn yet.");
  }
  const reading = new AbortController();
  const body = sseResponseBody(
    (signal) => {
      signal.addEventListener("abort", () => reading.abort(), { once: true });
      return app.host.read(chatId, lastEventId, reading.signal);
    },
    { heartbeatMs: 15_000, retryMs: 1_000 },
  );
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    "x-accel-buffering": "no",
  });
  const stream = { end: () => reading.abort() };
  streams.add(stream);
  const readable = Readable.fromWeb(body);
  res.on("close", () => {
    reading.abort();
    readable.destroy();
    streams.delete(stream);
  });
  readable.on("error", () => res.destroy());
  readable.pipe(res);
}

/** GET /chats/:id: the stored conversation and its version. */
async function getChat(app, chatId, res) {
  const [{ messages, version }, latest, lease] = await Promise.all([
    app.store.conversations.loadVersioned(chatId),
    app.store.events.latest(chatId),
    app.store.leases.current(chatId),
  ]);
  if (version === 0 && !latest) throw new HttpError(404, "unknown_chat", "No such chat.");
  const running = lease !== undefined && lease.expiresAt > Date.now();
  return json(res, 200, { chatId, version, running, messages });
}

/** GET /chats/:id/notes: the rows `save_note` wrote for the chat. */
async function getNotes(app, chatId, res) {
  const { rows } = await app.pool.query(
    `SELECT id, idempotency_key AS "idempotencyKey", text FROM ${app.notesTable} WHERE chat_id = $1 ORDER BY id`,
    [chatId],
  );
  return json(res, 200, { chatId, notes: rows.map((row) => ({ ...row, id: Number(row.id) })) });
}

/** POST /chats/:id/cancel: stops the chat's running turn, wherever it runs. */
async function cancel(app, chatId, res) {
  if (!(await app.store.events.latest(chatId))) {
    throw new HttpError(404, "unknown_chat", "This chat has no turn yet.");
  }
  const cancelled = await app.host.cancel(chatId, "cancelled", { waitMs: 5_000 });
  return json(res, 200, { chatId, cancelled });
}

async function readJson(req) {
  const type = req.headers["content-type"] ?? "";
  if (!type.startsWith("application/json")) {
    throw new HttpError(400, "bad_content_type", "Send application/json.");
  }
  let size = 0;
  const chunks = [];
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, "too_large", "The body is too large.");
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpError(400, "bad_json", "The body is not valid JSON.");
  }
}

function json(res, status, value, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(value));
}
