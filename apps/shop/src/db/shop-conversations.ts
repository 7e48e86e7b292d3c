/**
 * The shop's conversations: overlap's durable conversation store (`overlap_messages` and
 * `overlap_conversations`: one row per message, a version raised by every write, writes fenced
 * by the turn's lease), with what the shop keeps beside it: each chat's last activity (the list
 * of chats is ordered by it) and what each turn showed besides its messages (`turn_display`).
 */

import type { Kysely } from "kysely";
import type { Message } from "overlap-runtime";
import {
  DurableConversationStore,
  type DurableStore,
  type DurableWriteOptions,
} from "overlap-runtime/durable";
import { preparedQuery } from "./prepared-query.js";
import type { ShopDatabase } from "./shop-database.js";

/** What one turn showed besides its messages (see {@link ShopConversations.writeTurnDisplay}). */
export interface TurnDisplay {
  /** The position of the message that started the turn. */
  seq: number;
  /** The turn's kept events, in the order they were sent (plain JSON objects). */
  events: unknown[];
}

/** Conversations keyed by session id: the library's store, and what the shop keeps beside it. */
export class ShopConversations extends DurableConversationStore {
  readonly #db: Kysely<ShopDatabase>;
  readonly #timestamp: () => string;

  constructor(db: Kysely<ShopDatabase>, durable: DurableStore, timestamp: () => string) {
    super(durable.driver, durable.tables);
    this.#db = db;
    this.#timestamp = timestamp;
  }

  /** Writes as the library's store does, then marks the chat active (the list of chats). */
  override async writeVersioned(
    conversationId: string,
    from: number,
    messages: readonly Message[],
    options?: DurableWriteOptions,
  ): Promise<number> {
    const version = await super.writeVersioned(conversationId, from, messages, options);
    await touchSession(this.#db, conversationId, this.#timestamp());
    return version;
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

// Every write of a turn runs these: compiled once per database.
const touchSession = preparedQuery((db, conversationId: string, lastActiveAt: string) =>
  db.updateTable("sessions").set({ last_active_at: lastActiveAt }).where("id", "=", conversationId),
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
