/**
 * Cart rules (S15): a line holds 1..10 units, never more than the product's stock, and the cart
 * total stays within a configurable limit. Every function is pure and returns the new cart or a
 * {@link RuleViolation}; the store runs them under the per-session lock.
 *
 * Variants: a line may carry the size and colour chosen, one of the product's own (checked here);
 * a line holds one variant, so adding the product again in another size is refused rather than
 * silently changing the size of what is already there.
 *
 * Prices: a line captures the product's unit price when it is added or changed (what the shopper
 * was shown), and the limit is checked with those captured prices. Checkout (`checkout` in
 * orders.ts) charges the current catalog prices and checks the limit and stock again with them, so
 * a price change between add and checkout can never slip past the rules.
 */

import type { Product } from "./catalog.js";
import { formatCents } from "./money.js";
import { type RuleViolation, unknownProduct, violation } from "./rule-violation.js";

/** One product in a cart. */
export interface CartLine {
  readonly productId: string;
  /** 1..{@link CartRules.maxQuantityPerLine}. */
  readonly quantity: number;
  /** The unit price when the line was last added to or changed, in cents. */
  readonly unitPriceCents: number;
  /** The size chosen, one of the product's sizes; absent when none was chosen. */
  readonly size?: string;
  /** The colour chosen, one of the product's colours; absent when none was chosen. */
  readonly color?: string;
}

/** A size and/or colour asked for, in the shopper's words ("10", "US 10", "medium", "grey"). */
export interface VariantRequest {
  readonly size?: string;
  readonly color?: string;
}

/** A session's cart: at most one line per product, in the order products were first added. */
export interface Cart {
  readonly lines: readonly CartLine[];
}

/** The configurable limits. */
export interface CartRules {
  /** Most units of one product in a cart (default 10). */
  readonly maxQuantityPerLine: number;
  /** Highest cart total in cents (default 5,000.00). */
  readonly maxTotalCents: number;
}

/** The shop's default limits: 10 per line, $5,000.00 per cart. */
export const DEFAULT_CART_RULES: CartRules = Object.freeze({
  maxQuantityPerLine: 10,
  maxTotalCents: 500_000,
});

/** A cart without lines. */
export const EMPTY_CART: Cart = Object.freeze({ lines: Object.freeze([]) });

/** The result of a cart change: the new cart, or the rule it would break. */
export type CartResult = { readonly ok: true; readonly cart: Cart } | RuleViolation;

/** Sum of the lines at their captured prices, in cents. */
export function cartTotal(cart: Cart): number {
  return cart.lines.reduce((sum, line) => sum + line.unitPriceCents * line.quantity, 0);
}

/** Number of units in the cart. */
export function cartItemCount(cart: Cart): number {
  return cart.lines.reduce((sum, line) => sum + line.quantity, 0);
}

/** The cart's line for a product, if any. */
export function findLine(cart: Cart, productId: string): CartLine | undefined {
  return cart.lines.find((line) => line.productId === productId);
}

/**
 * Adds `quantity` units of `product` (`undefined` when the id was not found), in the size and
 * colour asked for, if any. An existing line grows, and its unit price is refreshed to the current
 * price; the line must still hold 1..max, and keeps its variant (another size is refused).
 */
export function addToCart(
  cart: Cart,
  product: Product | undefined,
  quantity: number,
  rules: CartRules = DEFAULT_CART_RULES,
  variant: VariantRequest = {},
): CartResult {
  if (!product) return unknownProduct();
  const outOfRange = checkQuantity(quantity, rules);
  if (outOfRange) return outOfRange;
  const chosen = chooseVariant(product, variant);
  if (!chosen.ok) return chosen;
  const line = findLine(cart, product.id);
  for (const key of ["size", "color"] as const) {
    const had = line?.[key];
    if (had !== undefined && chosen[key] !== undefined && chosen[key] !== had) {
      return violation(
        "invalid_variant",
        `The cart already holds ${product.name} in ${had}; a cart line holds one ${key === "size" ? "size" : "colour"}. ` +
          `Change that line's ${key === "size" ? "size" : "colour"} or remove it first.`,
      );
    }
  }
  const existing = line?.quantity ?? 0;
  const next = existing + quantity;
  if (next > rules.maxQuantityPerLine) {
    return violation(
      "quantity_out_of_range",
      `The cart already holds ${existing} × ${product.name}; adding ${quantity} would make ${next}, ` +
        `and a line holds at most ${rules.maxQuantityPerLine}.`,
    );
  }
  return setLine(cart, product, next, rules, `Adding ${quantity} × ${product.name}`, "add", {
    size: chosen.size ?? line?.size,
    color: chosen.color ?? line?.color,
  });
}

/**
 * Sets the quantity of a product's existing line; `0` removes the line. The unit price is
 * refreshed to the current price. A size or colour given replaces the line's; the others are kept.
 */
export function updateQuantity(
  cart: Cart,
  product: Product | undefined,
  quantity: number,
  rules: CartRules = DEFAULT_CART_RULES,
  variant: VariantRequest = {},
): CartResult {
  if (!product) return unknownProduct();
  const line = findLine(cart, product.id);
  if (!line) return notInCart(product.name);
  if (quantity === 0) return removeLine(cart, product.id);
  const outOfRange = checkQuantity(quantity, rules);
  if (outOfRange) return outOfRange;
  const chosen = chooseVariant(product, variant);
  if (!chosen.ok) return chosen;
  return setLine(cart, product, quantity, rules, `Setting ${product.name} to ${quantity}`, "set", {
    size: chosen.size ?? line.size,
    color: chosen.color ?? line.color,
  });
}

/** Empties the cart (always allowed). */
export function clearCart(_cart: Cart): CartResult {
  return { ok: true, cart: EMPTY_CART };
}

