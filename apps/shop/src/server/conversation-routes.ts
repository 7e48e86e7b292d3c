/**
 * The routes one agent's sessions share (the shopper and the merchant use the same ones under
 * their own prefix): read the session and its conversation, send a message (starts a turn and
 * streams it), resume the stream, cancel. A turn is independent of the connection that started
 * it: a browser that leaves only stops reading; `cancel` is what stops a turn.
 */

import type { Hono } from "hono";
import type { ModelClient } from "overlap-runtime";
import type { Logger } from "pino";
import { z } from "zod";
import type { ShopAgent } from "../agents/shop-agent.js";
import type { SessionKind, ShopStore } from "../db/shop-store.js";
import type { TurnBody } from "../turns/turn-body.js";
import type { AppEnv } from "./app-env.js";
import { withCartNote } from "./cart-note.js";
import { isEmptyMessage } from "./empty-message.js";
import { HttpError } from "./http-error.js";
import { FixedWindowLimiter, type RateCounter } from "./rate-limit.js";
import { isStorableText, readJson } from "./read-json.js";
import { requireSession } from "./require-session.js";
import { sseResponse } from "./sse-response.js";
import type { StreamLimits } from "./stream-limits.js";
import type { TurnRegistry } from "./turn-registry.js";

/** What a refused turn's `retry-after` says while the server shuts down (a restart's time). */
const SHUTDOWN_RETRY_AFTER_S = 5;

/** The longest message a user may send, in characters. */
export const MAX_MESSAGE_CHARS = 4_000;

/** The refusal of a message with nothing visible in it (see {@link isEmptyMessage}). */
const emptyMessage = () =>
  new HttpError(
    400,
    "empty_message",
    "The message is empty: write something to send (spaces and invisible characters do not count).",
  );

const MessageBody = z.object({
  text: z
    .string()
    // Characters as people count them (code points), not UTF-16 units: an emoji is one.
    .refine(
      (text) => [...text].length <= MAX_MESSAGE_CHARS,
      `must be at most ${MAX_MESSAGE_CHARS} characters`,
    )
    // Stored and sent to the model on every later turn: one bad character would poison them all.
    .refine(isStorableText, "must be well-formed text (no lone surrogate, no NUL character)"),
});

/** What the routes need. */
export interface ConversationRouteDeps {
  store: ShopStore;
  model: ModelClient;
  turns: TurnRegistry;
  logger: Logger;
  heartbeatMs?: number;
  /** True once the server is shutting down: no new turns. */
  draining: () => boolean;
  /** Turns one session may start per minute. */
  turnsPerMinute: number;
  /** Where the turn limit counts (shared through Redis with `REDIS_URL`); default this process. */
  rateCounter?: RateCounter;
  /** The turn runner (`OVERLAP_PATH`, chosen by `turnBodyFor`). */
  turnBody: TurnBody;
  /** Bounds on the open SSE streams (its `middleware` must run in front of these routes). */
  streams: StreamLimits;
}

/** Registers the conversation routes of `agent` under `base` (e.g. `/api/sessions`). */
export function registerConversationRoutes(
  app: Hono<AppEnv>,
  base: string,
  kind: SessionKind,
  agent: ShopAgent,
  deps: ConversationRouteDeps,
): void {
  const { store, turns } = deps;
  const auth = requireSession(store, kind);
  const sse = deps.heartbeatMs === undefined ? {} : { heartbeatMs: deps.heartbeatMs };

  app.get(`${base}/:id`, auth, async (c) => {
    const session = c.get("session");
    // While a turn runs here its round is in flight, not lost: show what is stored. Otherwise
    // show the conversation as the next turn will continue it, with a crashed round restored.
    // (The turn may run on another instance: `find` knows with REDIS_URL.)
    const turn = await turns.find(session.id);
    const running = await turns.busy(session.id);
    const messages = running
      ? await store.conversations.load(session.id)
      : (await store.durable.recover(session.id)).messages;
    // What each turn drew besides its messages (cards, approvals, round timings), by the
    // position of the message that started it: a reload shows the turns as they were shown.
    const display = await store.conversations.loadTurnDisplays(session.id);
    return c.json({
      session: { id: session.id, kind: session.kind, createdAt: session.createdAt },
      messages,
      display,
      turn: { running, lastTurnId: turn?.turnId ?? null },
    });
  });

  // Counts only turns about to start: a refused request (400, 409, 503) costs nothing.
  const turnLimit = new FixedWindowLimiter({
    limit: deps.turnsPerMinute,
    what: "messages in this conversation",
    name: "turns",
    ...(deps.rateCounter ? { counter: deps.rateCounter } : {}),
  });
  app.post(`${base}/:id/messages`, auth, async (c) => {
    const { text } = await readJson(c, MessageBody);
    if (isEmptyMessage(text)) throw emptyMessage();
    // A refused stream (429) starts no turn; a request that ends without streaming gives it back.
    const stream = deps.streams.acquire(c);
    if (deps.draining()) {
      c.header("retry-after", String(SHUTDOWN_RETRY_AFTER_S));
      throw new HttpError(503, "shutting_down", "The server is shutting down. Try again shortly.");
    }
    const sessionId = c.get("session").id;
    // The chat is claimed before anything of it is read or written: of two messages at once, on
    // this instance or any other sharing the database, exactly one starts a turn.
    const claimed = await turns.claim(sessionId);
    if (!claimed.ok) {
      c.header("retry-after", String(Math.ceil(claimed.retryAfterMs / 1000)));
      throw new HttpError(
        409,
        "turn_running",
        "A reply is still being written in this session. Wait for it or cancel it first.",
      );
    }
    const { claim } = claimed;
    let log: ReturnType<TurnRegistry["start"]>;
    try {
      await turnLimit.take(c, sessionId);
      // A shopper's cart may have changed in another chat since this one looked: say how it is.
      const turnText = kind !== "shopper" ? text : await withCartNote(store, sessionId, text);
      const body = deps.turnBody({
        store,
        model: deps.model,
        agent,
        sessionId,
        text: turnText,
        log: deps.logger,
      });
      log = turns.start(sessionId, body, claim);
    } catch (error) {
      await claim.release();
      throw error;
    }
    if (!log) {
      await claim.release();
      throw new HttpError(
        409,
        "turn_running",
        "A reply is still being written in this session. Wait for it or cancel it first.",
      );
    }
    return sseResponse(log, undefined, { ...sse, onClose: stream.release });
  });

  app.get(`${base}/:id/stream`, auth, async (c) => {
    const stream = deps.streams.acquire(c);
    const log = await turns.find(c.get("session").id);
    if (!log) return c.body(null, 204);
    const lastEventId = c.req.header("last-event-id") ?? c.req.query("lastEventId");
    return sseResponse(log, lastEventId?.slice(0, 200), { ...sse, onClose: stream.release });
  });

  app.post(`${base}/:id/cancel`, auth, async (c) => {
    const cancelled = await turns.cancel(c.get("session").id);
    return c.json({ cancelled });
  });
}
