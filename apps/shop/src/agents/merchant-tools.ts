/**
 * The merchant agent's tools. Changing tools (restocks, prices, product edits, discounts) exist
 * only in a merchant session's executor; the read-only set is what a shopper's `ask_merchant`
 * delegate may use (a shopper can never change the shop). A change to more than one product
 * (a bulk restock, a category discount) waits for the merchant's approval, which shows the whole
 * change as one table; its result is the same table.
 */

import { type AnyTool, defineTool, type ToolResultSpec } from "overlap-runtime";
import { z } from "zod";
import type { Product } from "../domain/catalog.js";
import {
  activeDiscounts,
  type DiscountPlan,
  discountEffect,
  MAX_DISCOUNT_PERCENT,
  planDiscount,
  priceWords,
} from "../domain/discounts.js";
import {
  MAX_PRODUCTS_PER_CHANGE,
  MAX_RESTOCK_QUANTITY,
  type ProductChangeResult,
  type ProductEditResult,
  planRestock,
  type RestockPlan,
  type RestockRequest,
  restockEffect,
} from "../domain/merchant.js";
import { dollarsToCents, formatCents } from "../domain/money.js";
import type { RuleViolation } from "../domain/rule-violation.js";
import { countOf } from "../views/count-words.js";
import { recordCall } from "./call-record.js";
import {
  discountSentence,
  discountTable,
  productEditView,
  restockSentence,
  restockTable,
} from "./merchant-views.js";
import { ruleResult, unknownProductResult } from "./rule-problem.js";
import { productLine, productView } from "./shop-views.js";
import type { ShopToolContext } from "./tool-context.js";

const productId = z.string().min(1).max(40).describe("A product id, like p-0001.");

/** Days until a restock arrives, derived from the product so answers are stable. */
function restockDays(product: Product): number {
  const seed = [...product.id].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 997, 7);
  return product.stock > 5 ? 0 : 3 + (seed % 12);
}

/** The bulk discount policy: 5% from 5 units, 10% from 10, 15% from 25. */
export function bulkDiscountPercent(units: number): number {
  return units >= 25 ? 15 : units >= 10 ? 10 : units >= 5 ? 5 : 0;
}

/** Tools that only read. */
function readOnlyTools(): AnyTool<ShopToolContext>[] {
  return [
    defineTool({
      name: "low_stock_report",
      description: "Products at or below a stock threshold, emptiest first.",
      input: z.object({ threshold: z.number().int().min(0).max(1000).default(5) }),
      run: async ({ threshold }, { context }) => {
        const low = await context.store.lowStock(threshold);
        if (low.length === 0) return `No product has ${threshold} or fewer units in stock.`;
        return {
          text: `${countOf(low.length, "product")} at or below ${threshold}:\n${low.map(productLine).join("\n")}`,
          events: [{ type: "low-stock", threshold, products: low.map(productView) }],
        };
      },
    }),
    defineTool({
      name: "restock_eta",
      description: "When a product's next restock arrives.",
      input: z.object({ productId }),
      run: async ({ productId: id }, { context }) => {
        const product = await context.store.getProduct(id);
        if (!product) return unknownProductResult(`There is no product ${id}.`, [id]);
        const days = restockDays(product);
        if (days === 0)
          return `${product.name} is in stock (${countOf(product.stock, "unit")}); no restock is pending.`;
        const date = new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
        return `${product.name}: ${product.stock} in stock; the next restock arrives in ${countOf(days, "day")} (${date}).`;
      },
    }),
    defineTool({
      name: "bulk_discount",
      description: "The discount for buying many units of one product.",
      input: z.object({ productId, units: z.number().int().min(1).max(1000) }),
      run: async ({ productId: id, units }, { context }) => {
        const product = await context.store.getProduct(id);
        if (!product) return unknownProductResult(`There is no product ${id}.`, [id]);
        const percent = bulkDiscountPercent(units);
        const total = Math.round((product.priceCents * units * (100 - percent)) / 100);
        return `${units} × ${product.name}: ${percent}% off, ${formatCents(total)} instead of ${formatCents(product.priceCents * units)}. Bulk orders over 10 units go through the merchant.`;
      },
    }),
    defineTool({
      name: "list_discounts",
      description: "The discounts in force, by category.",
      input: z.object({}),
      run: async (_input, { context }) => {
        const discounts = activeDiscounts(await context.store.listProducts());
        if (discounts.length === 0) return "No discount is in force.";
        return {
          text: discounts
            .map((d) => `${d.percent}% off ${d.category} (${countOf(d.productCount, "product")})`)
            .join("\n"),
          events: [{ type: "discounts", discounts }],
        };
      },
    }),
    defineTool({
      name: "show_inventory",
      description: "Show inventory cards (stock and price) for products found by words or ids.",
      kind: "display",
      input: z.object({
        query: z.string().max(200).optional(),
        productIds: z.array(productId).max(20).optional(),
      }),
      run: async ({ query, productIds }, { context }) => {
        const byId = await Promise.all(
          (productIds ?? []).map((id) => context.store.getProduct(id)),
        );
        const found = byId.filter((p): p is Product => p !== undefined);
        if (query !== undefined || found.length === 0) {
          found.push(...(await context.store.searchProducts({ text: query ?? "", limit: 12 })));
        }
        const products = [...new Map(found.map((p) => [p.id, p])).values()];
        return {
          text: `Showed inventory for ${countOf(products.length, "product")}${products.length ? `:\n${products.map(productLine).join("\n")}` : "."}`,
          events: [{ type: "inventory", products: products.map(productView) }],
        };
      },
    }),
  ];
}

