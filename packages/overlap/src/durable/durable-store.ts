/**
 * The durable stores of one database and table prefix, together: conversations, turn leases,
 * turn event logs, and per chat the round journal, the tool ledger and the effects a tool records
 * with its ledger record. {@link DurableStore.open} runs the migrations first (idempotently: every
 * process may open the store at its start).
 */

import { type RestoredRound, restoreRound, type StoredCall } from "../agent/restore-round.js";
import type { Message, ToolUseBlock } from "../stream/message.js";
import type { ToolCall } from "../stream/tool-call.js";
import type { ToolContext, ToolReturn } from "../tools/define-tool.js";
import type { ToolOutcome } from "../tools/tool-outcome.js";
import { DurableConversationStore } from "./durable-conversation-store.js";
import {
  DurableRoundJournal,
  insertJournalRow,
  type JournaledCall,
  journaledCalls,
} from "./durable-round-journal.js";
import { type DurableTables, durableTables, migrateDurableSchema } from "./durable-schema.js";
import { DurableToolLedger, insertLedgerRecord, ledgerRecords } from "./durable-tool-ledger.js";
import { DurableTurnEvents, type DurableTurnEventsOptions } from "./durable-turn-events.js";
import { assertLeaseHeld, chatLock, DurableTurnLeases } from "./durable-turn-leases.js";
import type { PrunedTurns, PruneEndedTurnsOptions } from "./prune-ended-turns.js";
import {
  checkTablePrefix,
  lockInTransaction,
  type SqlDriver,
  type SqlExecutor,
} from "./sql-driver.js";

/** Options of {@link DurableStore.open}. */
export interface DurableStoreOptions {
  /** Put in front of every table name; letters, digits and underscores. Default `overlap_`. */
  prefix?: string;
  /** Run the migrations on open. Default true. */
  migrate?: boolean;
  /** How turn event logs are read, where they are kept, and how long an ended one is kept. */
  events?: DurableTurnEventsOptions;
  /** The clock of leases and logs, epoch ms. Default `Date.now`. */
  now?: () => number;
}

/** Runs a tool's effect in the transaction that records its outcome (see `ToolEffects`). */
export interface DurableEffects {
  /**
   * Runs `effect` in one transaction with the call's journal row and ledger record: the effect
   * and its record commit together or not at all, so a restart that finds no record knows the
   * effect did not happen (declare the tool `effects: "ledger"`). Refused (`TurnLeaseLostError`,
   * nothing committed) once the turn lost its chat. Use only `tx` inside: the transaction holds
   * the chat's lock (and, on SQLite, the connection).
   */
  record<T extends ToolReturn>(
    ctx: ToolContext<unknown>,
    effect: (tx: SqlExecutor) => Promise<T> | T,
  ): Promise<T>;
  /**
   * For an effect in a transaction the host opened itself (its own query builder's, on the
   * store's connection): inside `tx`, takes the chat's lock, refuses (`TurnLeaseLostError`) once
   * the turn lost its chat, and writes the call's ledger record (and, with its call, its journal
   * row). Call it after the effect's writes, before the host commits: the effect and its record
   * then commit together or not at all, as with {@link record}.
   */
  recordIn(tx: SqlExecutor, record: DurableCallRecord): Promise<void>;
}

/** A call's outcome as {@link DurableEffects.recordIn} records it. */
export interface DurableCallRecord {
  /** What the tool returned (`ctx.outcome(value)`). */
  outcome: ToolOutcome;
  /** The call (`ctx.call`): journaled with the record, so a crash restores it. */
  call?: StoredCall;
  /** The call's idempotency key (`ctx.idempotencyKey`); default its call id. */
  idempotencyKey?: string;
}

/** Options of {@link DurableStore.recover}. */
export interface RecoverOptions {
  /**
   * The answer of a restored call without a record, given its idempotency key; default
   * `notRunAfterRestartText` (true for tools that record their effects with their record).
   */
  notRunText?: (block: ToolUseBlock, idempotencyKey: string | undefined) => string;
}

/** A chat's conversation with the round a crash cut off restored ({@link DurableStore.recover}). */
export interface RecoveredConversation extends RestoredRound {
  /** The messages as stored. */
  stored: Message[];
  /** The version `stored` was read at (what a write's `expectedVersion` refers to). */
  version: number;
}

/** Durable stores over one database. */
export class DurableStore {
  readonly driver: SqlDriver;
  /** The table prefix (lower case). */
  readonly prefix: string;
  readonly tables: DurableTables;
  readonly conversations: DurableConversationStore;
  readonly leases: DurableTurnLeases;
  readonly events: DurableTurnEvents;
  readonly #cancelWatchers = new Set<(chatId: string) => void>();
  #cancelListener: Promise<(() => Promise<void>) | undefined> | undefined;

  constructor(driver: SqlDriver, options: DurableStoreOptions = {}) {
    this.driver = driver;
    this.prefix = checkTablePrefix(options.prefix ?? "overlap_");
    this.tables = durableTables(this.prefix);
    this.conversations = new DurableConversationStore(driver, this.tables);
    this.leases = new DurableTurnLeases(driver, this.tables, options.now);
    this.events = new DurableTurnEvents(driver, this.tables, {
      ...options.events,
      ...(options.now ? { now: options.now } : {}),
    });
  }

  /** Opens the stores, migrating the schema first unless `migrate: false`. */
  static async open(driver: SqlDriver, options: DurableStoreOptions = {}): Promise<DurableStore> {
    const store = new DurableStore(driver, options);
    if (options.migrate !== false) await store.migrate();
    return store;
  }

  /** Creates or upgrades the tables; returns the migrations applied. */
  migrate(): Promise<number[]> {
    return migrateDurableSchema(this.driver, this.prefix);
  }

