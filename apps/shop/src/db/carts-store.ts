/**
 * The shoppers' carts: read, check the rules, write, as one unit under the cart's lock
 * ({@link CartLock}), with the call's record in the same transaction. Checkout takes the same lock
 * through {@link CartsStore.locked}.
 */

import type { Transaction } from "kysely";
import { type Cart, type CartRules, isWellFormedCart } from "../domain/cart.js";
import type { CartLock } from "./cart-lock.js";
import { readCart, writeCart } from "./cart-rows.js";
import { readProduct } from "./product-rows.js";
import type { ShopDatabase } from "./shop-database.js";
import type { CartChange, CartTransaction, RecordOption } from "./shop-store.js";
import type { ToolCallsStore } from "./tool-calls-store.js";

/** How a {@link CartsStore} is built. */
export interface CartsStoreOptions {
  lock: CartLock;
  /** The limits the cart's transaction hands the domain's cart functions. */
  rules: CartRules;
  /** Writes a change's call record in the change's transaction. */
  calls: ToolCallsStore;
  /** The store's timestamps (shared with its other parts). */
  timestamp: () => string;
}

/** The carts part of the store (see `ShopStore` for each method). */
export class CartsStore {
  readonly #lock: CartLock;
  readonly #rules: CartRules;
  readonly #calls: ToolCallsStore;
  readonly #now: () => string;

  constructor(options: CartsStoreOptions) {
    this.#lock = options.lock;
    this.#rules = options.rules;
    this.#calls = options.calls;
    this.#now = options.timestamp;
  }

  withCart<R extends CartChange>(
    sessionId: string,
    fn: (cart: Cart, tx: CartTransaction) => R | Promise<R>,
    options: RecordOption<R> = {},
  ): Promise<R> {
    return this.#lock.run(sessionId, async (trx, owner) => {
      const cart = await readCart(trx, owner);
      const tx = this.#cartTransaction(trx, sessionId, owner);
      const result = await fn(cart, tx);
      const change: CartChange = result;
      if (change.ok && change.cart !== cart) {
        if (!isWellFormedCart(change.cart)) {
          throw new TypeError("withCart: the callback returned a malformed cart; nothing stored.");
        }
        await writeCart(trx, owner, change.cart, this.#now());
      }
      if (options.record) await this.#calls.record(trx, await options.record(result, tx));
      return result;
    });
  }

  async getCart(sessionId: string): Promise<Cart> {
    const result = await this.withCart(sessionId, (cart) => ({ ok: true, cart }) as const);
    return result.cart;
  }

  /**
   * Runs `fn` under the lock of the cart `sessionId` uses, in its transaction (`trx`, and `tx`
   * reading in it): for what changes the cart besides `withCart` (checkout empties it).
   */
  locked<T>(
    sessionId: string,
    fn: (trx: Transaction<ShopDatabase>, tx: CartTransaction) => Promise<T>,
  ): Promise<T> {
    return this.#lock.run(sessionId, (trx, owner) =>
      fn(trx, this.#cartTransaction(trx, sessionId, owner)),
    );
  }

  /** Reads inside a cart transaction. */
  #cartTransaction(
    trx: Transaction<ShopDatabase>,
    sessionId: string,
    owner: string,
  ): CartTransaction {
    return {
      sessionId,
      shopperId: owner,
      rules: this.#rules,
      getProduct: (productId) => readProduct(trx, productId),
      getCart: () => readCart(trx, owner),
    };
  }
}
