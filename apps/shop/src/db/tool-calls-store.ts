/**
 * The store's side of a session's tool calls: its ledger (outcomes by call id), its round journal
 * (the calls of the round in flight) and what a crash left of them. {@link ToolCallsStore.record}
 * is how every changing part of the store (catalog changes, carts, orders) writes a call's record
 * in the transaction of the effect it describes.
 */

import type { Kysely, Transaction } from "kysely";
import type { RestoreRoundInput, RoundJournal, ToolLedger } from "overlap-runtime";
import type { ShopDatabase } from "./shop-database.js";
import type { CallRecord } from "./shop-store.js";
import { insertJournalRow, journaledCalls, SqlRoundJournal } from "./sql-round-journal.js";
import { insertLedgerRecord, recordsOf, SqlToolLedger } from "./sql-tool-ledger.js";
import { assertLeaseHeld } from "./sql-turn-leases.js";
import type { StoreDialect } from "./store-dialect.js";

/** Ledgers, round journals and call records of every session. */
export class ToolCallsStore {
  readonly #db: Kysely<ShopDatabase>;
  readonly #dialect: StoreDialect;
  readonly #recordDelayMs: number;

  /** `recordDelayMs`: see `KyselyShopStoreOptions.recordDelayMs` (test only). */
  constructor(db: Kysely<ShopDatabase>, dialect: StoreDialect, recordDelayMs: number) {
    this.#db = db;
    this.#dialect = dialect;
    this.#recordDelayMs = recordDelayMs;
  }

  /** See `ShopStore.ledger`. */
  ledger(sessionId = ""): ToolLedger {
    return new SqlToolLedger(this.#db, sessionId);
  }

  /** See `ShopStore.roundJournal`. */
  roundJournal(sessionId: string): RoundJournal {
    return new SqlRoundJournal(this.#db, sessionId);
  }

  /** See `ShopStore.lostCalls`. */
  async lostCalls(sessionId: string, present: ReadonlySet<string>): Promise<RestoreRoundInput> {
    const journaled = (await journaledCalls(this.#db, sessionId)).filter(
      (call) => !present.has(call.block.id),
    );
    return { journaled, recorded: await recordsOf(this.#db, sessionId, journaled) };
  }

  /**
   * Writes a call's ledger record in the transaction of its effect (test delay first), and
   * journals the call there if its block-stop journal write has not landed: a call with an effect
   * is always journaled, and so restored, until a conversation write stores its round.
   */
  async record(trx: Transaction<ShopDatabase>, record: CallRecord): Promise<void> {
    if (this.#recordDelayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, this.#recordDelayMs));
    }
    // After the delay: a takeover during it must find this effect rolled back.
    if (record.lease !== undefined) {
      await assertLeaseHeld(trx, this.#dialect, record.sessionId, record.lease);
    }
    await insertLedgerRecord(trx, record.sessionId, record.outcome, record.call);
    if (record.call) await insertJournalRow(trx, record.sessionId, record.call);
  }
}
