/**
 * Resumable turn event logs in the database, readable from every instance: each turn's
 * AgentEvents numbered as `TurnEventLog` numbers them (ids `<turnId>:<seq>`), so a reader that
 * reconnects to any instance with `Last-Event-ID` gets exactly what it missed and then the live
 * rest. The writer (the instance running the turn) appends in batches; readers poll the table,
 * woken at once by the writer of their own process, and by PostgreSQL NOTIFY when the driver
 * offers it (no Redis needed).
 *
 * A turn ends in one transaction with its lease (`finish`), so a reader never sees a turn whose
 * lease is gone but which has not ended, unless its instance died: the reader then ends it for
 * everyone (`endCrashed`: an `error` with code `turn_crashed` and a `done`). An instance is dead
 * once its lease expired, or at once when it was a process of this machine that is gone.
 *
 * Ended turns are deleted `retainEndedMs` after their end (see `prune-ended-turns.ts`), by a
 * pruning a turn's end starts now and then; a reader resuming a deleted turn is told it ended
 * (`turn_log_expired`, then `done`).
 */

import type { AgentEvent } from "../protocol/agent-event.js";
import type { LoggedEvent } from "../sse/turn-event-log.js";
import { appendWithRetries, markTableFrom, TRANSPORT_RETRY_MS } from "./append-with-retries.js";
import type { DurableTables } from "./durable-schema.js";
import { chatLock, leaseLives, readLease } from "./durable-turn-leases.js";
import { insertEvents, lastSeq } from "./insert-events.js";
import { parseEventId } from "./parse-event-id.js";
import {
  type PrunedTurns,
  type PruneEndedTurnsOptions,
  pruneEndedTurns,
} from "./prune-ended-turns.js";
import type { SqlDriver } from "./sql-driver.js";
import type { NumberedEvent, TurnEventTransport } from "./turn-event-transport.js";
import { crashEnd, expiredEnd } from "./turn-log-endings.js";

/** How often at most a process prunes ended turns on its own (when a turn ends), in ms. */
const PRUNE_EVERY_MS = 60_000;

/** Options of {@link DurableTurnEvents}. */
export interface DurableTurnEventsOptions {
  /** How often a live reader looks for new events when nothing woke it, in ms. Default 250. */
  pollMs?: number;
  /** Use the driver's NOTIFY to wake readers of other processes. Default true when offered. */
  notify?: boolean;
  /**
   * Where the events themselves are kept; default the database's `turn_events` table. The
   * turns' lifecycle (started, ended, their leases) stays in the database either way.
   */
  transport?: TurnEventTransport;
  /**
   * With a `transport`: the delays before each new attempt of a write that failed, in ms
   * (default 100, 200, 400, 800, 1600). The turn goes on meanwhile; once they are spent, the
   * turn's events go to the database's table from there on, where every reader finds them.
   */
  transportRetryMs?: readonly number[];
  /**
   * How long an ended turn's log (its events and its row) is kept, in ms; a turn's end then
   * deletes the older ones now and then (at most once a minute per process, in batches). Default
   * 15 minutes: the log is for resuming a stream (a reader that lost its connection), which takes
   * seconds to minutes, while a reload shows the stored conversation; it is also how long the
   * Redis transport and an in-memory `TurnEventLog` keep a turn. `Infinity`: never on its own
   * (call `DurableStore.pruneEndedTurns` from a job of your own).
   */
  retainEndedMs?: number;
  now?: () => number;
}

/** The writer of one turn's log. */
export interface TurnEventWriter {
  readonly turnId: string;
  /** Logs an event (written in the next batch); returns its id. */
  append(event: AgentEvent): string;
  /** Resolves once every event appended so far is written. */
  flush(): Promise<void>;
}

