/**
 * overlap's ToolLedger over SQL (B4): finished tool outcomes keyed by (session, call id). The
 * session is part of the key because call ids are only unique within a conversation (some
 * OpenAI-compatible servers number calls `call_0`, `call_1`... in every session), and one
 * session must never replay another's outcome (B12).
 */

import type { Kysely } from "kysely";
import type { ToolLedger, ToolOutcome } from "overlap-runtime";
import type { ShopDatabase } from "./shop-database.js";

/** The ledger of one session in the `tool_ledger` table. */
export class SqlToolLedger implements ToolLedger {
  readonly #db: Kysely<ShopDatabase>;
  readonly #sessionId: string;

  constructor(db: Kysely<ShopDatabase>, sessionId: string) {
    this.#db = db;
    this.#sessionId = sessionId;
  }

  async lookup(callId: string): Promise<ToolOutcome | undefined> {
    const row = await this.#db
      .selectFrom("tool_ledger")
      .select("outcome")
      .where("session_id", "=", this.#sessionId)
      .where("call_id", "=", callId)
      .executeTakeFirst();
    return row ? (JSON.parse(row.outcome) as ToolOutcome) : undefined;
  }

  async record(outcome: ToolOutcome): Promise<void> {
    // `replayed` describes one delivery, not the call: it is never stored.
    const stored: ToolOutcome = { ...outcome };
    delete stored.replayed;
    await this.#db
      .insertInto("tool_ledger")
      .values({
        session_id: this.#sessionId,
        call_id: outcome.callId,
        name: outcome.name,
        status: outcome.status,
        outcome: JSON.stringify(stored),
        created_at: new Date().toISOString(),
      })
      // The first record is the effect that happened; a late duplicate must not rewrite history.
      .onConflict((oc) => oc.columns(["session_id", "call_id"]).doNothing())
      .execute();
  }
}
