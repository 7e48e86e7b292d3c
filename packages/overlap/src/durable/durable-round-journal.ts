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
import { WriteBatcher } from "./write-batcher.js";

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
  /** The round's calls complete close together: their rows go out grouped. */
  readonly #rows = new WriteBatcher<JournaledCall>((calls) =>
    insertJournalRows(this.#driver, this.#tables, this.#chatId, calls),
  );

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

  callComplete(call: ToolCall): Promise<void> {
    return this.#rows.add({
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
export function insertJournalRow(
  db: SqlExecutor,
  t: DurableTables,
  chatId: string,
  call: JournaledCall,
): Promise<void> {
  return insertJournalRows(db, t, chatId, [call]);
}

/** Journals calls not journaled already, in one statement. */
export async function insertJournalRows(
  db: SqlExecutor,
  t: DurableTables,
  chatId: string,
  calls: readonly JournaledCall[],
): Promise<void> {
  if (calls.length === 0) return;
  const now = Date.now();
  await db.query(
    `INSERT INTO ${t.journal}
       (conversation_id, call_id, turn_id, round, call_index, idempotency_key, entry, created_at)
     VALUES ${calls.map(() => "(?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}
     ON CONFLICT (conversation_id, call_id) DO NOTHING`,
    calls.flatMap((call) => [
      chatId,
      call.block.id,
      call.turnId,
      call.round,
      call.index,
      call.idempotencyKey,
      JSON.stringify({ round: call.round, index: call.index, block: call.block }),
      now,
    ]),
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
