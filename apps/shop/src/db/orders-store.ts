/**
 * Orders: checkout turns the shopper's cart into an order at current prices, takes the stock and
 * empties the cart in one transaction under the cart's lock, idempotent per chat and call id; the
 * merchant reads the orders and their summary.
 */

import { randomBytes } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import { EffectChangedError, sameEffect } from "overlap-runtime";
import type { CartRules } from "../domain/cart.js";
import type { Product } from "../domain/catalog.js";
import { type SalesSummary, summarizeSales } from "../domain/merchant.js";
import { checkoutEffect, checkout as draftOrder, type Order } from "../domain/orders.js";
import { violation } from "../domain/rule-violation.js";
import { readCart } from "./cart-rows.js";
import type { CartsStore } from "./carts-store.js";
import { insertOrder, readOrders } from "./order-rows.js";
import { readProduct } from "./product-rows.js";
import type { ShopDatabase } from "./shop-database.js";
import type { CheckoutOptions, CheckoutResult, ListOrdersOptions } from "./shop-store.js";
import type { ToolCallsStore } from "./tool-calls-store.js";

/** How an {@link OrdersStore} is built. */
export interface OrdersStoreOptions {
  db: Kysely<ShopDatabase>;
  /** Checkout runs under the cart's lock, in the cart's transaction. */
  carts: CartsStore;
  /** The limits checkout holds the cart to. */
  rules: CartRules;
  /** Writes a checkout's call record in its transaction. */
  calls: ToolCallsStore;
  /** The store's timestamps (shared with its other parts). */
  timestamp: () => string;
}

/** Thrown inside a checkout transaction to roll it back when stock vanished under it. */
class StockTaken extends Error {
  constructor(readonly productName: string) {
    super(`Stock of ${productName} was taken by another checkout.`);
  }
}

/** The orders part of the store (see `ShopStore` for each method). */
export class OrdersStore {
  readonly #db: Kysely<ShopDatabase>;
  readonly #carts: CartsStore;
  readonly #rules: CartRules;
  readonly #calls: ToolCallsStore;
  readonly #now: () => string;

  constructor(options: OrdersStoreOptions) {
    this.#db = options.db;
    this.#carts = options.carts;
    this.#rules = options.rules;
    this.#calls = options.calls;
    this.#now = options.timestamp;
  }

  async checkout(
    sessionId: string,
    callId: string,
    options: CheckoutOptions = {},
  ): Promise<CheckoutResult> {
    const record = options.record;
    try {
      return await this.#carts.locked(sessionId, async (trx, tx) => {
        const result = await this.#placeOrder(trx, sessionId, tx.shopperId, callId, options);
        if (record) await this.#calls.record(trx, await record(result, tx));
        return result;
      });
    } catch (error) {
      if (!(error instanceof StockTaken)) throw error;
      return violation(
        "insufficient_stock",
        `${error.productName} sold out while checking out; nothing was charged. Please review the cart.`,
      );
    }
  }

  async #placeOrder(
    trx: Transaction<ShopDatabase>,
    sessionId: string,
    owner: string,
    callId: string,
    options: CheckoutOptions,
  ): Promise<CheckoutResult> {
    const placed = await readOrders(trx, { sessionId, callId });
    if (placed[0]) return { ok: true, order: placed[0], replayed: true, priceChanges: [] };
    const cart = await readCart(trx, owner);
    const products = new Map<string, Product>();
    for (const line of cart.lines) {
      const product = await readProduct(trx, line.productId);
      if (product) products.set(product.id, product);
    }
    const result = draftOrder(cart, products, this.#rules);
    if (!result.ok) return result;
    const { draft } = result;
    if (options.approved !== undefined) {
      // What the shopper confirmed is what is ordered: any other order (a price changed, the cart
      // was edited in another chat or over the API, a sale ended) places nothing and is asked
      // again. Compared under the cart's lock, before any write: nothing to roll back.
      const current = checkoutEffect(draft);
      if (!sameEffect(options.approved.effect, current)) throw new EffectChangedError(current);
    }
    // Rows are locked in id order: two checkouts of the same products in different cart
    // orders would otherwise deadlock in PostgreSQL.
    const decrements = [...draft.stockDecrements].sort((a, b) =>
      a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0,
    );
    for (const { productId, quantity } of decrements) {
      // Carts do not reserve stock, so another session's checkout (in this or another
      // process) may have taken it since the read: the conditional update is the arbiter.
      const update = await trx
        .updateTable("products")
        .set((eb) => ({ stock: eb("stock", "-", quantity) }))
        .where("id", "=", productId)
        .where("stock", ">=", quantity)
        .executeTakeFirst();
      if (Number(update.numUpdatedRows) !== 1) {
        throw new StockTaken(products.get(productId)?.name ?? productId);
      }
    }
    const order: Order = {
      id: `o-${randomBytes(6).toString("hex")}`,
      sessionId,
      shopperId: owner,
      callId,
      lines: draft.lines,
      totalCents: draft.totalCents,
      itemCount: draft.itemCount,
      createdAt: this.#now(),
    };
    await insertOrder(trx, order);
    await trx.deleteFrom("carts").where("shopper_id", "=", owner).execute();
    return { ok: true, order, replayed: false, priceChanges: draft.priceChanges };
  }

  async listOrders(options: ListOrdersOptions = {}): Promise<Order[]> {
    return readOrders(this.#db, { ...options, limit: options.limit ?? 50 });
  }

  async salesSummary(options: { top?: number } = {}): Promise<SalesSummary> {
    return summarizeSales(await readOrders(this.#db, {}), options.top);
  }
}
