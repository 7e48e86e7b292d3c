/**
 * The merchant's changes to the catalog: a restock, a price, one product's edit, a restock of
 * several products and a category's discount. Each runs in one transaction with the call's record
 * (`RecordOption`), reads what it changes inside it, and leaves the rule to the domain.
 */

import type { Kysely, UpdateQueryBuilder, UpdateResult } from "kysely";
import { EffectChangedError, sameEffect } from "overlap-runtime";
import {
  type DiscountPlan,
  discountEffect,
  listPriceOf,
  planDiscount,
} from "../domain/discounts.js";
import {
  changePrice,
  editProduct,
  MAX_PRODUCTS_PER_CHANGE,
  type ProductChangeResult,
  type ProductEdit,
  type ProductEditResult,
  planRestock,
  type RestockPlan,
  type RestockRequest,
  restockEffect,
  restockProduct,
} from "../domain/merchant.js";
import type { RuleViolation } from "../domain/rule-violation.js";
import { readProduct, toProduct } from "./product-rows.js";
import type { ShopDatabase } from "./shop-database.js";
import type { ApprovedOption, RecordOption } from "./shop-store.js";
import type { ToolCallsStore } from "./tool-calls-store.js";

/** The catalog's changes (see `ShopStore` for each method). */
export class MerchantChangesStore {
  readonly #db: Kysely<ShopDatabase>;
  readonly #dialect: "sqlite" | "postgres";
  readonly #calls: ToolCallsStore;

  /** `calls` writes each change's call record in the change's transaction. */
  constructor(db: Kysely<ShopDatabase>, dialect: "sqlite" | "postgres", calls: ToolCallsStore) {
    this.#db = db;
    this.#dialect = dialect;
    this.#calls = calls;
  }

  async restock(
    productId: string,
    quantity: number,
    options: RecordOption<ProductChangeResult, undefined> = {},
  ): Promise<ProductChangeResult> {
    return this.#changeProduct(
      productId,
      options,
      (product) => restockProduct(product, quantity),
      // Relative update: a checkout committing meanwhile in another process is not overwritten.
      (update) => update.set((eb) => ({ stock: eb("stock", "+", quantity) })),
    );
  }

  async setPrice(
    productId: string,
    priceCents: number,
    options: RecordOption<ProductChangeResult, undefined> = {},
  ): Promise<ProductChangeResult> {
    return this.#changeProduct(
      productId,
      options,
      (product) => changePrice(product, priceCents),
      (update) => update.set({ price_cents: priceCents }),
    );
  }

  /**
   * One product's change in one transaction: the domain's rule on the product as read inside it,
   * then (if the rule allows) `set` on its row, the product read again, and the call's record.
   */
  #changeProduct(
    productId: string,
    options: RecordOption<ProductChangeResult, undefined>,
    rule: (product: Awaited<ReturnType<typeof readProduct>>) => ProductChangeResult,
    set: (
      update: UpdateQueryBuilder<ShopDatabase, "products", "products", UpdateResult>,
    ) => UpdateQueryBuilder<ShopDatabase, "products", "products", UpdateResult>,
  ): Promise<ProductChangeResult> {
    return this.#db.transaction().execute(async (trx) => {
      let result = rule(await readProduct(trx, productId));
      if (result.ok) {
        await set(trx.updateTable("products")).where("id", "=", productId).execute();
        result = { ok: true, product: (await readProduct(trx, productId)) ?? result.product };
      }
      if (options.record) await this.#calls.record(trx, await options.record(result, undefined));
      return result;
    });
  }

  async editProduct(
    productId: string,
    edit: ProductEdit,
    options: RecordOption<ProductEditResult, undefined> = {},
  ): Promise<ProductEditResult> {
    return this.#db.transaction().execute(async (trx) => {
      const others = await trx
        .selectFrom("products")
        .select("name")
        .where("id", "!=", productId)
        .execute();
      const result = editProduct(
        await readProduct(trx, productId),
        edit,
        others.map((r) => r.name),
      );
      if (result.ok) {
        await trx
          .updateTable("products")
          .set({
            name: result.product.name,
            description: result.product.description,
            price_cents: listPriceOf(result.product),
          })
          .where("id", "=", productId)
          .execute();
      }
      const final: ProductEditResult = result.ok
        ? { ...result, product: (await readProduct(trx, productId)) ?? result.product }
        : result;
      if (options.record) await this.#calls.record(trx, await options.record(final, undefined));
      return final;
    });
  }

  async restockProducts(
    productIds: readonly string[],
    request: RestockRequest,
    options: RecordOption<RestockPlan | RuleViolation, undefined> & ApprovedOption = {},
  ): Promise<RestockPlan | RuleViolation> {
    return this.#db.transaction().execute(async (trx) => {
      const ids = [...new Set(productIds)].sort();
      // Locked in id order, as checkout takes its rows: no deadlock between the two.
      const rows =
        ids.length === 0 || ids.length > MAX_PRODUCTS_PER_CHANGE
          ? []
          : await trx
              .selectFrom("products")
              .selectAll()
              .where("id", "in", ids)
              .orderBy("id")
              .$if(this.#dialect === "postgres", (q) => q.forUpdate())
              .execute();
      const plan = planRestock(productIds, new Map(rows.map((r) => [r.id, toProduct(r)])), request);
      if (plan.ok) bind(options, restockEffect(plan, request));
      let result: RestockPlan | RuleViolation = plan;
      if (plan.ok) {
        const added = new Map(plan.items.map((i) => [i.productId, i.quantity]));
        for (const [id, quantity] of [...added].sort(([x], [y]) => (x < y ? -1 : 1))) {
          // Relative: a checkout committing meanwhile in another process is not overwritten.
          await trx
            .updateTable("products")
            .set((eb) => ({ stock: eb("stock", "+", quantity) }))
            .where("id", "=", id)
            .execute();
        }
        const after = await trx
          .selectFrom("products")
          .select(["id", "stock"])
          .where("id", "in", ids)
          .execute();
        const stock = new Map(after.map((r) => [r.id, Number(r.stock)]));
        result = {
          ...plan,
          rows: plan.rows.map((row) => {
            const now = stock.get(row.productId) ?? row.after;
            return { ...row, before: now - (added.get(row.productId) ?? 0), after: now };
          }),
        };
      }
      if (options.record) await this.#calls.record(trx, await options.record(result, undefined));
      return result;
    });
  }

  async setDiscount(
    category: string,
    percent: number | undefined,
    options: RecordOption<DiscountPlan | RuleViolation, undefined> & ApprovedOption = {},
  ): Promise<DiscountPlan | RuleViolation> {
    return this.#db.transaction().execute(async (trx) => {
      const products = (await trx.selectFrom("products").selectAll().execute()).map(toProduct);
      const plan = planDiscount(products, category, percent);
      if (plan.ok) bind(options, discountEffect(plan));
      if (plan.ok) {
        await trx
          .updateTable("products")
          .set({ discount_percent: plan.percent ?? null })
          .where("category", "=", plan.category)
          .execute();
      }
      if (options.record) await this.#calls.record(trx, await options.record(plan, undefined));
      return plan;
    });
  }
}

/**
 * What the merchant approved is what changes: a change whose effect (read inside its
 * transaction, before any write) differs from the approved one does nothing and is asked again.
 */
function bind(options: ApprovedOption, current: unknown): void {
  if (options.approved !== undefined && !sameEffect(options.approved.effect, current)) {
    throw new EffectChangedError(current);
  }
}
