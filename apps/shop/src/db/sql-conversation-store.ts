/**
 * overlap's ConversationStore over SQL: one row per message, so a conversation survives a server
 * restart, and a rewrite from position `from` replaces only the messages from there on. A write
 * that stores a round (or restored the calls of a lost one) may clear the session's round journal
 * in the same transaction (`clearRoundJournal`): the calls it held are in the conversation now.
 */

import type { Kysely, Transaction } from "kysely";
import {
  assertExpectedLength,
  type ConversationStore,
  type ConversationWriteOptions,
  type Message,
  OverlapError,
} from "overlap-runtime";
import type { DurableStore } from "overlap-runtime/durable";
import { sqlExecutorOf } from "./kysely-sql-driver.js";
import { type PreparedQuery, preparedQuery } from "./prepared-query.js";
import type { ShopDatabase } from "./shop-database.js";
import type { StoreDialect } from "./store-dialect.js";

/** Options of {@link SqlConversationStore.write}. */
export interface SqlConversationWriteOptions extends ConversationWriteOptions {
  /**
   * Delete the session's round journal rows (overlap's durable journal) in the write's
   * transaction. Only for a write whose
   * messages hold every journaled call (a round's messages; a turn start that restored them).
   */
  clearRoundJournal?: boolean;
  /**
   * The version the writer read ({@link SqlConversationStore.loadVersioned}, or the one the last
   * write returned). When any other write happened since, this one fails with
   * `OverlapError("conversation_conflict")` and changes nothing: a writer that lost a race can
   * never overwrite or merge into the winner's messages.
   */
  expectedVersion?: number;
  /**
   * The turn whose lease the writer holds: the write fails with `TurnLeaseLostError` (and
   * changes nothing) when another instance took the chat over, or the turn ended.
   */
  lease?: string;
}

/** A conversation with the version it was read at. */
export interface VersionedConversation {
  messages: Message[];
  /** Raised by every write (0 for a chat never written). */
  version: number;
}

/** What one turn showed besides its messages (see {@link SqlConversationStore.writeTurnDisplay}). */
export interface TurnDisplay {
  /** The position of the message that started the turn. */
  seq: number;
  /** The turn's kept events, in the order they were sent (plain JSON objects). */
  events: unknown[];
}

/** Conversations in the `messages` table, keyed by session id. */
export class SqlConversationStore implements ConversationStore {
  readonly #db: Kysely<ShopDatabase>;
  readonly #dialect: StoreDialect;
  /** Where the turn leases and the round journal are (overlap's durable stores). */
  readonly #durable: DurableStore;

  constructor(db: Kysely<ShopDatabase>, dialect: StoreDialect, durable: DurableStore) {
    this.#db = db;
    this.#dialect = dialect;
    this.#durable = durable;
  }

  async load(conversationId: string): Promise<Message[]> {
    const { rows } = await messagesOf(this.#db, conversationId);
    return rows.map((row) => ({ role: row.role, content: JSON.parse(row.content) }) as Message);
  }

  /**
   * The messages with the version they were read at. The version is read first: a write that
   * lands between the two reads makes the pair look older than it is (the next write conflicts),
   * never newer.
   */
  async loadVersioned(conversationId: string): Promise<VersionedConversation> {
    const version = await this.#version(this.#db, conversationId);
    return { messages: await this.load(conversationId), version };
  }

  async #version(
    db: Kysely<ShopDatabase> | Transaction<ShopDatabase>,
    conversationId: string,
  ): Promise<number> {
    const row = (await versionOf(db, conversationId)).rows[0];
    return Number(row?.conversation_version ?? 0);
  }

  async write(
    conversationId: string,
    from: number,
    messages: readonly Message[],
    options?: SqlConversationWriteOptions,
  ): Promise<void> {
    await this.writeVersioned(conversationId, from, messages, options);
  }

