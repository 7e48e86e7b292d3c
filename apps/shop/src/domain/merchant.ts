/**
 * Merchant rules: which products count as low on stock, what restock quantities and prices are
 * acceptable, and the sales summary. Pure; the store applies the results.
 */

import type { Product } from "./catalog.js";
import { formatCents } from "./money.js";
import type { Order } from "./orders.js";
import { type RuleViolation, unknownProduct, violation } from "./rule-violation.js";

/** Products at or below this stock are reported as low. */
export const DEFAULT_LOW_STOCK_THRESHOLD = 5;

/** The largest restock in one go (guards against a typo adding a million units). */
export const MAX_RESTOCK_QUANTITY = 10_000;

/** The highest price a product can be given, in cents ($100,000.00). */
export const MAX_PRICE_CENTS = 10_000_000;

/** The result of a merchant change to one product. */
export type ProductChangeResult = { readonly ok: true; readonly product: Product } | RuleViolation;

/** Products with stock at or below `threshold`, emptiest first, then by name. */
export function lowStockReport(
  products: readonly Product[],
  threshold: number = DEFAULT_LOW_STOCK_THRESHOLD,
): Product[] {
  return products
    .filter((product) => product.stock <= threshold)
    .sort((a, b) => a.stock - b.stock || a.name.localeCompare(b.name));
}

/** Validates a restock and returns the product with its new stock. */
export function restockProduct(
  product: Product | undefined,
  quantity: number,
): ProductChangeResult {
  if (!product) return unknownProduct();
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_RESTOCK_QUANTITY) {
    return violation(
      "invalid_quantity",
      `A restock must be a whole number of units from 1 to ${MAX_RESTOCK_QUANTITY} (got ${quantity}).`,
    );
  }
  return { ok: true, product: { ...product, stock: product.stock + quantity } };
}

/** Validates a new price in cents and returns the product with it. */
export function changePrice(product: Product | undefined, priceCents: number): ProductChangeResult {
  if (!product) return unknownProduct();
  if (!Number.isSafeInteger(priceCents) || priceCents < 1 || priceCents > MAX_PRICE_CENTS) {
    return violation(
      "invalid_price",
      `A price must be whole cents from $0.01 to ${formatCents(MAX_PRICE_CENTS)} (got ${priceCents} cents).`,
    );
  }
  return { ok: true, product: { ...product, priceCents } };
}

/** Sales of one product. */
export interface ProductSales {
  readonly productId: string;
  readonly name: string;
  readonly quantity: number;
  readonly revenueCents: number;
}

/** Totals over a set of orders. */
export interface SalesSummary {
  readonly orderCount: number;
  readonly itemCount: number;
  readonly revenueCents: number;
  /** Revenue divided by orders, rounded to the cent (0 without orders). */
  readonly averageOrderCents: number;
  /** Best sellers by revenue, then units, then name. */
  readonly topProducts: readonly ProductSales[];
  readonly firstOrderAt: string | undefined;
  readonly lastOrderAt: string | undefined;
}

/** Aggregates orders into a {@link SalesSummary} with at most `top` best sellers. */
export function summarizeSales(orders: readonly Order[], top = 5): SalesSummary {
  const byProduct = new Map<
    string,
    { productId: string; name: string; quantity: number; revenueCents: number }
  >();
  let revenueCents = 0;
  let itemCount = 0;
  let firstOrderAt: string | undefined;
  let lastOrderAt: string | undefined;
  for (const order of orders) {
    revenueCents += order.totalCents;
    itemCount += order.itemCount;
    if (firstOrderAt === undefined || order.createdAt < firstOrderAt)
      firstOrderAt = order.createdAt;
    if (lastOrderAt === undefined || order.createdAt > lastOrderAt) lastOrderAt = order.createdAt;
    for (const line of order.lines) {
      const entry = byProduct.get(line.productId) ?? {
        productId: line.productId,
        name: line.name,
        quantity: 0,
        revenueCents: 0,
      };
      entry.quantity += line.quantity;
      entry.revenueCents += line.lineTotalCents;
      byProduct.set(line.productId, entry);
    }
  }
  const topProducts = [...byProduct.values()]
    .sort(
      (a, b) =>
        b.revenueCents - a.revenueCents || b.quantity - a.quantity || a.name.localeCompare(b.name),
    )
    .slice(0, Math.max(0, top));
  return {
    orderCount: orders.length,
    itemCount,
    revenueCents,
    averageOrderCents: orders.length === 0 ? 0 : Math.round(revenueCents / orders.length),
    topProducts,
    firstOrderAt,
    lastOrderAt,
  };
}