/** Turn logs of every chat, in the `turns` and `turn_events` tables of a prefix. */
export class DurableTurnEvents {
  readonly #driver: SqlDriver;
  readonly #tables: DurableTables;
  readonly #pollMs: number;
  readonly #now: () => number;
  readonly #channel: string | undefined;
  readonly #transport: TurnEventTransport | undefined;
  /** Readers of this process waiting for a turn's next events. */
  readonly #waiters = new Map<string, Set<() => void>>();
  #unlisten: Promise<(() => Promise<void>) | undefined> | undefined;
  readonly #retainEndedMs: number;
  readonly #retryMs: readonly number[];
  /** Per writer: its last seq, and from which seq its events went to the table instead. */
  readonly #writers = new WeakMap<TurnEventWriter, { seq: number; tableFrom?: number }>();
  #lastPrune = Number.NEGATIVE_INFINITY;
  #pruning: Promise<unknown> | undefined;

  constructor(driver: SqlDriver, tables: DurableTables, options: DurableTurnEventsOptions = {}) {
    this.#driver = driver;
    this.#tables = tables;
    this.#pollMs = options.pollMs ?? 250;
    this.#now = options.now ?? Date.now;
    this.#transport = options.transport;
    this.#retainEndedMs = options.retainEndedMs ?? 15 * 60_000;
    this.#retryMs = options.transportRetryMs ?? TRANSPORT_RETRY_MS;
    const notify = options.notify ?? true;
    this.#channel = notify && driver.listen && driver.notify ? `${tables.events}` : undefined;
  }

  /** Starts the log of a turn (its lease is held): readers of the chat find it from now on. */
  async start(chatId: string, turnId: string, holder: string): Promise<TurnEventWriter> {
    await this.#driver.query(
      `INSERT INTO ${this.#tables.turns} (turn_id, conversation_id, holder, started_at) VALUES (?, ?, ?, ?)`,
      [turnId, chatId, holder, this.#now()],
    );
    return this.#writer(turnId);
  }