const SIZE_WORDS: Readonly<Record<string, string>> = {
  "extra small": "xs",
  "x-small": "xs",
  xsmall: "xs",
  small: "s",
  medium: "m",
  med: "m",
  large: "l",
  "extra large": "xl",
  "x-large": "xl",
  xlarge: "xl",
  "xx-large": "xxl",
  xxlarge: "xxl",
  "2xl": "xxl",
};

/** "US 10", "size 10", "10" → "10"; "Medium" → "m". */
function sizeKey(size: string): string {
  const lower = size
    .trim()
    .toLowerCase()
    .replace(/^size\s*/, "");
  return (SIZE_WORDS[lower] ?? lower).replace(/^us\s*/, "").replace(/\s+/g, "");
}

const colorKey = (color: string) => color.trim().toLowerCase().replace(/gray/g, "grey");

/**
 * The product's own size and colour names for what was asked ("10" → "US 10", "large" → "L" or
 * "L/XL"), or the rule it breaks: a size or colour the product does not come in.
 */
export function chooseVariant(
  product: Product,
  request: VariantRequest,
): { readonly ok: true; readonly size?: string; readonly color?: string } | RuleViolation {
  let size: string | undefined;
  let color: string | undefined;
  if (request.size !== undefined && request.size.trim() !== "") {
    if (product.sizes.length === 0) {
      return violation("invalid_variant", `${product.name} comes in one size only.`);
    }
    const key = sizeKey(request.size);
    size =
      product.sizes.find((s) => sizeKey(s) === key) ??
      product.sizes.find((s) => sizeKey(s).split("/").includes(key));
    if (size === undefined) {
      return violation(
        "invalid_variant",
        `${product.name} comes in sizes ${product.sizes.join(", ")}; there is no size ${request.size.trim()}.`,
      );
    }
  }
  if (request.color !== undefined && request.color.trim() !== "") {
    const key = colorKey(request.color);
    color = product.colors.find((c) => colorKey(c) === key);
    if (color === undefined) {
      return violation(
        "invalid_variant",
        `${product.name} comes in ${product.colors.join(", ")}; not in ${request.color.trim()}.`,
      );
    }
  }
  return {
    ok: true,
    ...(size !== undefined ? { size } : {}),
    ...(color !== undefined ? { color } : {}),
  };
}

/** Removes a product's line. */
export function removeLine(cart: Cart, productId: string): CartResult {
  if (!findLine(cart, productId)) return notInCart(`Product "${productId}"`);
  return { ok: true, cart: { lines: cart.lines.filter((line) => line.productId !== productId) } };
}

/**
 * Checks that a cart is structurally sound: whole quantities of at least 1, whole-cent prices, one
 * line per product. The store refuses to persist anything else (a programming error). Limits are
 * not checked here on purpose: a limit lowered by configuration must not make existing carts
 * impossible to edit.
 */
export function isWellFormedCart(cart: Cart): boolean {
  const ids = new Set<string>();
  for (const line of cart.lines) {
    if (ids.has(line.productId)) return false;
    ids.add(line.productId);
    if (!Number.isSafeInteger(line.quantity) || line.quantity < 1) return false;
    if (!Number.isSafeInteger(line.unitPriceCents) || line.unitPriceCents < 0) return false;
  }
  return true;
}

function checkQuantity(quantity: number, rules: CartRules): RuleViolation | undefined {
  if (Number.isInteger(quantity) && quantity >= 1 && quantity <= rules.maxQuantityPerLine) {
    return undefined;
  }
  return violation(
    "quantity_out_of_range",
    `Quantity must be a whole number from 1 to ${rules.maxQuantityPerLine} (got ${quantity}).`,
  );
}

/** Puts `quantity` units of `product` in the cart after the stock and limit checks. */
function setLine(
  cart: Cart,
  product: Product,
  quantity: number,
  rules: CartRules,
  action: string,
  kind: "add" | "set",
  variant: VariantRequest = {},
): CartResult {
  const existing = findLine(cart, product.id)?.quantity ?? 0;
  if (product.stock <= 0) {
    return violation("insufficient_stock", `${product.name} is out of stock.`);
  }
  if (quantity > product.stock) {
    const already = existing > 0 ? ` (${existing} already in the cart)` : "";
    return violation(
      "insufficient_stock",
      `Only ${product.stock} × ${product.name} in stock; the cart would hold ${quantity}${already}.`,
    );
  }
  const line: CartLine = {
    productId: product.id,
    quantity,
    unitPriceCents: product.priceCents,
    ...(variant.size !== undefined ? { size: variant.size } : {}),
    ...(variant.color !== undefined ? { color: variant.color } : {}),
  };
  const lines =
    existing > 0
      ? cart.lines.map((l) => (l.productId === product.id ? line : l))
      : [...cart.lines, line];
  const next: Cart = { lines };
  const total = cartTotal(next);
  if (total > rules.maxTotalCents) {
    const others = total - line.unitPriceCents * quantity;
    const fitting = Math.floor((rules.maxTotalCents - others) / Math.max(1, product.priceCents));
    const room = kind === "add" ? fitting - existing : fitting;
    const hint =
      room <= 0
        ? " Remove something first to make room."
        : kind === "add"
          ? ` At most ${room} more would fit.`
          : ` At most ${room} would fit.`;
    return violation(
      "over_limit",
      `${action} would bring the cart total to ${formatCents(total)}, over the ` +
        `${formatCents(rules.maxTotalCents)} limit.${hint}`,
    );
  }
  return { ok: true, cart: next };
}

function notInCart(what: string): RuleViolation {
  return violation("not_in_cart", `${what} is not in the cart.`);
}
