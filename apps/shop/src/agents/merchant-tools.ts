/**
 * The merchant agent's tools. Changing tools (restock, set_price) exist only in a merchant
 * session's executor; the read-only set is what a shopper's `ask_merchant` delegate may use (a shopper can never change the shop).
 */

import { type AnyTool, defineTool, type ToolResultSpec } from "overlap-runtime";
import { z } from "zod";
import type { Product } from "../domain/catalog.js";
import type { ProductChangeResult } from "../domain/merchant.js";
import { formatCents } from "../domain/money.js";
import { countOf } from "../views/count-words.js";
import { recordCall } from "./call-record.js";
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
        if (!product) return { text: `There is no product ${id}.`, isError: true };
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
        if (!product) return { text: `There is no product ${id}.`, isError: true };
        const percent = bulkDiscountPercent(units);
        const total = Math.round((product.priceCents * units * (100 - percent)) / 100);
        return `${units} × ${product.name}: ${percent}% off, ${formatCents(total)} instead of ${formatCents(product.priceCents * units)}. Bulk orders over 10 units go through the merchant.`;
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
          if (!result.ok) return { text: result.message, isError: true };
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
          if (!result.ok) return { text: result.message, isError: true };
          return {
            text: `${result.product.name} now costs ${formatCents(result.product.priceCents)}.`,
            events: [{ type: "inventory-updated", product: productView(result.product) }],
          };
        });
        await ctx.context.store.setPrice(id, Math.round(price * 100), recorded);
        return recorded.replied() ?? { text: "Done." };
      },
    }),
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
