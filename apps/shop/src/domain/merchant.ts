/**
 * Merchant rules: which products count as low on stock, what restock quantities and prices are
 * acceptable, and the sales summary. Pure; the store applies the results.
 */

import type { Product } from "./catalog.js";
import { listPriceOf, withDiscount } from "./discounts.js";
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

/**
 * Validates a new price in cents and returns the product with it. The price is the list price: a
 * discount the product has stays and is taken off the new price.
 */
export function changePrice(product: Product | undefined, priceCents: number): ProductChangeResult {
  if (!product) return unknownProduct();
  const invalid = priceProblem(priceCents);
  if (invalid) return invalid;
  return { ok: true, product: repriced(product, priceCents) };
}

function priceProblem(priceCents: number): RuleViolation | undefined {
  if (!Number.isSafeInteger(priceCents) || priceCents < 1 || priceCents > MAX_PRICE_CENTS) {
    return violation(
      "invalid_price",
      `A price must be whole cents from $0.01 to ${formatCents(MAX_PRICE_CENTS)} (got ${priceCents} cents).`,
    );
  }
  return undefined;
}

/** `product` at list price `priceCents`, its discount kept. */
function repriced(product: Product, priceCents: number): Product {
  return withDiscount({ ...withDiscount(product, undefined), priceCents }, product.discountPercent);
}

/** The longest product name the merchant may give (cards and tables stay readable). */
export const MAX_NAME_LENGTH = 80;

/** The longest product description. */
export const MAX_DESCRIPTION_LENGTH = 600;

/** What the merchant changes of one product; absent fields stay. `priceCents` is the list price. */
export interface ProductEdit {
  readonly name?: string;
  readonly description?: string;
  readonly priceCents?: number;
}

/** A field an edit changed. */
export type EditedField = "name" | "description" | "price";

/** The result of {@link editProduct}: the product before and after, and what changed. */
export type ProductEditResult =
  | {
      readonly ok: true;
      readonly before: Product;
      readonly product: Product;
      readonly changed: readonly EditedField[];
    }
  | RuleViolation;

/** Text with its white space made single spaces; refused empty, too long or with control characters. */
function cleanText(
  what: "name" | "description",
  text: string,
  max: number,
): { ok: true; text: string } | RuleViolation {
  const clean = text.replace(/\s+/g, " ").trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(clean)) {
    return violation("invalid_edit", `A product ${what} cannot hold control characters.`);
  }
  if (clean === "") return violation("invalid_edit", `A product ${what} cannot be empty.`);
  const length = [...clean].length;
  if (length > max) {
    return violation(
      "invalid_edit",
      `A product ${what} is at most ${max} characters (got ${length}).`,
    );
  }
  return { ok: true, text: clean };
}

/**
 * Validates an edit of one product's name, description and (list) price and returns the product
 * with it. A name is refused when another product has it already (any case): products are found
 * by name. An edit that changes nothing is refused too, so a reply never claims a change.
 */
export function editProduct(
  product: Product | undefined,
  edit: ProductEdit,
  otherNames: readonly string[] = [],
): ProductEditResult {
  if (!product) return unknownProduct();
  let next = product;
  const changed: EditedField[] = [];
  if (edit.name !== undefined) {
    const name = cleanText("name", edit.name, MAX_NAME_LENGTH);
    if (!name.ok) return name;
    const lower = name.text.toLowerCase();
    if (otherNames.some((n) => n.toLowerCase() === lower && n !== product.name)) {
      return violation("name_taken", `Another product is already called "${name.text}".`);
    }
    if (name.text !== product.name) {
      next = { ...next, name: name.text };
      changed.push("name");
    }
  }
  if (edit.description !== undefined) {
    const description = cleanText("description", edit.description, MAX_DESCRIPTION_LENGTH);
    if (!description.ok) return description;
    if (description.text !== product.description) {
      next = { ...next, description: description.text };
      changed.push("description");
    }
  }
  if (edit.priceCents !== undefined) {
    const invalid = priceProblem(edit.priceCents);
    if (invalid) return invalid;
    if (edit.priceCents !== listPriceOf(product)) {
      next = repriced(next, edit.priceCents);
      changed.push("price");
    }
  }
  if (changed.length === 0) {
    return violation(
      "invalid_edit",
      `Nothing to change: ${product.name} already has that name, description and price.`,
    );
  }
  return { ok: true, before: product, product: next, changed };
}

