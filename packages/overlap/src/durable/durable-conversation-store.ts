/**
 * The ConversationStore over SQL: one row per message, and a version per conversation raised by
 * every write. A writer that read version v and writes with `expectedVersion: v` fails with
 * `OverlapError("conversation_conflict")`, changing nothing, when any other write happened since:
 * a writer that lost a race never overwrites, nor merges into, the winner's messages. A write that
 * names its turn's lease (`lease`) is also refused once another instance took the chat over.
 */

import {
  assertExpectedLength,
  type ConversationStore,
  type ConversationWriteOptions,
} from "../agent/conversation-store.js";
import { OverlapError } from "../errors.js";
import type { Message } from "../stream/message.js";
import type { DurableTables } from "./durable-schema.js";
import { assertLeaseHeld, chatLock } from "./durable-turn-leases.js";
import type { SqlDriver, SqlExecutor } from "./sql-driver.js";

/** Options of {@link DurableConversationStore.write}. */
export interface DurableWriteOptions extends ConversationWriteOptions {
  /**
   * The version the writer read ({@link DurableConversationStore.loadVersioned}, or the one its
   * last write returned): any other write since makes this one fail with `conversation_conflict`.
   */
  expectedVersion?: number;
  /** The turn whose lease the writer holds: refused (`TurnLeaseLostError`) once it lost it. */
  lease?: string;
  /**
   * Delete the conversation's round journal in the write's transaction: only for a write whose
   * messages hold every journaled call (a round's messages, or a restored round).
   */
  clearJournal?: boolean;
}

/** A conversation with the version it was read at. */
export interface VersionedConversation {
  messages: Message[];
  /** Raised by every write; 0 for a conversation never written. */
  version: number;
}

/** Conversations in the `messages` and `conversations` tables of a prefix. */
export class DurableConversationStore implements ConversationStore {
  readonly #driver: SqlDriver;
  readonly #tables: DurableTables;

  constructor(driver: SqlDriver, tables: DurableTables) {
    this.#driver = driver;
    this.#tables = tables;
  }

  async load(conversationId: string): Promise<Message[]> {
    return (await this.loadVersioned(conversationId)).messages;
  }

  /** The messages with the version they were read at, read in one transaction. */
  loadVersioned(conversationId: string): Promise<VersionedConversation> {
    const t = this.#tables;
    // A transaction (under the chat's lock): the version and the messages are of one moment.
    return this.#driver.transaction(
      async (tx) => {
        const version = await versionOf(tx, t, conversationId);
        const { rows } = await tx.query<{ role: Message["role"]; content: string }>(
          `SELECT role, content FROM ${t.messages} WHERE conversation_id = ? ORDER BY seq`,
          [conversationId],
        );
        const messages = rows.map((row) => ({ role: row.role, content: JSON.parse(row.content) }));
        return { messages: messages as Message[], version };
      },
      chatLock(t, conversationId),
    );
  }

  async write(
    conversationId: string,
    from: number,
    messages: readonly Message[],
    options?: DurableWriteOptions,
  ): Promise<void> {
    await this.writeVersioned(conversationId, from, messages, options);
  }

  /** Writes as {@link ConversationStore.write}; resolves to the conversation's new version. */
  writeVersioned(
    conversationId: string,
    from: number,
    messages: readonly Message[],
    options?: DurableWriteOptions,
  ): Promise<number> {
    const t = this.#tables;
    return this.#driver.transaction(
      async (tx) => {
        if (options?.lease !== undefined)
          await assertLeaseHeld(tx, t, conversationId, options.lease);
        const version = await versionOf(tx, t, conversationId);
        if (options?.expectedVersion !== undefined && options.expectedVersion !== version) {
          throw new OverlapError(
            "conversation_conflict",
            `Conversation ${conversationId} is at version ${version}, the writer read version ${options.expectedVersion}: another writer changed it.`,
          );
        }
        const { rows } = await tx.query<{ n: number | string }>(
          `SELECT COUNT(*) AS n FROM ${t.messages} WHERE conversation_id = ?`,
          [conversationId],
        );
        const length = Number(rows[0]?.n ?? 0);
        assertExpectedLength(conversationId, length, options);
        if (!Number.isInteger(from) || from < 0 || from > length) {
          throw new RangeError(`Cannot write at ${from}: the conversation has ${length} messages.`);
        }
        if (from < length) {
          await tx.query(`DELETE FROM ${t.messages} WHERE conversation_id = ? AND seq >= ?`, [
            conversationId,
            from,
          ]);
        }
        if (options?.clearJournal) {
          await tx.query(`DELETE FROM ${t.journal} WHERE conversation_id = ?`, [conversationId]);
        }
        await tx.query(
          `INSERT INTO ${t.conversations} (id, version, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`,
          [conversationId, version + 1, Date.now()],
        );
        // Chunked: both databases cap the parameters of one statement.
        for (let i = 0; i < messages.length; i += 200) {
          const chunk = messages.slice(i, i + 200);
          const values: unknown[] = [];
          chunk.forEach((message, j) => {
            values.push(
              conversationId,
              from + i + j,
              message.role,
              JSON.stringify(message.content),
            );
          });
          await tx.query(
            `INSERT INTO ${t.messages} (conversation_id, seq, role, content) VALUES ${chunk
              .map(() => "(?, ?, ?, ?)")
              .join(", ")}`,
            values,
          );
        }
        return version + 1;
      },
      chatLock(t, conversationId),
    );
  }
}

async function versionOf(
  tx: SqlExecutor,
  t: DurableTables,
  conversationId: string,
): Promise<number> {
  const { rows } = await tx.query<{ version: number | string }>(
    `SELECT version FROM ${t.conversations} WHERE id = ?`,
    [conversationId],
  );
  return Number(rows[0]?.version ?? 0);
}
