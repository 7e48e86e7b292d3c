/**
 * Turns shared by every instance through Redis (`REDIS_URL`), so `GET .../stream` with a
 * `Last-Event-ID` on any instance resumes a turn that runs on another, live.
 *
 * Per turn, three keys under the prefix:
 * - `turn:<turnId>`, a stream: event `<seq>` of the turn is the entry `<seq>-0` (field `e`, the
 *   event's JSON), so a `Last-Event-ID` `<turnId>:<seq>` is an XREAD position as it is, an entry is
 *   written once whatever is retried (XADD refuses an id not above the last), and ids continue the
 *   in-memory log's exactly. The turn's end is the entry `<last seq>-1` (field `end`).
 * - `turn:<turnId>:alive`, a lease the running turn renews; gone without an end entry means the
 *   instance running it died: its readers stop instead of waiting for the stream to expire.
 * - `session:<sessionId>:turn`, a hash: the session's current `turnId` and whether it `running`.
 *
 * Every key expires `retainMs` after the turn's last write, as the in-memory log is dropped
 * `retainMs` after its turn ended; the stream is also capped (approximately) at
 * {@link MAX_STREAM_EVENTS} entries. The copy to Redis follows the in-memory log, which the
 * instance's own readers read: while Redis is down the turn goes on and is served here, and the
 * copy is retried from the first event Redis has not acknowledged until it has them all.
 * A reader of another instance's turn holds a connection of its own (XREAD BLOCK) while it reads.
 *
 * The session's hash also names the `instance` that runs the turn: an approval or a cancel that
 * reaches another instance is published on `instance:<id>`, where the running one subscribes, and
 * its answer is pushed to `reply:<request id>`, which the asker awaits with BLPOP (15 s at most).
 */

import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import type { Redis } from "ioredis";
import type { ApprovalDecision, DecideResult, LoggedEvent, TurnEventLog } from "overlap-runtime";
import type { Logger } from "pino";
import { crashEnd, seqAfter } from "./crashed-turn.js";
import { blockingConnection } from "./redis-connection.js";
import type { SharedTurnLogs, TurnControl, TurnView } from "./turn-registry.js";

/** Approximate cap of a turn's stream (a bound against a runaway turn, far above a real one). */
export const MAX_STREAM_EVENTS = 100_000;
/** How long a running turn's lease lasts without renewal (renewed every third of it). */
const LEASE_MS = 15_000;
/** How long a reader's XREAD blocks before it checks that the turn's instance still lives. */
const BLOCK_MS = 5_000;
/** Events copied to Redis in one round trip at most. */
const BATCH = 500;
/** Wait before copying again after Redis failed. */
const RETRY_MS = 500;
/** How long {@link RedisTurnLogs.close} waits for the copies to finish. */
const CLOSE_WAIT_MS = 3_000;

/** How long an approval or a cancel waits for the instance that runs the turn to answer. */
const ASK_TIMEOUT_S = 15;

/**
 * The current turn of a session, its lease alive or not, and the instance that runs it:
 * `[turnId, running, alive, instance]`.
 */
const FIND = `
local turn = redis.call('HMGET', KEYS[1], 'turnId', 'running', 'instance')
if not turn[1] then return nil end
return {turn[1], turn[2] or '0', redis.call('EXISTS', ARGV[1] .. turn[1] .. ':alive'), turn[3] or ''}
`;

/** Marks the session's turn ended, unless a newer turn replaced it meanwhile. */
const END = `
if redis.call('HGET', KEYS[1], 'turnId') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'running', '0')
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1
`;

/** Options of {@link RedisTurnLogs}. */
export interface RedisTurnLogsOptions {
  /** Starts every key (`REDIS_KEY_PREFIX`). */
  keyPrefix: string;
  /** How long a turn's events stay readable after its last one (as the in-memory retention). */
  retainMs?: number;
  logger: Logger;
  /** Test knob: the running turn's lease (default 15 s). */
  leaseMs?: number;
  /** Test knob: how long a reader blocks before checking the lease (default 5 s). */
  blockMs?: number;
}

/** {@link SharedTurnLogs} in Redis Streams. */
export class RedisTurnLogs implements SharedTurnLogs {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #retainMs: number;
  readonly #logger: Logger;
  readonly #leaseMs: number;
  readonly #blockMs: number;
  readonly #copies = new Set<Promise<void>>();
  readonly #stop = stopController();
  /** This process, as other instances address it (approvals, cancels). */
  readonly #instance = randomUUID();
  #subscriber: Redis | undefined;