/** The most products one change (a bulk restock) may cover. */
export const MAX_PRODUCTS_PER_CHANGE = 50;

/** How a bulk restock is asked for: the same number of units each, or each filled up to a level. */
export type RestockRequest = { readonly quantity: number } | { readonly upTo: number };

/** One product's stock before and after a restock. */
export interface StockRow {
  readonly productId: string;
  readonly name: string;
  readonly before: number;
  readonly after: number;
}

/** What a bulk restock does: each product's row, and the units to add where it adds any. */
export interface RestockPlan {
  readonly ok: true;
  /** Every product asked for, in the order asked (a product already full adds 0). */
  readonly rows: readonly StockRow[];
  /** The additions to make (products that gain units only). */
  readonly items: readonly { readonly productId: string; readonly quantity: number }[];
}

/**
 * What the merchant approves of a bulk restock: which products gain units, and how many each
 * (`add`) or up to which stock (`to`). The stock numbers themselves are left out: a checkout
 * taking a unit meanwhile does not change what was approved, a product dropping out of (or into)
 * the change does.
 */
export function restockEffect(plan: RestockPlan, request: RestockRequest): unknown {
  const names = new Map(plan.rows.map((row) => [row.productId, row.name]));
  return {
    lines: plan.items.map((item) => ({
      key: item.productId,
      name: names.get(item.productId) ?? item.productId,
      ...("upTo" in request ? { to: request.upTo } : { add: item.quantity }),
    })),
  };
}

/**
 * Plans a restock of several products from their current stock: `quantity` units each, or each
 * filled `upTo` a level (a product at or above it gains nothing). Refused whole when a product is
 * unknown, the number is out of range, or more than {@link MAX_PRODUCTS_PER_CHANGE} products are
 * named (ids named twice count once).
 */
export function planRestock(
  productIds: readonly string[],
  products: ReadonlyMap<string, Product>,
  request: RestockRequest,
): RestockPlan | RuleViolation {
  const ids = [...new Set(productIds)];
  if (ids.length === 0)
    return violation("invalid_quantity", "Name at least one product to restock.");
  if (ids.length > MAX_PRODUCTS_PER_CHANGE) {
    return violation(
      "too_many_products",
      `One restock covers at most ${MAX_PRODUCTS_PER_CHANGE} products (got ${ids.length}).`,
    );
  }
  const level = "upTo" in request ? request.upTo : request.quantity;
  if (!Number.isInteger(level) || level < 1 || level > MAX_RESTOCK_QUANTITY) {
    return violation(
      "invalid_quantity",
      "upTo" in request
        ? `A stock level to fill up to must be a whole number from 1 to ${MAX_RESTOCK_QUANTITY} (got ${level}).`
        : `A restock must be a whole number of units from 1 to ${MAX_RESTOCK_QUANTITY} (got ${level}).`,
    );
  }
  const rows: StockRow[] = [];
  const items: { productId: string; quantity: number }[] = [];
  for (const id of ids) {
    const product = products.get(id);
    if (!product) return unknownProduct(id);
    const add = "upTo" in request ? Math.max(0, request.upTo - product.stock) : request.quantity;
    rows.push({
      productId: id,
      name: product.name,
      before: product.stock,
      after: product.stock + add,
    });
    if (add > 0) items.push({ productId: id, quantity: add });
  }
  return { ok: true, rows, items };
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
