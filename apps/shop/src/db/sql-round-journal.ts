/**
 * overlap's RoundJournal over SQL: each valid call of a session's round in flight, written at its
 * block stop (`round_journal`), and again (if missing) in the transaction of the call's effect,
 * with its ledger record. The conversation write that stores the round clears the session's rows
 * in its own transaction (`clearRoundJournal`), so rows only outlive a round that was never
 * stored: a crash cut it off, and the next turn restores it (`restoreRound`). The journal alone
 * says which calls to restore; the ledger gives the outcomes of those that ran.
 */

import type { Kysely, Transaction } from "kysely";
import type { CallEntry, RoundJournal } from "overlap-runtime";
import type { ShopDatabase } from "./shop-database.js";

/** The journal of one session. */
export class SqlRoundJournal implements RoundJournal {
  readonly #db: Kysely<ShopDatabase>;
  readonly #sessionId: string;

  constructor(db: Kysely<ShopDatabase>, sessionId: string) {
    this.#db = db;
    this.#sessionId = sessionId;
  }

  async callComplete(entry: CallEntry): Promise<void> {
    await insertJournalRow(this.#db, this.#sessionId, entry);
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
  entry: CallEntry,
): Promise<void> {
  await db
    .insertInto("round_journal")
    .values({
      session_id: sessionId,
      call_id: entry.block.id,
      round: entry.round,
      call_index: entry.index,
      entry: JSON.stringify(entry),
      created_at: new Date().toISOString(),
    })
    .onConflict((oc) => oc.columns(["session_id", "call_id"]).doNothing())
    .execute();
}

/** The session's journal rows not cleared yet, in call order. */
export async function journaledCalls(
  db: Kysely<ShopDatabase>,
  sessionId: string,
): Promise<CallEntry[]> {
  const rows = await db
    .selectFrom("round_journal")
    .select("entry")
    .where("session_id", "=", sessionId)
    .orderBy("round")
    .orderBy("call_index")
    .execute();
  return rows.map((row) => JSON.parse(row.entry) as CallEntry);
}
