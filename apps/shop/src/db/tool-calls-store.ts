/**
 * The store's side of a session's tool calls, kept by overlap's durable stores (`overlap_*`
 * tables): its ledger (outcomes by call id) and its round journal (the calls of the round in
 * flight; what a crash left of them is restored by `DurableStore.recover`). {@link ToolCallsStore.record} is how every changing part of the
 * store (catalog changes, carts, orders) writes a call's record in the transaction of the effect
 * it describes: the shop's own Kysely transaction, seen by the durable stores through
 * `sqlExecutorOf`.
 */

import type { Transaction } from "kysely";
import type { RoundJournal, ToolCall, ToolLedger } from "overlap-runtime";
import { type DurableStore, idempotencyKeyOf } from "overlap-runtime/durable";
import { sqlExecutorOf } from "./kysely-sql-driver.js";
import type { ShopDatabase } from "./shop-database.js";
import type { CallRecord } from "./shop-store.js";
import type { StoreDialect } from "./store-dialect.js";

/** Ledgers, round journals and call records of every session. */
export class ToolCallsStore {
  readonly #durable: DurableStore;
  readonly #dialect: StoreDialect;
  readonly #recordDelayMs: number;

  /** `recordDelayMs`: see `KyselyShopStoreOptions.recordDelayMs` (test only). */
  constructor(durable: DurableStore, dialect: StoreDialect, recordDelayMs: number) {
    this.#durable = durable;
    this.#dialect = dialect;
    this.#recordDelayMs = recordDelayMs;
  }

  /** See `ShopStore.ledger`. */
  ledger(sessionId = ""): ToolLedger {
    return this.#durable.ledger(sessionId);
  }

  /** See `ShopStore.roundJournal`. */
  roundJournal(sessionId: string, turnId: string): RoundJournal {
    return this.#durable.journal(sessionId, turnId, (call: ToolCall) =>
      idempotencyKeyOf(sessionId, turnId, call),
    );
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
    await this.#durable
      .effects(record.sessionId, record.lease)
      .recordIn(sqlExecutorOf(trx, this.#dialect), {
        outcome: record.outcome,
        ...(record.call ? { call: record.call } : {}),
        ...(record.idempotencyKey === undefined ? {} : { idempotencyKey: record.idempotencyKey }),
      });
  }
}