/** The merchant's tools; `readOnly` leaves out everything that changes the shop. */
export function merchantTools(options: { readOnly?: boolean } = {}): AnyTool<ShopToolContext>[] {
  if (options.readOnly) return readOnlyTools();
  return [
    ...readOnlyTools(),
    defineTool({
      name: "restock",
      description: "Add units to a product's stock.",
      input: z.object({ productId, quantity: z.number().int().min(1).max(10_000) }),
      run: async ({ productId: id, quantity }, ctx) => {
        // The reply is built and recorded in the change's transaction (see recordCall).
        const recorded = recordCall(ctx, (result: ProductChangeResult): ToolResultSpec => {
          if (!result.ok) return ruleResult(result);
          return {
            text: `Restocked ${result.product.name}: now ${countOf(result.product.stock, "unit")}.`,
            events: [{ type: "inventory-updated", product: productView(result.product) }],
          };
        });
        await ctx.context.store.restock(id, quantity, recorded);
        return recorded.replied() ?? { text: "Done." };
      },
    }),
    defineTool({
      name: "set_price",
      description: "Change a product's price (in dollars).",
      input: z.object({ productId, price: z.number().positive().max(100_000) }),
      run: async ({ productId: id, price }, ctx) => {
        // The reply is built and recorded in the change's transaction (see recordCall).
        const recorded = recordCall(ctx, (result: ProductChangeResult): ToolResultSpec => {
          if (!result.ok) return ruleResult(result);
          return {
            text: `${result.product.name} now costs ${priceWords(result.product)}.`,
            events: [{ type: "inventory-updated", product: productView(result.product) }],
          };
        });
        await ctx.context.store.setPrice(id, Math.round(price * 100), recorded);
        return recorded.replied() ?? { text: "Done." };
      },
    }),
    ...changeTools(),
    defineTool({
      name: "list_orders",
      description: "Recent orders, newest first.",
      input: z.object({ limit: z.number().int().min(1).max(50).default(10) }),
      run: async ({ limit }, { context }) => {
        const orders = await context.store.listOrders({ limit });
        if (orders.length === 0) return "No orders yet.";
        const lines = orders.map(
          (o) =>
            `${o.id} ${o.createdAt.slice(0, 16)}: ${countOf(o.itemCount, "item")}, ${formatCents(o.totalCents)}`,
        );
        return { text: lines.join("\n"), events: [{ type: "orders", orders }] };
      },
    }),
    defineTool({
      name: "sales_summary",
      description: "Totals over every order and the best sellers.",
      input: z.object({ top: z.number().int().min(1).max(20).default(5) }),
      run: async ({ top }, { context }) => {
        const s = await context.store.salesSummary({ top });
        const best = s.topProducts
          .map((p) => `${p.name} (${p.quantity}, ${formatCents(p.revenueCents)})`)
          .join("; ");
        return {
          text: `${countOf(s.orderCount, "order")}, ${countOf(s.itemCount, "item")}, revenue ${formatCents(s.revenueCents)}, average ${formatCents(s.averageOrderCents)}.${best ? ` Best sellers: ${best}.` : ""}`,
          events: [{ type: "sales-summary", summary: s }],
        };
      },
    }),
  ];
}

