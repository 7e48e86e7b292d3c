/**
 * Orders: the pure part of checkout. {@link checkout} turns a cart into an {@link OrderDraft} at
 * the current catalog prices after checking stock, quantities and the limit again; the store
 * persists the draft, applies its stock decrements and empties the cart in one transaction.
 */

import {
  type Cart,
  type CartRules,
  choiceWords,
  DEFAULT_CART_RULES,
  variantChoice,
} from "./cart.js";
import type { Product } from "./catalog.js";
import { formatCents } from "./money.js";
import { type RuleViolation, type VariantChoice, violation } from "./rule-violation.js";

/** One product of an order, at the price charged. */
export interface OrderLine {
  readonly productId: string;
  /** The product's name when ordered (kept: products can be renamed later). */
  readonly name: string;
  readonly quantity: number;
  readonly unitPriceCents: number;
  readonly lineTotalCents: number;
  /** The size ordered, when the cart line had one. */
  readonly size?: string;
  /** The colour ordered, when the cart line had one. */
  readonly color?: string;
}

/** A placed order. */
export interface Order {
  /** `o-` followed by random hex. */
  readonly id: string;
  /** The chat (shopper session) that placed it. */
  readonly sessionId: string;
  /**
   * Whose order it is: the shopper owning the cart it was made from. Stores always set it;
   * optional for orders made up outside a store (tests of the merchant's reports).
   */
  readonly shopperId?: string;
  /** The tool call (or request) id that placed it; checkout is idempotent per call id. */
  readonly callId: string;
  readonly lines: readonly OrderLine[];
  readonly totalCents: number;
  readonly itemCount: number;
  /** ISO 8601 timestamp. */
  readonly createdAt: string;
}

/** A line whose current price differs from the price captured in the cart. */
export interface PriceChange {
  readonly productId: string;
  readonly name: string;
  readonly cartUnitPriceCents: number;
  readonly unitPriceCents: number;
}

/** The stock to take off one product. */
export interface StockDecrement {
  readonly productId: string;
  readonly quantity: number;
}

/** What checkout produces before it is persisted. */
export interface OrderDraft {
  readonly lines: readonly OrderLine[];
  readonly totalCents: number;
  readonly itemCount: number;
  readonly stockDecrements: readonly StockDecrement[];
  /** Lines charged at a price other than the one shown when they were added. */
  readonly priceChanges: readonly PriceChange[];
}

/** One line of a {@link CheckoutEffect}. */
export interface CheckoutEffectLine {
  /** The product and its variant: what tells two lines apart across two effects. */
  readonly key: string;
  readonly productId: string;
  readonly name: string;
  readonly size?: string;
  readonly color?: string;
  readonly quantity: number;
  readonly unitPriceCents: number;
}

/**
 * Exactly what a checkout would do: the lines it would order, at the prices it would charge, and
 * the total. The shopper confirms this; the checkout places the order only if the state still
 * gives the same effect.
 */
export interface CheckoutEffect {
  readonly lines: readonly CheckoutEffectLine[];
  readonly itemCount: number;
  readonly totalCents: number;
}

/** The effect of placing `draft`. */
export function checkoutEffect(draft: OrderDraft): CheckoutEffect {
  return {
    lines: draft.lines.map((line) => ({
      key: [line.productId, line.size ?? "", line.color ?? ""].join("|"),
      productId: line.productId,
      name: line.name,
      ...(line.size !== undefined ? { size: line.size } : {}),
      ...(line.color !== undefined ? { color: line.color } : {}),
      quantity: line.quantity,
      unitPriceCents: line.unitPriceCents,
    })),
    itemCount: draft.itemCount,
    totalCents: draft.totalCents,
  };
}

/** The result of the pure checkout. */
export type CheckoutDraftResult = { readonly ok: true; readonly draft: OrderDraft } | RuleViolation;

