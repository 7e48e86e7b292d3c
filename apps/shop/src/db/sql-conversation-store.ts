/**
 * overlap's ConversationStore over SQL: one row per message, so a conversation survives a server
 * restart, and a rewrite from position `from` replaces only the messages from there on. A write
 * that stores a round (or restored the calls of a lost one) may clear the session's round journal
 * in the same transaction (`clearRoundJournal`): the calls it held are in the conversation now.
 */

import type { Kysely } from "kysely";
import {
  assertExpectedLength,
  type ConversationStore,
  type ConversationWriteOptions,
  type Message,
} from "overlap-runtime";
import type { ShopDatabase } from "./shop-database.js";
import type { StoreDialect } from "./store-dialect.js";

/** Options of {@link SqlConversationStore.write}. */
export interface SqlConversationWriteOptions extends ConversationWriteOptions {
  /**
   * Delete the session's `round_journal` rows in the write's transaction. Only for a write whose
   * messages hold every journaled call (a round's messages; a turn start that restored them).
   */
  clearRoundJournal?: boolean;
}

/** Conversations in the `messages` table, keyed by session id. */
export class SqlConversationStore implements ConversationStore {
  readonly #db: Kysely<ShopDatabase>;
  readonly #dialect: StoreDialect;

  constructor(db: Kysely<ShopDatabase>, dialect: StoreDialect) {
    this.#db = db;
    this.#dialect = dialect;
  }

  async load(conversationId: string): Promise<Message[]> {
    const rows = await this.#db
      .selectFrom("messages")
      .select(["role", "content"])
      .where("session_id", "=", conversationId)
      .orderBy("seq")
      .execute();
    return rows.map((row) => ({ role: row.role, content: JSON.parse(row.content) }) as Message);
  }

  async write(
    conversationId: string,
    from: number,
    messages: readonly Message[],
    options?: SqlConversationWriteOptions,
  ): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      // Two writers of one conversation (two processes resuming one session) must not interleave
      // their delete and insert.
      await this.#dialect.lock(trx, `conversation:${conversationId}`);
      const row = await trx
        .selectFrom("messages")
        .select((eb) => eb.fn.countAll().as("count"))
        .where("session_id", "=", conversationId)
        .executeTakeFirst();
      const length = Number(row?.count ?? 0);
      assertExpectedLength(conversationId, length, options);
      if (!Number.isInteger(from) || from < 0 || from > length) {
        throw new RangeError(`Cannot write at ${from}: the conversation has ${length} messages.`);
      }
      await trx
        .deleteFrom("messages")
        .where("session_id", "=", conversationId)
        .where("seq", ">=", from)
        .execute();
      if (options?.clearRoundJournal) {
        await trx.deleteFrom("round_journal").where("session_id", "=", conversationId).execute();
      }
      // The chat's last activity, for the shopper's list of chats (newest first).
      await trx
        .updateTable("sessions")
        .set({ last_active_at: new Date().toISOString() })
        .where("id", "=", conversationId)
        .execute();
      if (messages.length === 0) return;
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
    });
  }
}