const idList = z
  .array(productId)
  .min(1)
  .max(MAX_PRODUCTS_PER_CHANGE)
  .describe("The ids of the products to restock, like p-0001.");
const units = z.number().int().min(1).max(MAX_RESTOCK_QUANTITY);
const category = z
  .string()
  .min(1)
  .max(60)
  .describe("A catalog category, like Jackets or Running Shoes (any case, singular or plural).");

/** A bulk restock's request from its input: units each, or up to a level. */
function restockRequest(input: { quantity?: number; upTo?: number }): RestockRequest | string {
  if ((input.quantity === undefined) === (input.upTo === undefined)) {
    return "Give either quantity (units to add to each product) or upTo (the stock to fill each product up to), not both.";
  }
  return input.upTo !== undefined ? { upTo: input.upTo } : { quantity: input.quantity ?? 0 };
}

/** The plan of a bulk restock from the products as they are now (for the approval). */
async function restockPlanNow(
  context: ShopToolContext,
  input: { productIds: string[]; quantity?: number; upTo?: number },
): Promise<{ plan: RestockPlan | RuleViolation; request: RestockRequest } | undefined> {
  const request = restockRequest(input);
  if (typeof request === "string") return undefined;
  const found = await Promise.all(input.productIds.map((id) => context.store.getProduct(id)));
  const products = new Map(
    found.filter((p): p is Product => p !== undefined).map((p) => [p.id, p]),
  );
  return { plan: planRestock(input.productIds, products, request), request };
}

/** The plan of a discount (or its end) from the catalog as it is now (for the approval). */
async function discountPlanNow(
  context: ShopToolContext,
  name: string,
  percent: number | undefined,
): Promise<DiscountPlan | RuleViolation> {
  return planDiscount(await context.store.listProducts(), name, percent);
}

/** The reply of a discount's transaction. */
function discountReply(result: DiscountPlan | RuleViolation): ToolResultSpec {
  if (!result.ok) return ruleResult(result);
  const prices = result.rows
    .slice(0, 8)
    .map((r) => `${r.name} ${formatCents(r.beforeCents)} → ${formatCents(r.afterCents)}`)
    .join("; ");
  const more = result.rows.length > 8 ? `; and ${result.rows.length - 8} more` : "";
  const what =
    result.percent === undefined
      ? `The discount on ${result.category} ended: ${countOf(result.rows.length, "product")} back to their list price`
      : `${result.percent}% off ${result.category} is in force: ${countOf(result.rows.length, "product")} at the sale price`;
  return {
    text: `${what} (${prices}${more}).`,
    events: [{ type: "products-changed", change: discountTable(result) }],
  };
}