  #writer(turnId: string): TurnEventWriter {
    const state: { seq: number; tableFrom?: number } = { seq: 0 };
    let pending: { seq: number; event: AgentEvent }[] = [];
    let writing: Promise<void> = Promise.resolve();
    let failure: unknown;
    const write = async () => {
      const batch = pending;
      pending = [];
      if (batch.length === 0) return;
      try {
        await this.#store(turnId, batch, state);
        this.#wake(turnId);
        await this.#notify(turnId);
      } catch (error) {
        failure ??= error;
      }
    };
    const writer: TurnEventWriter = {
      turnId,
      append: (event) => {
        const seq = ++state.seq;
        pending.push({ seq, event });
        // One batch at a time: the events that come while one is written go in the next.
        if (pending.length === 1) writing = writing.then(write);
        return `${turnId}:${seq}`;
      },
      flush: async () => {
        await writing;
        if (failure !== undefined) {
          const error = failure;
          failure = undefined;
          throw error;
        }
      },
    };
    this.#writers.set(writer, state);
    return writer;
  }

  /** Writes a batch: to the transport (retried), or to the table once the transport failed. */
  async #store(
    turnId: string,
    batch: readonly NumberedEvent[],
    state: { tableFrom?: number },
  ): Promise<void> {
    const transport = this.#transport;
    if (transport && state.tableFrom === undefined) {
      try {
        await appendWithRetries(transport, turnId, batch, this.#retryMs);
        return;
      } catch {
        // Readers elsewhere would have a gap: the rest of the turn goes where they all look.
        const from = batch[0]?.seq ?? 1;
        await markTableFrom(this.#driver, this.#tables, turnId, from);
        state.tableFrom = from;
      }
    }
    await insertEvents(this.#driver, this.#tables, turnId, batch);
  }

  /**
   * Ends the turn: writes its last events, marks it ended and releases its lease, in one
   * transaction under the chat's lock. `last` holds `[seq, event]` pairs the writer held back.
   */
  async finish(
    chatId: string,
    turnId: string,
    writer: TurnEventWriter,
    held: readonly AgentEvent[],
  ): Promise<void> {
    await writer.flush().catch(() => undefined);
    const t = this.#tables;
    const transport = this.#transport;
    const state = this.#writers.get(writer);
    // In the table: without a transport, or once it failed for this turn.
    let toTable = !transport || state?.tableFrom !== undefined;
    if (transport && !toTable && held.length > 0) {
      // Elsewhere than the database: the last events first, so that a reader who sees the turn
      // ended (or its lease gone) finds them.
      try {
        const last = await transport.last(turnId);
        const events = held.map((event, i) => ({ seq: last + 1 + i, event }));
        await appendWithRetries(transport, turnId, events, this.#retryMs);
      } catch {
        toTable = true; // the turn's end reaches every reader through the table
      }
    }
    await this.#driver.transaction(
      async (tx) => {
        if (toTable && held.length > 0) {
          const last = Math.max(state?.seq ?? 0, await lastSeq(tx, t, turnId));
          if (transport) await markTableFrom(tx, t, turnId, last + 1);
          await insertEvents(
            tx,
            t,
            turnId,
            held.map((event, i) => ({ seq: last + 1 + i, event })),
          );
        }
        await tx.query(
          `UPDATE ${t.turns} SET ended_at = ? WHERE turn_id = ? AND ended_at IS NULL`,
          [this.#now(), turnId],
        );
        await tx.query(`DELETE FROM ${t.leases} WHERE conversation_id = ? AND turn_id = ?`, [
          chatId,
          turnId,
        ]);
      },
      chatLock(t, chatId),
    );
    this.#wake(turnId);
    await this.#notify(turnId).catch(() => undefined);
    this.#pruneNowAndThen();
  }

  /**
   * Deletes the turns that ended more than `olderThanMs` ago (default `retainEndedMs`), their
   * events with them, in batches; never a turn that runs. A dead instance's turn nobody ended
   * (no reader came) is ended now (`turn_crashed`), to be deleted as ended turns are.
   */
  async prune(options: PruneEndedTurnsOptions = {}): Promise<PrunedTurns> {
    return pruneEndedTurns(this.#driver, this.#tables, {
      olderThanMs: options.olderThanMs ?? this.#retainEndedMs,
      batchSize: options.batchSize ?? 50,
      now: this.#now(),
      events: !this.#transport,
      endCrashed: (chatId, turnId) => this.endCrashed(chatId, turnId),
    });
  }

  /** Starts a pruning unless one ran in the last minute (or runs): a turn's end pays nothing. */
  #pruneNowAndThen(): void {
    const retain = this.#retainEndedMs;
    if (!Number.isFinite(retain) || this.#pruning) return;
    const now = this.#now();
    if (now - this.#lastPrune < Math.min(PRUNE_EVERY_MS, retain)) return;
    this.#lastPrune = now;
    this.#pruning = this.prune()
      .catch(() => undefined) // the next turn's end tries again
      .finally(() => {
        this.#pruning = undefined;
      });
  }

  /**
   * Ends a turn whose instance died (its lease is gone, taken over, or expired, or its process is
   * known gone: a process of this machine that no longer exists), unless it ended: appends
   * `turn_crashed` and `done`, marks it ended, and drops its lease if it still has one. True when
   * this call ended it.
   */
  async endCrashed(chatId: string, turnId: string): Promise<boolean> {
    const t = this.#tables;
    let inTransport = false;
    const ended = await this.#driver.transaction(
      async (tx) => {
        const { rows } = await tx.query<{ ended_at: unknown; table_from: unknown }>(
          `SELECT ended_at, table_from FROM ${t.turns} WHERE turn_id = ?`,
          [turnId],
        );
        if (!rows[0] || rows[0].ended_at !== null) return false;
        const lease = await readLease(tx, t, chatId);
        const now = this.#now();
        if (lease?.turnId === turnId && leaseLives(lease, now)) return false; // still alive
        if (lease?.turnId === turnId) {
          await tx.query(`DELETE FROM ${t.leases} WHERE conversation_id = ? AND turn_id = ?`, [
            chatId,
            turnId,
          ]);
        }
        inTransport = this.#transport !== undefined && rows[0].table_from === null;
        if (!inTransport) {
          await insertEvents(tx, t, turnId, crashEnd(await lastSeq(tx, t, turnId)));
        }
        await tx.query(`UPDATE ${t.turns} SET ended_at = ? WHERE turn_id = ?`, [now, turnId]);
        return true;
      },
      chatLock(t, chatId),
    );
    if (ended && inTransport && this.#transport) {
      await this.#transport.append(turnId, crashEnd(await this.#transport.last(turnId)));
    }
    if (ended) {
      this.#wake(turnId);
      await this.#notify(turnId).catch(() => undefined);
    }
    return ended;
  }

  /** The chat's latest turn, if any. */
  async latest(chatId: string): Promise<{ turnId: string; ended: boolean } | undefined> {
    const { rows } = await this.#driver.query<{ turn_id: string; ended_at: unknown }>(
      `SELECT turn_id, ended_at FROM ${this.#tables.turns} WHERE conversation_id = ?
       ORDER BY started_at DESC, turn_id DESC LIMIT 1`,
      [chatId],
    );
    const row = rows[0];
    return row && { turnId: row.turn_id, ended: row.ended_at !== null };
  }

  /**
   * The chat's turn events after `lastEventId` (from the start of the chat's latest turn when it
   * names no turn of this chat), then the live rest until the turn ends or `signal` aborts. A turn
   * whose instance died is ended for its readers (`turn_crashed`, then `done`).
   */
  async *read(
    chatId: string,
    lastEventId?: string | null,
    signal?: AbortSignal,
  ): AsyncGenerator<LoggedEvent> {
    const t = this.#tables;
    const named = parseEventId(lastEventId);
    let turnId: string | undefined;
    let next = 0;
    if (named) {
      const { rows } = await this.#driver.query(
        `SELECT turn_id FROM ${t.turns} WHERE turn_id = ? AND conversation_id = ?`,
        [named.turnId, chatId],
      );
      if (rows.length > 0) {
        turnId = named.turnId;
        next = named.seq;
      }
    }
    turnId ??= (await this.latest(chatId))?.turnId;
    if (turnId === undefined) {
      // The turn the reader was reading is deleted (its log expired) and the chat has no other.
      if (named) yield* expiredEnd(named.turnId, named.seq);
      return;
    }
    const id = turnId;
    let resume: (() => void) | undefined;
    const wake = () => {
      const resolve = resume;
      resume = undefined;
      resolve?.();
    };
    let waiters = this.#waiters.get(id);
    if (!waiters) {
      waiters = new Set();
      this.#waiters.set(id, waiters);
    }
    waiters.add(wake);
    signal?.addEventListener("abort", wake, { once: true });
    await this.#listen();
    // From which seq the turn's events are in the table (its transport failed), once known.
    let from: number | undefined;
    try {
      while (!signal?.aborted) {
        let rows: NumberedEvent[];
        try {
          rows = await this.#after(id, next, 500, from);
        } catch (error) {
          // The transport is out: the turn's row says whether its writer moved to the table.
          if (!this.#transport) throw error;
          rows = [];
        }
        for (const row of rows) {
          next = row.seq;
          yield { id: `${id}:${next}`, event: row.event };
          if (signal?.aborted) return;
        }
        if (rows.length > 0) continue;
        const state = await this.#driver.query<{ ended_at: unknown; table_from: unknown }>(
          `SELECT ended_at, table_from FROM ${t.turns} WHERE turn_id = ?`,
          [id],
        );
        const tableFrom = state.rows[0]?.table_from;
        if (tableFrom !== null && tableFrom !== undefined && from === undefined) {
          from = Number(tableFrom);
          continue;
        }
        if (state.rows.length === 0) {
          // Deleted while this reader was away: it learns the turn ended, not how.
          if (next > 0) yield* expiredEnd(id, next);
          return;
        }
        if (state.rows[0]?.ended_at !== null) {
          // Ended: what was written before the end is read once more, then the reader stops.
          if (await this.#hasAfter(id, next, from)) continue;
          // A reader ahead of the log (it read, elsewhere, events its dead writer never wrote
          // here) is still told how the turn ended, with the ids its next events would have had.
          for (const [i, event] of (await this.#endAfter(id, next, from)).entries()) {
            yield { id: `${id}:${next + i + 1}`, event };
          }
          return;
        }
        const lease = await readLease(this.#driver, t, chatId);
        if (lease?.turnId !== id || !leaseLives(lease, this.#now())) {
          await this.endCrashed(chatId, id);
          continue;
        }
        const timer = setTimeout(wake, this.#pollMs);
        await new Promise<void>((resolve) => {
          resume = resolve;
        });
        clearTimeout(timer);
      }
    } finally {
      waiters.delete(wake);
      if (waiters.size === 0) this.#waiters.delete(id);
      signal?.removeEventListener("abort", wake);
    }
  }

  /** Stops listening for other processes' notifications (after a pruning under way). */
  async close(): Promise<void> {
    await this.#pruning;
    const unlisten = await this.#unlisten;
    this.#unlisten = undefined;
    await unlisten?.();
  }

  /** The turn's closing `error` and `done` when the log ends before `seq`; else none. */
  async #endAfter(turnId: string, seq: number, from?: number): Promise<AgentEvent[]> {
    const last =
      this.#transport && from === undefined
        ? await this.#transport.last(turnId)
        : await lastSeq(this.#driver, this.#tables, turnId);
    if (last >= seq) return [];
    // Nothing left of the log (the transport's copy expired): the reader learns the turn ended.
    if (last === 0) return expiredEnd(turnId, seq).map((logged) => logged.event);
    const after = Math.max(0, last - 2, (from ?? 1) - 1);
    const tail = (await this.#after(turnId, after, 2, from)).map((row) => row.event);
    const end = tail.findIndex((event) => event.type === "error" || event.type === "done");
    return end === -1 ? [] : tail.slice(end);
  }

  async #hasAfter(turnId: string, seq: number, from?: number): Promise<boolean> {
    return (await this.#after(turnId, seq, 1, from)).length > 0;
  }

  /** Events after `seq`: from the table, or the transport before `from` (where it failed). */
  async #after(
    turnId: string,
    seq: number,
    limit: number,
    from?: number,
  ): Promise<NumberedEvent[]> {
    if (this.#transport && (from === undefined || seq + 1 < from)) {
      return this.#transport.after(turnId, seq, limit);
    }
    const { rows } = await this.#driver.query<{ seq: number | string; event: string }>(
      `SELECT seq, event FROM ${this.#tables.events} WHERE turn_id = ? AND seq > ? ORDER BY seq LIMIT ${Math.floor(limit)}`,
      [turnId, seq],
    );
    return rows.map((row) => ({
      seq: Number(row.seq),
      event: JSON.parse(row.event) as AgentEvent,
    }));
  }

  #wake(turnId: string): void {
    for (const wake of this.#waiters.get(turnId) ?? []) wake();
  }

  async #notify(turnId: string): Promise<void> {
    if (this.#channel) await this.#driver.notify?.(this.#channel, turnId);
  }

  /** One listening connection per instance, opened by the first reader. */
  async #listen(): Promise<void> {
    const channel = this.#channel;
    const listen = this.#driver.listen;
    if (!channel || !listen) return;
    this.#unlisten ??= listen
      .call(this.#driver, channel, (turnId) => this.#wake(turnId))
      .catch(() => undefined); // polling still works
    await this.#unlisten;
  }
}

export { parseEventId } from "./parse-event-id.js";
export type { NumberedEvent, TurnEventTransport } from "./turn-event-transport.js";
