/**
 * overlap's ToolLedger over SQL: finished tool outcomes keyed by (session, call id). The
 * session is part of the key because call ids are only unique within a conversation (some
 * OpenAI-compatible servers number calls `call_0`, `call_1`... in every session), and one
 * session must never replay another's outcome (nor see it).
 *
 * Each record keeps its call (the tool_use block and its place in the round). Tools with effects
 * write their record in the effect's own transaction (`insertLedgerRecord`, through the store's
 * `record` options, which also journal the call there); the runtime's later `record` of the same
 * call then changes nothing: the first record wins.
 */

import type { Kysely, Transaction } from "kysely";
import type { RecordedCall, StoredCall, ToolCall, ToolLedger, ToolOutcome } from "overlap-runtime";
import { preparedQuery } from "./prepared-query.js";
import type { ShopDatabase } from "./shop-database.js";
import { storedCallJson } from "./sql-round-journal.js";

/** The ledger of one session in the `tool_ledger` table. */
export class SqlToolLedger implements ToolLedger {
  readonly #db: Kysely<ShopDatabase>;
  readonly #sessionId: string;

  constructor(db: Kysely<ShopDatabase>, sessionId: string) {
    this.#db = db;
    this.#sessionId = sessionId;
  }

  async lookup(callId: string): Promise<ToolOutcome | undefined> {
    const row = (await outcomeOf(this.#db, this.#sessionId, callId)).rows[0];
    return row ? (JSON.parse(row.outcome) as ToolOutcome) : undefined;
  }

  async record(outcome: ToolOutcome, call?: ToolCall): Promise<void> {
    await insertLedgerRecord(this.#db, this.#sessionId, outcome, call);
  }
}

/**
 * Inserts a ledger record unless the call has one already (the first record is the effect that
 * happened; a late duplicate must not rewrite history). Pass a transaction to commit the record
 * with the effect it describes.
 */
export async function insertLedgerRecord(
  db: Kysely<ShopDatabase> | Transaction<ShopDatabase>,
  sessionId: string,
  outcome: ToolOutcome,
  call: StoredCall | undefined,
): Promise<void> {
  // `replayed` describes one delivery, not the call: it is never stored.
  const stored: ToolOutcome = { ...outcome };
  delete stored.replayed;
  await insertRecord(
    db,
    sessionId,
    outcome.callId,
    outcome.name,
    outcome.status,
    JSON.stringify(stored),
    call ? storedCallJson(call) : null,
    new Date().toISOString(),
  );
}

// The queries every tool call runs, compiled once per database.
const outcomeOf = preparedQuery((db, sessionId: string, callId: string) =>
  db
    .selectFrom("tool_ledger")
    .select("outcome")
    .where("session_id", "=", sessionId)
    .where("call_id", "=", callId),
);
const insertRecord = preparedQuery(
  (
    db,
    sessionId: string,
    callId: string,
    name: string,
    status: string,
    outcome: string,
    entry: string | null,
    createdAt: string,
  ) =>
    db
      .insertInto("tool_ledger")
      .values({
        session_id: sessionId,
        call_id: callId,
        name,
        status,
        outcome,
        entry,
        created_at: createdAt,
      })
      .onConflict((oc) => oc.columns(["session_id", "call_id"]).doNothing()),
);

/** The records (with their calls) of some of a session's calls, e.g. the journaled ones. */
export async function recordsOf(
  db: Kysely<ShopDatabase>,
  sessionId: string,
  calls: readonly StoredCall[],
): Promise<RecordedCall[]> {
  const byId = new Map(calls.map((call) => [call.block.id, call]));
  const ids = [...byId.keys()];
  const out: RecordedCall[] = [];
  // Chunked: both databases cap the number of parameters in one statement.
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db
      .selectFrom("tool_ledger")
      .select(["call_id", "outcome"])
      .where("session_id", "=", sessionId)
      .where("call_id", "in", ids.slice(i, i + 500))
      .execute();
    for (const row of rows) {
      const call = byId.get(row.call_id);
      if (call) out.push({ call, outcome: JSON.parse(row.outcome) as ToolOutcome });
    }
  }
  return out;
}
