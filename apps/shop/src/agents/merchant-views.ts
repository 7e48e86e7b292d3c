/**
 * What the merchant's page shows of a change to several products: one table (a row per product,
 * its value before and after), the same in the approval request and in the result. Plain JSON,
 * amounts in cents and as formatted text; the page puts the words around it in its language.
 */

import type { DiscountPlan } from "../domain/discounts.js";
import type { EditedField, RestockPlan, RestockRequest } from "../domain/merchant.js";
import { formatCents } from "../domain/money.js";
import { countOf } from "../views/count-words.js";
import { type ProductView, productView } from "./shop-views.js";

/** One product's row: its stock in units, or its price in cents, before and after. */
export interface ChangeRowView {
  productId: string;
  name: string;
  before: number;
  after: number;
  /** `before` and `after` as shown ("$89.00" for a price, "12" for stock). */
  beforeText: string;
  afterText: string;
}

/** A change to several products as one table (`details` of an approval, `ui` of a result). */
export type ChangeTableView =
  | {
      kind: "restock";
      /** Units added to each, or the level each is filled up to. */
      quantity?: number;
      upTo?: number;
      rows: ChangeRowView[];
    }
  | {
      kind: "discount";
      category: string;
      /** The percentage off; absent when the discount ends. */
      percent?: number;
      rows: ChangeRowView[];
    };

/** The table of a bulk restock. */
export function restockTable(plan: RestockPlan, request: RestockRequest): ChangeTableView {
  return {
    kind: "restock",
    ...("upTo" in request ? { upTo: request.upTo } : { quantity: request.quantity }),
    rows: plan.rows.map((row) => ({
      productId: row.productId,
      name: row.name,
      before: row.before,
      after: row.after,
      beforeText: String(row.before),
      afterText: String(row.after),
    })),
  };
}

/** The table of a category discount (or of its end). */
export function discountTable(plan: DiscountPlan): ChangeTableView {
  return {
    kind: "discount",
    category: plan.category,
    ...(plan.percent === undefined ? {} : { percent: plan.percent }),
    rows: plan.rows.map((row) => ({
      productId: row.productId,
      name: row.name,
      before: row.beforeCents,
      after: row.afterCents,
      beforeText: formatCents(row.beforeCents),
      afterText: formatCents(row.afterCents),
    })),
  };
}

/** The sentence of a bulk restock, for the approval request and the model. */
export function restockSentence(plan: RestockPlan, request: RestockRequest): string {
  const products = countOf(plan.items.length, "product");
  return "upTo" in request
    ? `Fill ${products} up to ${countOf(request.upTo, "unit")} each (${countOf(
        plan.items.reduce((sum, item) => sum + item.quantity, 0),
        "unit",
      )} in all).`
    : `Restock ${products} with ${countOf(request.quantity, "unit")} each.`;
}

/** The sentence of a discount, for the approval request and the model. */
export function discountSentence(plan: DiscountPlan): string {
  const products = countOf(plan.rows.length, "product");
  return plan.percent === undefined
    ? `End the discount on ${plan.category}: ${products} back to their list price.`
    : `${plan.percent}% off ${plan.category}: ${products} at the sale price.`;
}

/** A product edit as the page shows it: the product before and after, and the fields changed. */
export interface ProductEditView {
  before: ProductView;
  product: ProductView;
  changed: EditedField[];
}

/** The view of an edit. */
export function productEditView(edit: {
  before: Parameters<typeof productView>[0];
  product: Parameters<typeof productView>[0];
  changed: readonly EditedField[];
}): ProductEditView {
  return {
    before: productView(edit.before),
    product: productView(edit.product),
    changed: [...edit.changed],
  };
}