  /** Writes as {@link ConversationStore.write}; resolves to the conversation's new version. */
  async writeVersioned(
    conversationId: string,
    from: number,
    messages: readonly Message[],
    options?: SqlConversationWriteOptions,
  ): Promise<number> {
    return await this.#db.transaction().execute(async (trx) => {
      // Two writers of one conversation (two processes resuming one session) must not interleave
      // their delete and insert.
      await this.#dialect.lock(trx, `conversation:${conversationId}`);
      const tx = sqlExecutorOf(trx, this.#dialect);
      if (options?.lease !== undefined) {
        await this.#durable.assertLeaseIn(tx, conversationId, options.lease);
      }
      // The version and the number of messages, in one query.
      const state = (await versionAndLength(trx, conversationId)).rows[0];
      const version = Number(state?.conversation_version ?? 0);
      if (options?.expectedVersion !== undefined && options.expectedVersion !== version) {
        throw new OverlapError(
          "conversation_conflict",
          `Conversation ${conversationId} is at version ${version}, the writer read version ${options.expectedVersion}: another writer changed it.`,
        );
      }
      const length = Number(state?.length ?? 0);
      assertExpectedLength(conversationId, length, options);
      if (!Number.isInteger(from) || from < 0 || from > length) {
        throw new RangeError(`Cannot write at ${from}: the conversation has ${length} messages.`);
      }
      // An append (the usual write) has nothing to delete.
      if (from < length) await deleteMessagesFrom(trx, conversationId, from);
      if (options?.clearRoundJournal) {
        await tx.query(`DELETE FROM ${this.#durable.tables.journal} WHERE conversation_id = ?`, [
          conversationId,
        ]);
      }
      // The chat's last activity, for the shopper's list of chats (newest first), and its version.
      await touchSession(trx, conversationId, new Date().toISOString(), version + 1);
      if (messages.length === 0) return version + 1;
      const values: unknown[] = [];
      for (let i = 0; i < messages.length; i++) {
        const message = messages[i] as Message;
        values.push(conversationId, from + i, message.role, JSON.stringify(message.content));
      }
      const insert = insertMessages(messages.length);
      if (insert) await insert(trx, ...values);
      else {
        await trx
          .insertInto("messages")
          .values(
            messages.map((message, i) => ({
              session_id: conversationId,
              seq: from + i,
              role: message.role,
              content: JSON.stringify(message.content),
            })),
          )
          .execute();
      }
      return version + 1;
    });
  }

  /**
   * Keeps what the turn started by the message at `seq` showed besides its messages (cards,
   * approvals, round timings), replacing what was kept for it before.
   */
  async writeTurnDisplay(
    conversationId: string,
    seq: number,
    events: readonly unknown[],
  ): Promise<void> {
    await upsertTurnDisplay(
      this.#db,
      conversationId,
      seq,
      JSON.stringify(events),
      new Date().toISOString(),
    );
  }

  /** Every turn's kept display of the conversation, by `seq`. */
  async loadTurnDisplays(conversationId: string): Promise<TurnDisplay[]> {
    const rows = await this.#db
      .selectFrom("turn_display")
      .select(["seq", "events"])
      .where("session_id", "=", conversationId)
      .orderBy("seq")
      .execute();
    return rows.map((row) => ({
      seq: Number(row.seq),
      events: (typeof row.events === "string" ? JSON.parse(row.events) : row.events) as unknown[],
    }));
  }
}

// The queries every turn runs, compiled once per database.
const messagesOf = preparedQuery((db, conversationId: string) =>
  db
    .selectFrom("messages")
    .select(["role", "content"])
    .where("session_id", "=", conversationId)
    .orderBy("seq"),
);
const versionOf = preparedQuery((db, conversationId: string) =>
  db.selectFrom("sessions").select("conversation_version").where("id", "=", conversationId),
);
/** One row even for a conversation without a session row (an aggregate without grouping). */
const versionAndLength = preparedQuery((db, conversationId: string) =>
  db
    .selectFrom("messages")
    .select((eb) => [
      eb.fn.countAll().as("length"),
      eb
        .selectFrom("sessions")
        .select("conversation_version")
        .where("id", "=", conversationId)
        .as("conversation_version"),
    ])
    .where("session_id", "=", conversationId),
);
const deleteMessagesFrom = preparedQuery((db, conversationId: string, from: number) =>
  db.deleteFrom("messages").where("session_id", "=", conversationId).where("seq", ">=", from),
);
const touchSession = preparedQuery(
  (db, conversationId: string, lastActiveAt: string, version: number) =>
    db
      .updateTable("sessions")
      .set({ last_active_at: lastActiveAt, conversation_version: version })
      .where("id", "=", conversationId),
);
const upsertTurnDisplay = preparedQuery(
  (db, conversationId: string, seq: number, events: string, updatedAt: string) =>
    db
      .insertInto("turn_display")
      .values({ session_id: conversationId, seq, events, updated_at: updatedAt })
      .onConflict((oc) =>
        oc.columns(["session_id", "seq"]).doUpdateSet({ events, updated_at: updatedAt }),
      ),
);

/** Inserts of 1 to 4 messages (a user message; a round's two), each prepared once. */
const MESSAGE_INSERTS: PreparedQuery<unknown[], unknown>[] = Array.from({ length: 4 }, (_, i) =>
  preparedQuery((db, ...values: unknown[]) =>
    db.insertInto("messages").values(
      Array.from({ length: i + 1 }, (_, row) => ({
        session_id: values[4 * row] as string,
        seq: values[4 * row + 1] as number,
        role: values[4 * row + 2] as Message["role"],
        content: values[4 * row + 3] as string,
      })),
    ),
  ),
);

/** The prepared insert of `count` messages, when there is one. */
function insertMessages(count: number): PreparedQuery<unknown[], unknown> | undefined {
  return MESSAGE_INSERTS[count - 1];
}
