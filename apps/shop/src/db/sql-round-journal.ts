/**
 * overlap's RoundJournal over SQL: each valid call of a session's round in flight, written at its
 * block stop (`round_journal`), and again (if missing) in the transaction of the call's effect,
 * with its ledger record. The conversation write that stores the round clears the session's rows
 * in its own transaction (`clearRoundJournal`), so rows only outlive a round that was never
 * stored: a crash cut it off, and the next turn restores it (`restoreRound`). The journal alone
 * says which calls to restore; the ledger gives the outcomes of those that ran.
 */

import type { Kysely, Transaction } from "kysely";
import type { RoundJournal, StoredCall, ToolCall } from "overlap-runtime";
import { preparedQuery } from "./prepared-query.js";
import type { ShopDatabase } from "./shop-database.js";

/** The journal of one session. */
export class SqlRoundJournal implements RoundJournal {
  readonly #db: Kysely<ShopDatabase>;
  readonly #sessionId: string;

  constructor(db: Kysely<ShopDatabase>, sessionId: string) {
    this.#db = db;
    this.#sessionId = sessionId;
  }

  async callComplete(call: ToolCall): Promise<void> {
    await insertJournalRow(this.#db, this.#sessionId, call);
  }

  // No roundEnd: the conversation write that stores the round clears the rows atomically.
}

/**
 * Journals a call unless it is journaled already. A tool's effect transaction calls it too (with
 * its ledger record), so a call with an effect is journaled even when the block-stop write lost
 * the race against the effect, or failed.
 */
export async function insertJournalRow(
  db: Kysely<ShopDatabase> | Transaction<ShopDatabase>,
  sessionId: string,
  call: StoredCall,
): Promise<void> {
  await insertRow(
    db,
    sessionId,
    call.block.id,
    call.round,
    call.index,
    storedCallJson(call),
    new Date().toISOString(),
  );
}

/**
 * The JSON a row keeps of a call: what `restoreRound` reads back (round, index, tool_use block).
 * The rest of the call record (its raw and parsed arguments) repeats the block's input, so it is
 * left out, and rows keep the shape they had before the record carried it.
 */
export function storedCallJson(call: StoredCall): string {
  return JSON.stringify({ round: call.round, index: call.index, block: call.block });
}

// Run at every tool call's block stop: compiled once per database.
const insertRow = preparedQuery(
  (
    db,
    sessionId: string,
    callId: string,
    round: number,
    callIndex: number,
    entry: string,
    createdAt: string,
  ) =>
    db
      .insertInto("round_journal")
      .values({
        session_id: sessionId,
        call_id: callId,
        round,
        call_index: callIndex,
        entry,
        created_at: createdAt,
      })
      .onConflict((oc) => oc.columns(["session_id", "call_id"]).doNothing()),
);

/** The session's journal rows not cleared yet, in call order. */
export async function journaledCalls(
  db: Kysely<ShopDatabase>,
  sessionId: string,
): Promise<StoredCall[]> {
  const { rows } = await journalOf(db, sessionId);
  return rows.map((row) => JSON.parse(row.entry) as StoredCall);
}

const journalOf = preparedQuery((db, sessionId: string) =>
  db
    .selectFrom("round_journal")
    .select("entry")
    .where("session_id", "=", sessionId)
    .orderBy("round")
    .orderBy("call_index"),
);
