/**
 * The RoundJournal over SQL: each valid call of a chat's round in flight, written at its block
 * stop with the call's idempotency key, and again (if missing) in the transaction of an effect
 * the tool records with its ledger record. The conversation write that stores the round clears
 * the chat's rows in its own transaction (`clearJournal`), so rows only outlive a round that was
 * never stored: a crash cut it off, and the next turn restores it (`restoreRound`).
 */

import type { StoredCall } from "../agent/restore-round.js";
import type { RoundJournal } from "../round/round-journal.js";
import type { ToolCall } from "../stream/tool-call.js";
import type { DurableTables } from "./durable-schema.js";
import type { SqlDriver, SqlExecutor } from "./sql-driver.js";

/** A journaled call with the turn that made it and its idempotency key. */
export interface JournaledCall extends StoredCall {
  turnId: string;
  idempotencyKey: string;
}

/** The journal of one chat's turn. */
export class DurableRoundJournal implements RoundJournal {
  readonly #driver: SqlDriver;
  readonly #tables: DurableTables;
  readonly #chatId: string;
  readonly #turnId: string;
  readonly #keyOf: (call: ToolCall) => string;

  constructor(
    driver: SqlDriver,
    tables: DurableTables,
    chatId: string,
    turnId: string,
    keyOf: (call: ToolCall) => string,
  ) {
    this.#driver = driver;
    this.#tables = tables;
    this.#chatId = chatId;
    this.#turnId = turnId;
    this.#keyOf = keyOf;
  }

  async callComplete(call: ToolCall): Promise<void> {
    await insertJournalRow(this.#driver, this.#tables, this.#chatId, {
      round: call.round,
      index: call.index,
      block: call.block,
      turnId: this.#turnId,
      idempotencyKey: this.#keyOf(call),
    });
  }

  // No roundEnd: the conversation write that stores the round clears the rows atomically.
}

/** Journals a call unless it is journaled already (an effect's transaction calls it too). */
export async function insertJournalRow(
  db: SqlExecutor,
  t: DurableTables,
  chatId: string,
  call: JournaledCall,
): Promise<void> {
  await db.query(
    `INSERT INTO ${t.journal}
       (conversation_id, call_id, turn_id, round, call_index, idempotency_key, entry, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (conversation_id, call_id) DO NOTHING`,
    [
      chatId,
      call.block.id,
      call.turnId,
      call.round,
      call.index,
      call.idempotencyKey,
      JSON.stringify({ round: call.round, index: call.index, block: call.block }),
      Date.now(),
    ],
  );
}

/** The chat's journal rows not cleared yet, in call order. */
export async function journaledCalls(
  db: SqlExecutor,
  t: DurableTables,
  chatId: string,
): Promise<JournaledCall[]> {
  const { rows } = await db.query<{ entry: string; turn_id: string; idempotency_key: string }>(
    `SELECT entry, turn_id, idempotency_key FROM ${t.journal}
     WHERE conversation_id = ? ORDER BY round, call_index, call_id`,
    [chatId],
  );
  return rows.map((row) => ({
    ...(JSON.parse(row.entry) as StoredCall),
    turnId: row.turn_id,
    idempotencyKey: row.idempotency_key,
  }));
}