/**
 * Validates `cart` against the current products and builds the order draft. Fails when the cart
 * is empty, a product left the catalog, a line lacks the size or colour its product needs (every
 * such line is named, with its choices), a line exceeds the per-line maximum or the stock, or the
 * total at current prices exceeds the limit. A line of a one-colour product without a colour is
 * ordered in that colour.
 */
export function checkout(
  cart: Cart,
  products: ReadonlyMap<string, Product>,
  rules: CartRules = DEFAULT_CART_RULES,
): CheckoutDraftResult {
  if (cart.lines.length === 0) {
    return violation("empty_cart", "The cart is empty; add something before checking out.");
  }
  const choices: VariantChoice[] = [];
  for (const line of cart.lines) {
    const product = products.get(line.productId);
    const choice = product ? variantChoice(product, line) : undefined;
    if (choice) choices.push(choice);
  }
  if (choices.length > 0) {
    const named = choices.map((c) => {
      const held = [c.size !== undefined ? `size ${c.size}` : "", c.color ?? ""].filter(Boolean);
      return `${choiceWords(c)} for ${c.name}${held.length > 0 ? ` (${held.join(", ")})` : ""}`;
    });
    return violation(
      "variant_required",
      `Choose ${named.join("; ")} before checking out; nothing was ordered.`,
      { choices },
    );
  }
  const lines: OrderLine[] = [];
  const priceChanges: PriceChange[] = [];
  const stockTaken = new Map<string, number>();
  for (const line of cart.lines) {
    const product = products.get(line.productId);
    if (!product) {
      return violation(
        "unknown_product",
        `Product "${line.productId}" is no longer in the catalog; remove it from the cart.`,
        { productId: line.productId },
      );
    }
    if (line.quantity > rules.maxQuantityPerLine) {
      return violation(
        "quantity_out_of_range",
        `The cart holds ${line.quantity} × ${product.name}; a line holds at most ` +
          `${rules.maxQuantityPerLine}.`,
        {
          productId: product.id,
          name: product.name,
          wouldHold: line.quantity,
          max: rules.maxQuantityPerLine,
        },
      );
    }
    const taken = (stockTaken.get(product.id) ?? 0) + line.quantity;
    stockTaken.set(product.id, taken);
    if (taken > product.stock) {
      return violation(
        "insufficient_stock",
        product.stock <= 0
          ? `${product.name} is now out of stock; remove it from the cart.`
          : `Only ${product.stock} × ${product.name} left in stock; the cart holds ${taken}.`,
        {
          productId: product.id,
          name: product.name,
          available: Math.max(0, product.stock),
          wouldHold: taken,
        },
      );
    }
    const color = line.color ?? (product.colors.length === 1 ? product.colors[0] : undefined);
    if (
      product.priceCents !== line.unitPriceCents &&
      !priceChanges.some((c) => c.productId === product.id)
    ) {
      priceChanges.push({
        productId: product.id,
        name: product.name,
        cartUnitPriceCents: line.unitPriceCents,
        unitPriceCents: product.priceCents,
      });
    }
    lines.push({
      productId: product.id,
      name: product.name,
      quantity: line.quantity,
      unitPriceCents: product.priceCents,
      lineTotalCents: product.priceCents * line.quantity,
      ...(line.size !== undefined ? { size: line.size } : {}),
      ...(color !== undefined ? { color } : {}),
    });
  }
  const totalCents = lines.reduce((sum, line) => sum + line.lineTotalCents, 0);
  if (totalCents > rules.maxTotalCents) {
    return violation(
      "over_limit",
      `At current prices the cart totals ${formatCents(totalCents)}, over the ` +
        `${formatCents(rules.maxTotalCents)} limit; remove something first.`,
      { totalCents, limitCents: rules.maxTotalCents, room: 0 },
    );
  }
  return {
    ok: true,
    draft: {
      lines,
      totalCents,
      itemCount: lines.reduce((sum, line) => sum + line.quantity, 0),
      stockDecrements: [...stockTaken].map(([productId, quantity]) => ({ productId, quantity })),
      priceChanges,
    },
  };
}
