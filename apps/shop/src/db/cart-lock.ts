/**
 * The cart lock. The cart belongs to the shopper, so the lock is per shopper: every chat of a
 * shopper takes the same one. It has two halves: a {@link KeyedQueue} in the process, which runs a
 * cart's operations one at a time in call order, and the dialect's lock inside the transaction,
 * which makes other processes sharing the database wait (PostgreSQL advisory lock; SQLite's BEGIN
 * IMMEDIATE write lock).
 */

import type { Kysely, Transaction } from "kysely";
import { KeyedQueue } from "./keyed-queue.js";
import { preparedQuery } from "./prepared-query.js";
import type { ShopDatabase } from "./shop-database.js";
import type { StoreDialect } from "./store-dialect.js";

/** How many ids' cart owners a store remembers. */
const MAX_OWNERS = 10_000;

/** Runs a cart's operations one at a time, in this process and across processes. */
export class CartLock {
  readonly #db: Kysely<ShopDatabase>;
  readonly #dialect: StoreDialect;
  readonly #queue = new KeyedQueue();
  /**
   * The cart owner of each id given to the cart methods, as a promise made at the first call:
   * calls with one id find their owner in call order, so they queue in call order. A session's
   * shopper never changes, so entries never go stale; the oldest go beyond {@link MAX_OWNERS}.
   */
  readonly #owners = new Map<string, Promise<string>>();

  constructor(db: Kysely<ShopDatabase>, dialect: StoreDialect) {
    this.#db = db;
    this.#dialect = dialect;
  }

  /**
   * Runs `fn` in a transaction holding the lock of the cart `sessionId` uses (its shopper's),
   * after the cart's earlier calls from any chat.
   */
  async run<T>(
    sessionId: string,
    fn: (trx: Transaction<ShopDatabase>, owner: string) => Promise<T>,
  ): Promise<T> {
    const owner = await this.#cartOwner(sessionId);
    return this.#queue.run(owner, () =>
      this.#db.transaction().execute(async (trx) => {
        await this.#dialect.lock(trx, `cart:${owner}`);
        return fn(trx, owner);
      }),
    );
  }

  /** The key of the cart `id` uses: its session's shopper, else `id` itself. */
  #cartOwner(id: string): Promise<string> {
    const known = this.#owners.get(id);
    if (known) return known;
    const owner = shopperOf(this.#db, id).then((result) => result.rows[0]?.shopper_id ?? id);
    this.#owners.set(id, owner);
    // A failed lookup is not remembered; the map stays bounded (oldest first out).
    owner.catch(() => {
      if (this.#owners.get(id) === owner) this.#owners.delete(id);
    });
    if (this.#owners.size > MAX_OWNERS) {
      const oldest = this.#owners.keys().next().value;
      if (oldest !== undefined) this.#owners.delete(oldest);
    }
    return owner;
  }
}

// The first cart call of each id looks its owner up: compiled once per database.
const shopperOf = preparedQuery((db, sessionId: string) =>
  db.selectFrom("sessions").select("shopper_id").where("id", "=", sessionId),
);
