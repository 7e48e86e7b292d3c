/**
 * Discounts by category ("10% off all jackets"). A discount is a whole percentage kept on each
 * product of the category; the product's `priceCents` is then the price after it (what a shopper
 * sees and pays everywhere: search, cards, the cart, the order), and `listPriceCents` the price
 * before it. Pure: the store keeps the percentage and applies {@link withDiscount} to what it reads.
 */

import type { Product } from "./catalog.js";
import { formatCents } from "./money.js";
import { type RuleViolation, violation } from "./rule-violation.js";

/** The deepest discount the merchant may set (a typo must not give the shop away). */
export const MAX_DISCOUNT_PERCENT = 90;

/** The price after `percent`% off, to the nearest cent (half a cent up), never below one cent. */
export function discountedCents(listPriceCents: number, percent: number): number {
  return Math.max(1, Math.round((listPriceCents * (100 - percent)) / 100));
}

/** The price before any discount. */
export function listPriceOf(product: Product): number {
  return product.listPriceCents ?? product.priceCents;
}

/**
 * `product` with `percent`% off its list price (`undefined` or 0: no discount), whatever discount
 * it had before. The one place a discount turns into a price.
 */
export function withDiscount(product: Product, percent: number | undefined): Product {
  const { listPriceCents: _list, discountPercent: _percent, ...rest } = product;
  const listPriceCents = listPriceOf(product);
  if (percent === undefined || percent === 0) return { ...rest, priceCents: listPriceCents };
  return {
    ...rest,
    priceCents: discountedCents(listPriceCents, percent),
    listPriceCents,
    discountPercent: percent,
  };
}

/** A category the merchant named, matched to the catalog's spelling. */
export type CategoryMatch =
  | { readonly ok: true; readonly category: string }
  | (RuleViolation & { readonly categories: readonly string[] });

/** Lower-case words without a plural ending: "Shorts & Tights" → ["short", "tight"]. */
function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "" && w !== "and" && w !== "all" && w !== "the")
    .map((w) =>
      w.endsWith("ies") && w.length > 4
        ? `${w.slice(0, -3)}y`
        : w.endsWith("s") && !w.endsWith("ss") && w.length > 3
          ? w.slice(0, -1)
          : w,
    );
}

/**
 * The catalog category `name` means: the same name in any case, singular or plural ("jacket",
 * "JACKETS"), or the one category holding all its words ("shoes" → Running Shoes, "tights" →
 * Shorts & Tights). Several or none: `unknown_category`, with the categories to choose from.
 */
export function matchCategory(categories: readonly string[], name: string): CategoryMatch {
  const distinct = [...new Set(categories)].sort();
  const wanted = wordsOf(name);
  const same = distinct.filter((c) => wordsOf(c).join(" ") === wanted.join(" "));
  const holding =
    same.length > 0
      ? same
      : distinct.filter((c) => {
          const words = wordsOf(c);
          return wanted.length > 0 && wanted.every((w) => words.includes(w));
        });
  if (holding.length === 1 && holding[0] !== undefined) return { ok: true, category: holding[0] };
  const message =
    holding.length > 1
      ? `"${name}" fits several categories (${holding.join(", ")}); name one.`
      : `There is no category "${name}". The categories are: ${distinct.join(", ")}.`;
  return {
    ...violation("unknown_category", message),
    categories: holding.length > 1 ? holding : distinct,
  };
}

/** One product's price before and after a change. */
export interface PriceRow {
  readonly productId: string;
  readonly name: string;
  readonly beforeCents: number;
  readonly afterCents: number;
}

/** What a discount (or its end) does to a category: every product with its new price. */
export interface DiscountPlan {
  readonly ok: true;
  readonly category: string;
  /** The percentage off; `undefined` when the discount ends. */
  readonly percent: number | undefined;
  /** The category's products as they will be, by name. */
  readonly products: readonly Product[];
  /** Each product's price now and after, by name. */
  readonly rows: readonly PriceRow[];
}

/**
 * What the merchant approves of a discount (or its end): the category, the percentage, and the
 * price each of its products will have; a product added to the category, or a list price edited
 * meanwhile, changes it.
 */
export function discountEffect(plan: DiscountPlan): unknown {
  return {
    category: plan.category,
    percent: plan.percent ?? null,
    lines: plan.rows.map((row) => ({
      key: row.productId,
      name: row.name,
      afterCents: row.afterCents,
    })),
  };
}

/**
 * Plans `percent`% off every product of `category` (`undefined`: the discount ends, prices go back
 * to their list price). A discount replaces the category's earlier one; it is taken off the list
 * price, never off an already discounted one. The percentage is a whole number from 1 to
 * {@link MAX_DISCOUNT_PERCENT}.
 */
export function planDiscount(
  products: readonly Product[],
  category: string,
  percent: number | undefined,
): DiscountPlan | RuleViolation {
  if (
    percent !== undefined &&
    (!Number.isInteger(percent) || percent < 1 || percent > MAX_DISCOUNT_PERCENT)
  ) {
    return violation(
      "invalid_discount",
      `A discount is a whole percentage from 1 to ${MAX_DISCOUNT_PERCENT} (got ${percent}).`,
    );
  }
  const match = matchCategory(
    products.map((p) => p.category),
    category,
  );
  if (!match.ok) return violation(match.code, match.message);
  const inCategory = products
    .filter((p) => p.category === match.category)
    .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  if (percent === undefined && inCategory.every((p) => p.discountPercent === undefined)) {
    return violation("invalid_discount", `${match.category} have no discount to end.`);
  }
  const after = inCategory.map((p) => withDiscount(p, percent));
  return {
    ok: true,
    category: match.category,
    percent,
    products: after,
    rows: inCategory.map((p, i) => ({
      productId: p.id,
      name: p.name,
      beforeCents: p.priceCents,
      afterCents: after[i]?.priceCents ?? p.priceCents,
    })),
  };
}

/** A category's active discount, as the merchant's list shows it. */
export interface CategoryDiscount {
  readonly category: string;
  readonly percent: number;
  /** How many of the category's products it applies to. */
  readonly productCount: number;
}

/** The discounts in force, by category (a category whose products differ lists each percentage). */
export function activeDiscounts(products: readonly Product[]): CategoryDiscount[] {
  const counts = new Map<string, CategoryDiscount>();
  for (const p of products) {
    if (p.discountPercent === undefined) continue;
    const key = `${p.category}\u0000${p.discountPercent}`;
    const seen = counts.get(key);
    counts.set(key, {
      category: p.category,
      percent: p.discountPercent,
      productCount: (seen?.productCount ?? 0) + 1,
    });
  }
  return [...counts.values()].sort(
    (a, b) => a.category.localeCompare(b.category) || b.percent - a.percent,
  );
}

/** "$80.10 (10% off $89.00)" for a discounted product, "$89.00" otherwise. */
export function priceWords(product: Product): string {
  return product.discountPercent === undefined
    ? formatCents(product.priceCents)
    : `${formatCents(product.priceCents)} (${product.discountPercent}% off ${formatCents(listPriceOf(product))})`;
}
