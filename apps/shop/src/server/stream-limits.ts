/**
 * Bounds on the SSE streams open at once, so that one token (or one address) cannot pile up
 * streams until the instance runs out of memory or sockets: at most so many per chat, per shopper
 * (all chats of one shopper together; a merchant session has no shopper and counts per chat) and
 * per client address. Past a bound the request is answered 429 with `Retry-After` before any work
 * is done (a refused `POST .../messages` starts no turn).
 *
 * The counts live in this process's memory on purpose: what they protect is this instance's
 * memory and sockets, so they bound what this instance holds whatever the others do (with
 * several instances a client may hold up to the bound on each).
 *
 * A stream counts from the moment its request is granted a permit until its response ends: the
 * body's end, an error, or the client going away (the Node adapter cancels the body when the
 * socket closes or a write fails). A permit whose request ends in anything but a stream (an
 * error answer, a 204) is given back by {@link StreamLimits.middleware} when the handler is done.
 */

import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "./app-env.js";
import { HttpError } from "./http-error.js";
import { clientAddress } from "./rate-limit.js";
import { sseBodyOf } from "./sse-response.js";

/** The bounds, each a number of streams open at once. */
export interface StreamLimitSettings {
  /** Streams of one chat (one session). */
  readonly perChat: number;
  /** Streams of all the chats of one shopper. */
  readonly perShopper: number;
  /** Streams from one client address (as {@link clientAddress} reads it). */
  readonly perAddress: number;
}

/** The defaults of {@link StreamLimitSettings}. */
export const DEFAULT_STREAM_LIMITS: StreamLimitSettings = {
  perChat: 8,
  perShopper: 32,
  perAddress: 64,
};

/** What a refused stream's `retry-after` says, in seconds. */
export const STREAM_RETRY_AFTER_S = 5;

/** Who a stream is counted against. */
export interface StreamKeys {
  readonly chat: string;
  /** The chat's shopper; absent for a merchant session. */
  readonly shopper?: string | undefined;
  readonly address: string;
}

/** Which bound refused a stream. */
export type StreamBound = "chat" | "shopper" | "address";

/** A granted stream. */
export interface StreamPermit {
  readonly ok: true;
  /** Gives the stream's place back; later calls do nothing. */
  readonly release: () => void;
}

/** A refused stream: the bound that is reached and its value. */
export interface StreamRefusal {
  readonly ok: false;
  readonly bound: StreamBound;
  readonly max: number;
}

const WHAT: Record<StreamBound, string> = {
  chat: "this chat",
  shopper: "this shopper's chats",
  address: "this address",
};

/** The open streams of one process, counted per chat, per shopper and per address. */
export class StreamLimits {
  readonly #limits: StreamLimitSettings;
  readonly #open: Record<StreamBound, Map<string, number>> = {
    chat: new Map(),
    shopper: new Map(),
    address: new Map(),
  };
  #total = 0;
  /** Permits taken by a request and not yet known to stream (see {@link middleware}). */
  readonly #taken = new WeakMap<Context, StreamPermit>();
  /** Requests that went through {@link middleware}: only those may {@link acquire}. */
  readonly #guarded = new WeakSet<Context>();

  constructor(limits: Partial<StreamLimitSettings> = {}) {
    this.#limits = { ...DEFAULT_STREAM_LIMITS, ...limits };
  }

  /** The bounds in force. */
  get limits(): StreamLimitSettings {
    return this.#limits;
  }

  /** Streams open now in this process. */
  get openCount(): number {
    return this.#total;
  }

  /** Streams open now for one key of one bound (0 when none). */
  openFor(bound: StreamBound, key: string): number {
    return this.#open[bound].get(key) ?? 0;
  }

  /**
   * Takes a place for one stream of `keys` when every bound has room, else says which bound is
   * reached; counts nothing then. The permit must be released exactly when the stream ends.
   */
  tryAcquire(keys: StreamKeys): StreamPermit | StreamRefusal {
    const entries: Array<[StreamBound, string, number]> = [
      ["chat", keys.chat, this.#limits.perChat],
      ["address", keys.address, this.#limits.perAddress],
    ];
    if (keys.shopper !== undefined)
      entries.push(["shopper", keys.shopper, this.#limits.perShopper]);
    for (const [bound, key, max] of entries) {
      if (this.openFor(bound, key) >= max) return { ok: false, bound, max };
    }
    for (const [bound, key] of entries) {
      const counts = this.#open[bound];
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    this.#total++;
    let held = true;
    return {
      ok: true,
      release: () => {
        if (!held) return;
        held = false;
        this.#total--;
        for (const [bound, key] of entries) {
          const counts = this.#open[bound];
          const left = (counts.get(key) ?? 1) - 1;
          // No entry is kept for a key without streams: the maps hold only what is open.
          if (left <= 0) counts.delete(key);
          else counts.set(key, left);
        }
      },
    };
  }

  /**
   * The permit of the request's stream: its session (set by `requireSession`) and client
   * address. Released by {@link middleware} unless the request answers with a stream, whose
   * end must then release it (`sseResponse(..., { onClose: permit.release })`).
   * @throws HttpError 429 `too_many_streams` with `retry-after` when a bound is reached.
   */
  acquire(c: Context<AppEnv>): StreamPermit {
    if (!this.#guarded.has(c)) {
      throw new Error("StreamLimits.acquire needs StreamLimits.middleware in front of the route.");
    }
    const session = c.get("session");
    const granted = this.tryAcquire({
      chat: session.id,
      shopper: session.kind === "shopper" ? (session.shopperId ?? session.id) : undefined,
      address: clientAddress(c),
    });
    if (!granted.ok) {
      c.header("retry-after", String(STREAM_RETRY_AFTER_S));
      throw new HttpError(
        429,
        "too_many_streams",
        `Too many open streams for ${WHAT[granted.bound]} (at most ${granted.max} at once). ` +
          `Close one, or try again in ${STREAM_RETRY_AFTER_S} s.`,
      );
    }
    this.#taken.get(c)?.release(); // one stream per request: a second acquire replaces the first
    this.#taken.set(c, granted);
    return granted;
  }

  /**
   * Gives back the permit a request took ({@link acquire}) once its handler is done, unless the
   * answer is a stream (then the stream's end releases it). Every request that may acquire must
   * pass through it.
   */
  readonly middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    this.#guarded.add(c);
    try {
      await next();
    } finally {
      const permit = this.#taken.get(c);
      this.#taken.delete(c);
      if (permit && !isStream(c.res)) permit.release();
    }
  };
}

function isStream(res: Response | undefined): boolean {
  if (res !== undefined && sseBodyOf(res) !== undefined) return true;
  return (
    res !== undefined &&
    res.status === 200 &&
    res.body !== null &&
    (res.headers.get("content-type") ?? "").startsWith("text/event-stream")
  );
}