/** The changing tools added by this feature set: bulk restock, product edits, discounts. */
function changeTools(): AnyTool<ShopToolContext>[] {
  const restockInput = z.object({
    productIds: idList,
    quantity: units.optional().describe("Units to add to each product."),
    upTo: units.optional().describe("Fill each product up to this stock instead."),
  });
  return [
    defineTool({
      name: "restock_products",
      description:
        "Restock several products in one change: the same units each (quantity), or each filled up to a stock level (upTo). Use it, not several restock calls, whenever more than one product is restocked; the merchant confirms the whole table first.",
      input: restockInput,
      // More than one product changes: the merchant approves the table first.
      approval: async (input, context) => {
        const now = await restockPlanNow(context, input);
        return now?.plan.ok === true && now.plan.items.length > 1;
      },
      summarize: async (input, context) => {
        const now = await restockPlanNow(context, input);
        if (!now?.plan.ok) return "Restock several products.";
        return {
          text: restockSentence(now.plan, now.request),
          details: { type: "product-changes", change: restockTable(now.plan, now.request) },
          effect: restockEffect(now.plan, now.request),
        };
      },
      run: async (input, ctx) => {
        const request = restockRequest(input);
        // Both or neither: the model's input, not a rule of the shop.
        if (typeof request === "string") return { text: request, isError: true };
        // The reply is built and recorded in the change's transaction (see recordCall).
        const recorded = recordCall(ctx, (result: RestockPlan | RuleViolation): ToolResultSpec => {
          if (!result.ok) return ruleResult(result);
          const rows = result.rows.map((r) => `${r.name} ${r.before} → ${r.after}`).join("; ");
          return {
            text:
              result.items.length === 0
                ? `Nothing to restock: every product already has ${"upTo" in request ? request.upTo : 0} or more (${rows}).`
                : `Restocked ${countOf(result.items.length, "product")}: ${rows}.`,
            events: [{ type: "products-changed", change: restockTable(result, request) }],
          };
        });
        // Bound to the table the merchant approved, when one was asked for.
        await ctx.context.store.restockProducts(input.productIds, request, {
          record: recorded.record,
          ...(ctx.approved ? { approved: ctx.approved } : {}),
        });
        return recorded.replied() ?? { text: "Done." };
      },
    }),
    defineTool({
      name: "edit_product",
      description:
        "Change one product's name, description and/or list price (in dollars); give only what changes.",
      input: z.object({
        productId,
        name: z.string().min(1).max(200).optional(),
        description: z.string().min(1).max(2000).optional(),
        price: z.number().positive().max(100_000).optional(),
      }),
      run: async ({ productId: id, name, description, price }, ctx) => {
        const priceCents = price === undefined ? undefined : dollarsToCents(price);
        const recorded = recordCall(ctx, (result: ProductEditResult): ToolResultSpec => {
          if (!result.ok) return ruleResult(result);
          const { before, product, changed } = result;
          const said = changed.map((field) =>
            field === "name"
              ? `renamed from "${before.name}" to "${product.name}"`
              : field === "price"
                ? `price ${priceWords(before)} → ${priceWords(product)}`
                : "new description",
          );
          return {
            text: `${product.name} (${product.id}): ${said.join(", ")}.`,
            // `product` too: the page learns the product's new name from it.
            events: [
              {
                type: "product-edited",
                product: productView(product),
                edit: productEditView(result),
              },
            ],
          };
        });
        await ctx.context.store.editProduct(
          id,
          {
            ...(name === undefined ? {} : { name }),
            ...(description === undefined ? {} : { description }),
            // A price the domain refuses (it is not whole cents) rather than a silent change.
            ...(price === undefined ? {} : { priceCents: priceCents ?? Number.NaN }),
          },
          recorded,
        );
        return recorded.replied() ?? { text: "Done." };
      },
    }),
    defineTool({
      name: "set_discount",
      description: `Put a whole percentage (1 to ${MAX_DISCOUNT_PERCENT}) off every product of one category ("10% off all jackets"); it replaces the category's earlier discount. The merchant confirms the table of new prices first.`,
      input: z.object({
        category,
        percent: z.number().int().min(1).max(MAX_DISCOUNT_PERCENT),
      }),
      approval: async ({ category: name, percent }, context) => {
        const plan = await discountPlanNow(context, name, percent);
        return plan.ok && plan.rows.length > 1;
      },
      summarize: async ({ category: name, percent }, context) => {
        const plan = await discountPlanNow(context, name, percent);
        if (!plan.ok) return `${percent}% off ${name}.`;
        return {
          text: discountSentence(plan),
          details: { type: "product-changes", change: discountTable(plan) },
          effect: discountEffect(plan),
        };
      },
      run: async ({ category: name, percent }, ctx) => {
        const recorded = recordCall(ctx, discountReply);
        await ctx.context.store.setDiscount(name, percent, {
          record: recorded.record,
          ...(ctx.approved ? { approved: ctx.approved } : {}),
        });
        return recorded.replied() ?? { text: "Done." };
      },
    }),
    defineTool({
      name: "end_discount",
      description:
        "End the discount of one category: its products go back to their list price. The merchant confirms the table first.",
      input: z.object({ category }),
      approval: async ({ category: name }, context) => {
        const plan = await discountPlanNow(context, name, undefined);
        return plan.ok && plan.rows.length > 1;
      },
      summarize: async ({ category: name }, context) => {
        const plan = await discountPlanNow(context, name, undefined);
        if (!plan.ok) return `End the discount on ${name}.`;
        return {
          text: discountSentence(plan),
          details: { type: "product-changes", change: discountTable(plan) },
          effect: discountEffect(plan),
        };
      },
      run: async ({ category: name }, ctx) => {
        const recorded = recordCall(ctx, discountReply);
        await ctx.context.store.setDiscount(name, undefined, {
          record: recorded.record,
          ...(ctx.approved ? { approved: ctx.approved } : {}),
        });
        return recorded.replied() ?? { text: "Done." };
      },
    }),
  ];
}