  /**
   * Deletes the event logs (events and turn rows) of the turns that ended more than
   * `olderThanMs` ago (default `events.retainEndedMs`, 15 minutes), in batches; never a running
   * turn's. A turn's end does it on its own at most once a minute; call this from a job of your
   * own with `retainEndedMs: Infinity`. A reader resuming a deleted turn gets `error`
   * (`turn_log_expired`) and `done`.
   */
  pruneEndedTurns(options?: PruneEndedTurnsOptions): Promise<PrunedTurns> {
    return this.events.prune(options);
  }

  /** The round journal of a chat's turn, keying each call with `keyOf`. */
  journal(chatId: string, turnId: string, keyOf: (call: ToolCall) => string): DurableRoundJournal {
    return new DurableRoundJournal(this.driver, this.tables, chatId, turnId, keyOf);
  }

  /** The tool ledger of a chat. */
  ledger(chatId: string, keyOf?: (call: ToolCall) => string): DurableToolLedger {
    return new DurableToolLedger(this.driver, this.tables, chatId, keyOf);
  }

  /** The chat's journaled calls not cleared yet (a round a crash cut off), in call order. */
  journaled(chatId: string): Promise<JournaledCall[]> {
    return journaledCalls(this.driver, this.tables, chatId);
  }

  /**
   * The chat's conversation as its next turn continues it: the stored messages with the version
   * they were read at, plus the round a crash cut off, restored from the journal and the ledger
   * (`restoreRound`: each call that ran with its real result, the others answered by
   * `options.notRunText`). Write `messages` from `from` (with `clearJournal`) to keep it.
   */
  async recover(chatId: string, options: RecoverOptions = {}): Promise<RecoveredConversation> {
    const { messages: stored, version } = await this.conversations.loadVersioned(chatId);
    const journaled = await this.journaled(chatId);
    if (journaled.length === 0) {
      return { stored, version, messages: [...stored], from: stored.length, restored: [] };
    }
    const recorded = await this.records(chatId, journaled);
    const keys = new Map(journaled.map((call) => [call.block.id, call.idempotencyKey]));
    const text = options.notRunText;
    const restored = restoreRound(
      stored,
      { journaled, recorded },
      text ? { notRunText: (block) => text(block, keys.get(block.id)) } : {},
    );
    return { stored, version, ...restored };
  }

  /** The ledger records of some of a chat's calls. */
  records(chatId: string, calls: readonly StoredCall[]) {
    return ledgerRecords(this.driver, this.tables, chatId, calls);
  }

  /** The effects of a chat's turn (see {@link DurableEffects}). */
  effects(chatId: string, turnId: string | undefined): DurableEffects {
    const { driver, tables: t } = this;
    const write = async (tx: SqlExecutor, { outcome, call, idempotencyKey }: DurableCallRecord) => {
      if (call) {
        await insertJournalRow(tx, t, chatId, {
          round: call.round,
          index: call.index,
          block: call.block,
          turnId: turnId ?? "",
          idempotencyKey: idempotencyKey ?? call.block.id,
        });
      }
      await insertLedgerRecord(tx, t, chatId, outcome, call, idempotencyKey);
    };
    return {
      record: (ctx, effect) =>
        driver.transaction(
          async (tx) => {
            if (turnId !== undefined) await assertLeaseHeld(tx, t, chatId, turnId);
            const value = await effect(tx);
            const { call, idempotencyKey } = ctx;
            await write(tx, { outcome: ctx.outcome(value), call, idempotencyKey });
            return value;
          },
          chatLock(t, chatId),
        ),
      recordIn: async (tx, record) => {
        if (turnId !== undefined) await this.assertLeaseIn(tx, chatId, turnId);
        else await lockInTransaction(tx, chatLock(t, chatId));
        await write(tx, record);
      },
    };
  }

  /**
   * For a host's own write in a transaction it opened itself (on the store's connection): takes
   * the chat's lock in `tx` and throws `TurnLeaseLostError` unless `turnId` holds the chat's
   * lease, so the write is rolled back once another instance took the chat over or the turn
   * ended, as the stores' own writes that name a lease are.
   */
  async assertLeaseIn(tx: SqlExecutor, chatId: string, turnId: string): Promise<void> {
    await lockInTransaction(tx, chatLock(this.tables, chatId));
    await assertLeaseHeld(tx, this.tables, chatId, turnId);
  }

  /**
   * Calls `onCancel` with the chat id of every cancel announced by {@link announceCancel} (on any
   * instance), while the returned function is not called. Only with a driver that can listen
   * (PostgreSQL); otherwise nothing is announced and renewals carry the cancel.
   */
  async watchCancels(onCancel: (chatId: string) => void): Promise<() => void> {
    const driver = this.driver;
    if (!driver.listen) return () => {};
    this.#cancelWatchers.add(onCancel);
    this.#cancelListener ??= driver
      .listen(this.#cancelChannel(), (chatId) => {
        for (const watcher of this.#cancelWatchers) watcher(chatId);
      })
      .catch(() => undefined); // renewals still carry the cancel, within their interval
    await this.#cancelListener;
    return () => {
      this.#cancelWatchers.delete(onCancel);
    };
  }

  /** Announces a cancel of the chat's turn to the instances that watch (see {@link watchCancels}). */
  async announceCancel(chatId: string): Promise<void> {
    await this.driver.notify?.(this.#cancelChannel(), chatId);
  }

  /** Stops what the store holds open (its listening connections). */
  async close(): Promise<void> {
    const unlisten = await this.#cancelListener;
    this.#cancelListener = undefined;
    await Promise.all([unlisten?.(), this.events.close()]);
  }

  #cancelChannel(): string {
    return `${this.tables.leases}_cancel`;
  }
}
