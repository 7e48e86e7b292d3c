/**
 * Cart rules (S15): a line holds 1..10 units, never more than the product's stock, and the cart
 * total stays within a configurable limit. Every function is pure and returns the new cart or a
 * {@link RuleViolation}; the store runs them under the per-session lock.
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
 * Adds `quantity` units of `product` (`undefined` when the id was not found). An existing line
 * grows, and its unit price is refreshed to the current price; the line must still hold 1..max.
 */
export function addToCart(
  cart: Cart,
  product: Product | undefined,
  quantity: number,
  rules: CartRules = DEFAULT_CART_RULES,
): CartResult {
  if (!product) return unknownProduct();
  const outOfRange = checkQuantity(quantity, rules);
  if (outOfRange) return outOfRange;
  const existing = findLine(cart, product.id)?.quantity ?? 0;
  const next = existing + quantity;
  if (next > rules.maxQuantityPerLine) {
    return violation(
      "quantity_out_of_range",
      `The cart already holds ${existing} × ${product.name}; adding ${quantity} would make ${next}, ` +
        `and a line holds at most ${rules.maxQuantityPerLine}.`,
    );
  }
  return setLine(cart, product, next, rules, `Adding ${quantity} × ${product.name}`, "add");
}

/**
 * Sets the quantity of a product's existing line; `0` removes the line. The unit price is
 * refreshed to the current price.
 */
export function updateQuantity(
  cart: Cart,
  product: Product | undefined,
  quantity: number,
  rules: CartRules = DEFAULT_CART_RULES,
): CartResult {
  if (!product) return unknownProduct();
  if (!findLine(cart, product.id)) return notInCart(product.name);
  if (quantity === 0) return removeLine(cart, product.id);
  const outOfRange = checkQuantity(quantity, rules);
  if (outOfRange) return outOfRange;
  return setLine(cart, product, quantity, rules, `Setting ${product.name} to ${quantity}`, "set");
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
  const line: CartLine = { productId: product.id, quantity, unitPriceCents: product.priceCents };
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