  constructor(redis: Redis, options: RedisTurnLogsOptions) {
    this.#redis = redis;
    this.#prefix = options.keyPrefix;
    this.#retainMs = options.retainMs ?? 15 * 60_000;
    this.#logger = options.logger;
    this.#leaseMs = options.leaseMs ?? LEASE_MS;
    this.#blockMs = options.blockMs ?? BLOCK_MS;
  }

  #streamKey(turnId: string): string {
    return `${this.#prefix}turn:${turnId}`;
  }

  #aliveKey(turnId: string): string {
    return `${this.#prefix}turn:${turnId}:alive`;
  }

  #sessionKey(sessionId: string): string {
    return `${this.#prefix}session:${sessionId}:turn`;
  }

  async publish(sessionId: string, log: TurnEventLog): Promise<void> {
    let published = await this.#announce(sessionId, log.turnId).then(
      () => true,
      (err: unknown) => {
        this.#logger.warn(
          { err, sessionId, turnId: log.turnId },
          "turn not shared through Redis yet: it runs here, other instances see it once Redis is back",
        );
        return false;
      },
    );
    const copy = this.#copy(sessionId, log, async () => {
      if (!published) {
        await this.#announce(sessionId, log.turnId);
        published = true;
      }
    }).then(
      () => this.#end(sessionId, log),
      (err: unknown) =>
        this.#logger.error({ err, turnId: log.turnId }, "turn copy to Redis failed"),
    );
    this.#copies.add(copy);
    void copy.finally(() => this.#copies.delete(copy));
  }

  /** Makes the turn findable: the session's current turn, running, its lease taken. */
  async #announce(sessionId: string, turnId: string): Promise<void> {
    const key = this.#sessionKey(sessionId);
    checked(
      await this.#redis
        .multi()
        .hset(key, "turnId", turnId, "running", "1", "instance", this.#instance)
        .pexpire(key, this.#retainMs)
        .set(this.#aliveKey(turnId), "1", "PX", this.#leaseMs)
        .exec(),
    );
  }

  /**
   * Copies the log's events to the stream as they are logged (what is logged meanwhile goes in
   * one round trip), retrying after a failure from the first event not acknowledged, until the
   * log is closed and all of it is copied, or {@link close} gives up.
   */
  async #copy(
    sessionId: string,
    log: TurnEventLog,
    beforeEach: () => Promise<void>,
  ): Promise<void> {
    const key = this.#streamKey(log.turnId);
    const renew = setInterval(() => {
      this.#redis
        .multi()
        .set(this.#aliveKey(log.turnId), "1", "PX", this.#leaseMs)
        .pexpire(key, this.#retainMs)
        .pexpire(this.#sessionKey(sessionId), this.#retainMs)
        .exec()
        .catch(() => {}); // an outage is logged by the connection
    }, this.#leaseMs / 3);
    renew.unref();
    try {
      const events = log.read(undefined, this.#stop.signal)[Symbol.asyncIterator]();
      let pending: LoggedEvent[] = [];
      let acknowledged = 0;
      let ended = false;
      while (!this.#stop.signal.aborted) {
        if (pending.length === 0) {
          if (ended) return;
          const next = await events.next();
          if (next.done) {
            ended = true;
            continue;
          }
          pending.push(next.value);
        }
        // Whatever is logged already joins this round trip (next() does not wait for those).
        while (!ended && acknowledged + pending.length < log.size && pending.length < BATCH) {
          const next = await events.next();
          if (next.done) ended = true;
          else pending.push(next.value);
        }
        try {
          await beforeEach();
          await this.#append(key, pending);
          acknowledged += pending.length;
          pending = [];
        } catch {
          // Logged by the connection; the log keeps everything, so retry the same events later.
          await sleep(RETRY_MS, this.#stop.signal);
        }
      }
    } finally {
      clearInterval(renew);
    }
  }

  /** XADDs `events` with their own sequence numbers as ids; an id already there is no error. */
  async #append(key: string, events: readonly LoggedEvent[]): Promise<void> {
    // A pipeline, not MULTI: one connection keeps the order, and no QUEUED answer per event.
    const batch = this.#redis.pipeline();
    for (const { id, event } of events) {
      batch.xadd(
        key,
        "MAXLEN",
        "~",
        String(MAX_STREAM_EVENTS),
        `${seqOf(id)}-0`,
        "e",
        JSON.stringify(event),
      );
    }
    batch.pexpire(key, this.#retainMs);
    const results = await batch.exec();
    if (!results) throw new Error("Redis discarded the batch");
    for (const [err] of results) {
      // Written by an earlier try whose answer was lost: once is enough.
      if (err && !/equal or smaller/i.test(err.message)) throw err;
    }
  }

  /** The turn's end: the end entry, the session's turn no longer running, the lease released. */
  async #end(sessionId: string, log: TurnEventLog): Promise<void> {
    if (!log.closed) return; // stopped by close() before the turn ended
    const key = this.#streamKey(log.turnId);
    while (!this.#stop.signal.aborted) {
      try {
        const results = await this.#redis
          .multi()
          .xadd(key, `${log.size}-1`, "end", "1")
          .pexpire(key, this.#retainMs)
          .eval(END, 1, this.#sessionKey(sessionId), log.turnId, String(this.#retainMs))
          .del(this.#aliveKey(log.turnId))
          .exec();
        if (!results) throw new Error("Redis discarded the transaction");
        for (const [err] of results) {
          if (err && !/equal or smaller/i.test(err.message)) throw err;
        }
        return;
      } catch {
        await sleep(RETRY_MS, this.#stop.signal);
      }
    }
  }

  async #current(sessionId: string) {
    const found = (await this.#redis.eval(
      FIND,
      1,
      this.#sessionKey(sessionId),
      `${this.#prefix}turn:`,
    )) as [string, string, number, string] | null;
    if (!found) return undefined;
    const [turnId, running, alive, instance] = found;
    return { turnId, running: running === "1" && alive === 1, instance };
  }

  async find(sessionId: string): Promise<TurnView | undefined> {
    const found = await this.#current(sessionId);
    if (!found) return undefined;
    const { turnId, running } = found;
    return {
      turnId,
      running,
      read: (lastEventId, signal) => this.#read(turnId, lastEventId, signal),
    };
  }

  /** A turn's events from the stream after `lastEventId`, then live ones until its end entry. */
  async *#read(
    turnId: string,
    lastEventId: string | null | undefined,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<LoggedEvent> {
    const key = this.#streamKey(turnId);
    const conn = await blockingConnection(this.#redis, this.#blockMs + 5_000);
    const leave = () => conn.disconnect(); // ends a blocked XREAD at once
    signal?.addEventListener("abort", leave, { once: true });
    try {
      let after = seqAfter(lastEventId, turnId);
      if (after > 0) {
        // As the in-memory log: a position past the end reads from the end.
        const last = await conn.xrevrange(key, "+", "-", "COUNT", 1);
        after = Math.min(after, last[0] ? seqOfEntry(last[0][0]) : 0);
      }
      let cursor = `${after}-0`;
      let last = after;
      let roundCount = 0;
      let quietOnce = false;
      while (!signal?.aborted) {
        const answer = await conn.xread(
          "COUNT",
          BATCH,
          "BLOCK",
          this.#blockMs,
          "STREAMS",
          key,
          cursor,
        );
        const entries = answer?.[0]?.[1] ?? [];
        if (entries.length === 0) {
          // Quiet: the turn may wait for an approval, or its instance may have died (no lease).
          if (quietOnce || (await conn.exists(this.#aliveKey(turnId))) === 0) {
            if (quietOnce) {
              // No end entry and no lease: the instance died mid-turn. Its readers are told so,
              // with the ids the turn's next events would have had.
              yield* crashEnd(turnId, last, roundCount);
              return;
            }
            quietOnce = true; // one more read: the end may have been written just before
          }
          continue;
        }
        for (const [id, fields] of entries) {
          cursor = id;
          if (id.endsWith("-1") || fields[0] === "end") return;
          const event = JSON.parse(fields[1] ?? "null") as LoggedEvent["event"];
          last = seqOfEntry(id);
          if (event.type === "round-start") roundCount = Math.max(roundCount, event.round);
          yield { id: `${turnId}:${last}`, event };
          if (signal?.aborted) return;
        }
      }
    } catch (error) {
      if (signal?.aborted) return; // the reader left: its connection was closed on purpose
      throw error;
    } finally {
      signal?.removeEventListener("abort", leave);
      conn.disconnect();
    }
  }

  serve(control: TurnControl): void {
    const subscriber = this.#redis.duplicate({ enableAutoPipelining: false });
    this.#subscriber = subscriber;
    subscriber.on("error", () => {}); // outages are logged by the shared connection
    subscriber.on("message", (_channel: string, message: string) => {
      void this.#answer(control, message);
    });
    // Resubscribed by the client after a reconnection.
    subscriber
      .connect()
      .then(() => subscriber.subscribe(this.#channel(this.#instance)))
      .catch((err: unknown) =>
        this.#logger.error({ err }, "cannot take approvals and cancels from other instances"),
      );
  }

  #channel(instance: string): string {
    return `${this.#prefix}instance:${instance}`;
  }

  /** Runs another instance's request and pushes the answer where it waits for it. */
  async #answer(control: TurnControl, message: string): Promise<void> {
    try {
      const request = JSON.parse(message) as AskRequest;
      const answer =
        request.op === "decide"
          ? control.decide(request.sessionId, request.callId, request.decision)
          : await control.cancel(request.sessionId);
      const key = `${this.#prefix}reply:${request.id}`;
      await this.#redis
        .pipeline()
        .lpush(key, JSON.stringify(answer))
        .pexpire(key, ASK_TIMEOUT_S * 2_000)
        .exec();
    } catch (err) {
      this.#logger.error({ err }, "could not answer another instance's request");
    }
  }

  /**
   * Asks the instance that runs the session's turn, when that is another live one, and waits for
   * its answer; `undefined` when no other instance runs it, or it did not answer in time.
   */
  async #ask(sessionId: string, request: AskBody): Promise<unknown> {
    const current = await this.#current(sessionId);
    if (!current?.running || !current.instance || current.instance === this.#instance) {
      return undefined;
    }
    const id = randomUUID();
    const conn = await blockingConnection(this.#redis, (ASK_TIMEOUT_S + 5) * 1_000);
    try {
      const message = JSON.stringify({ id, ...request });
      if ((await conn.publish(this.#channel(current.instance), message)) === 0) return undefined;
      const reply = await conn.blpop(`${this.#prefix}reply:${id}`, ASK_TIMEOUT_S);
      return reply ? JSON.parse(reply[1]) : undefined;
    } finally {
      conn.disconnect();
    }
  }

  async decide(
    sessionId: string,
    callId: string,
    decision: ApprovalDecision,
  ): Promise<DecideResult | undefined> {
    return (await this.#ask(sessionId, { op: "decide", sessionId, callId, decision })) as
      | DecideResult
      | undefined;
  }

  async cancel(sessionId: string): Promise<boolean | undefined> {
    return (await this.#ask(sessionId, { op: "cancel", sessionId })) as boolean | undefined;
  }

  /**
   * Waits (up to a few seconds) for the copies of the turns that ended to reach Redis, then stops
   * copying. Call it after the turns ended (the server's drain), before closing the connection.
   */
  async close(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.allSettled([...this.#copies]),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    this.#stop.abort();
    await Promise.allSettled([...this.#copies]);
    this.#subscriber?.disconnect();
  }
}

/** What one instance asks of another. */
type AskBody =
  | { op: "decide"; sessionId: string; callId: string; decision: ApprovalDecision }
  | { op: "cancel"; sessionId: string };

/** A request on an instance's channel: its reply goes to the list `reply:<id>`. */
type AskRequest = AskBody & { id: string };

/** The controller that stops every copy: one listener per running copy, none leaked. */
function stopController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/** Throws the first error of a transaction's answers. */
function checked(results: [Error | null, unknown][] | null): void {
  if (!results) throw new Error("Redis discarded the transaction");
  for (const [err] of results) if (err) throw err;
}

/** The sequence number of an id `<turnId>:<seq>`. */
function seqOf(id: string): number {
  return Number(id.slice(id.lastIndexOf(":") + 1));
}

/** The sequence number of a stream entry id `<seq>-<0 or 1>`. */
function seqOfEntry(id: string): number {
  return Number(id.slice(0, id.indexOf("-")));
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
