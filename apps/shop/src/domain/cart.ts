/**
 * Cart rules: a line holds 1..10 units, never more than the product's stock, and the cart
 * total stays within a configurable limit. Every function is pure and returns the new cart or a
 * {@link RuleViolation}; the store runs them under the per-session lock.
 *
 * Variants: a product with sizes needs a size chosen, one with several colours a colour, before
 * it enters the cart (a product with one colour gets that colour); a request without them is a
 * `variant_required` violation listing the choices. A line is one product in one variant: the
 * same product in another size is another line. Lines without a required variant can still exist
 * (carts made before the rule); they can be changed and completed, and checkout refuses them.
 *
 * Prices: a line captures the product's unit price when it is added or changed (what the shopper
 * was shown), and the limit is checked with those captured prices. Checkout (`checkout` in
 * orders.ts) charges the current catalog prices and checks the limit and stock again with them, so
 * a price change between add and checkout can never slip past the rules.
 */

import type { Product } from "./catalog.js";
import { formatCents } from "./money.js";
import {
  type RuleParams,
  type RuleViolation,
  unknownProduct,
  type VariantChoice,
  type VariantKind,
  violation,
} from "./rule-violation.js";

/** One product in a cart. */
export interface CartLine {
  readonly productId: string;
  /** 1..{@link CartRules.maxQuantityPerLine}. */
  readonly quantity: number;
  /** The unit price when the line was last added to or changed, in cents. */
  readonly unitPriceCents: number;
  /**
   * The size chosen, one of the product's sizes; absent for one-size products (and on lines made
   * before a size was required, which checkout refuses until one is chosen).
   */
  readonly size?: string;
  /** The colour chosen, one of the product's colours; absent for products without colours. */
  readonly color?: string;
}

/** A size and/or colour asked for, in the shopper's words ("10", "US 10", "medium", "grey"). */
export interface VariantRequest {
  readonly size?: string;
  readonly color?: string;
}

/** A session's cart: at most one line per product and variant, in the order they were added. */
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

/** The cart's first line of a product, if any. */
export function findLine(cart: Cart, productId: string): CartLine | undefined {
  return cart.lines.find((line) => line.productId === productId);
}

/** Whether two lines hold the same product in the same variant (a cart has one line of each). */
export function sameVariant(
  a: Pick<CartLine, "productId" | "size" | "color">,
  b: Pick<CartLine, "productId" | "size" | "color">,
): boolean {
  return a.productId === b.productId && a.size === b.size && a.color === b.color;
}

/**
 * What a line (or a request) of `product` still has to choose: a size when the product has
 * sizes, a colour when it has more than one. Names must be the product's own (see
 * {@link chooseVariant}); a size or colour the product no longer has counts as missing.
 */
export function missingVariant(product: Product, variant: VariantRequest): VariantKind[] {
  const missing: VariantKind[] = [];
  if (product.sizes.length > 0 && !product.sizes.includes(variant.size ?? "")) missing.push("size");
  if (product.colors.length > 1 && !product.colors.includes(variant.color ?? "")) {
    missing.push("color");
  }
  return missing;
}

/** The choice a line (or a request) of `product` needs, or undefined when it needs none. */
export function variantChoice(
  product: Product,
  variant: VariantRequest = {},
): VariantChoice | undefined {
  const missing = missingVariant(product, variant);
  if (missing.length === 0) return undefined;
  return {
    productId: product.id,
    name: product.name,
    missing,
    sizes: product.sizes,
    colors: product.colors,
    ...(variant.size !== undefined && !missing.includes("size") ? { size: variant.size } : {}),
    ...(variant.color !== undefined && !missing.includes("color") ? { color: variant.color } : {}),
  };
}

/** "a size (US 9, US 10) and a colour (Slate, Volt)": what a choice asks for, with the options. */
export function choiceWords(choice: VariantChoice): string {
  const parts: string[] = [];
  if (choice.missing.includes("size")) parts.push(`a size (${choice.sizes.join(", ")})`);
  if (choice.missing.includes("color")) parts.push(`a colour (${choice.colors.join(", ")})`);
  return parts.join(" and ");
}

/**
 * Adds `quantity` units of `product` (`undefined` when the id was not found) in the size and
 * colour asked for. A product with sizes needs a size, one with several colours a colour (one
 * colour is chosen by itself); otherwise nothing is added and the violation lists the choices.
 * The line of that product in that variant grows (its unit price refreshed), or a new line
 * starts; a line must still hold 1..max.
 */
export function addToCart(
  cart: Cart,
  product: Product | undefined,
  quantity: number,
  rules: CartRules = DEFAULT_CART_RULES,
  variant: VariantRequest = {},
): CartResult {
  if (!product) return unknownProduct();
  const outOfRange = checkQuantity(quantity, rules, about(product));
  if (outOfRange) return outOfRange;
  const chosen = chooseVariant(product, variant);
  if (!chosen.ok) return chosen;
  const wanted = {
    productId: product.id,
    size: chosen.size,
    color: chosen.color ?? (product.colors.length === 1 ? product.colors[0] : undefined),
  };
  const choice = variantChoice(product, wanted);
  if (choice) {
    return violation(
      "variant_required",
      `Choose ${choiceWords(choice)} for ${product.name}; nothing was added.`,
      { choices: [choice] },
    );
  }
  const index = cart.lines.findIndex((line) => sameVariant(line, wanted));
  const existing = cart.lines[index]?.quantity ?? 0;
  const next = existing + quantity;
  if (next > rules.maxQuantityPerLine) {
    return violation(
      "quantity_out_of_range",
      `The cart already holds ${existing} × ${product.name}${variantSuffix(wanted)}; adding ${quantity} would make ${next}, ` +
        `and a line holds at most ${rules.maxQuantityPerLine}.`,
      { ...about(product, wanted), quantity, wouldHold: next, max: rules.maxQuantityPerLine },
    );
  }
  return setLine(cart, product, index, next, rules, `Adding ${quantity} × ${product.name}`, "add", {
    size: wanted.size,
    color: wanted.color,
  });
}

/**
 * Changes a line of `product`: its quantity (`undefined` keeps it, `0` removes the line), and the
 * size or colour given (the others are kept, so a quantity change keeps the variant). The line is
 * the product's only one; with several, the one `line` names (its current size and colour), or,
 * when a variant is given, the one line still missing a choice. A line changed into the variant
 * of another line of the product joins it. The unit price is refreshed to the current price.
 */
export function updateQuantity(
  cart: Cart,
  product: Product | undefined,
  quantity: number | undefined,
  rules: CartRules = DEFAULT_CART_RULES,
  variant: VariantRequest = {},
  line?: VariantRequest,
): CartResult {
  if (!product) return unknownProduct();
  const picked = pickLine(cart, product, variant, line);
  if (typeof picked !== "number") return picked;
  const current = cart.lines[picked]!;
  const wanted = quantity ?? current.quantity;
  if (wanted === 0) return { ok: true, cart: { lines: cart.lines.filter((_, i) => i !== picked) } };
  const outOfRange = checkQuantity(wanted, rules, about(product, current));
  if (outOfRange) return outOfRange;
  const chosen = chooseVariant(product, variant);
  if (!chosen.ok) return chosen;
  const next = {
    productId: product.id,
    size: chosen.size ?? current.size,
    color:
      chosen.color ??
      current.color ??
      (product.colors.length === 1 ? product.colors[0] : undefined),
  };
  const action = `Setting ${product.name} to ${wanted}`;
  const rest = cart.lines.filter((_, i) => i !== picked);
  const other = rest.findIndex((l) => sameVariant(l, next));
  if (other < 0) {
    return setLine(cart, product, picked, wanted, rules, action, "set", next);
  }
  const merged = wanted + rest[other]!.quantity;
  if (merged > rules.maxQuantityPerLine) {
    return violation(
      "quantity_out_of_range",
      `The cart already holds ${rest[other]!.quantity} × ${product.name}${variantSuffix(next)}; ` +
        `with this line that would make ${merged}, and a line holds at most ${rules.maxQuantityPerLine}.`,
      {
        ...about(product, next),
        quantity: wanted,
        wouldHold: merged,
        max: rules.maxQuantityPerLine,
      },
    );
  }
  return setLine({ lines: rest }, product, other, merged, rules, action, "set", next);
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
      return violation("invalid_variant", `${product.name} comes in one size only.`, {
        ...about(product),
        size: request.size.trim(),
        sizes: [],
      });
    }
    const key = sizeKey(request.size);
    size =
      product.sizes.find((s) => sizeKey(s) === key) ??
      product.sizes.find((s) => sizeKey(s).split("/").includes(key));
    if (size === undefined) {
      return violation(
        "invalid_variant",
        `${product.name} comes in sizes ${product.sizes.join(", ")}; there is no size ${request.size.trim()}.`,
        { ...about(product), size: request.size.trim(), sizes: product.sizes },
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
        { ...about(product), color: request.color.trim(), colors: product.colors },
      );
    }
  }
  return {
    ok: true,
    ...(size !== undefined ? { size } : {}),
    ...(color !== undefined ? { color } : {}),
  };
}

/**
 * Removes a product's lines: every one, or with `line` only those in that size and/or colour
 * (the product's names or the shopper's words: "10", "volt").
 */
export function removeLine(cart: Cart, productId: string, line: VariantRequest = {}): CartResult {
  const removed = cart.lines.filter((l) => l.productId === productId && matchesLine(l, line));
  if (removed.length === 0) {
    return notInCart(`Product "${productId}"${variantSuffix(selectorOf(line))}`, {
      productId,
      ...variantOf(selectorOf(line)),
    });
  }
  return { ok: true, cart: { lines: cart.lines.filter((l) => !removed.includes(l)) } };
}

/**
 * Checks that a cart is structurally sound: whole quantities of at least 1, whole-cent prices, one
 * line per product and variant. The store refuses to persist anything else (a programming error). Limits are
 * not checked here on purpose: a limit lowered by configuration must not make existing carts
 * impossible to edit.
 */
export function isWellFormedCart(cart: Cart): boolean {
  const keys = new Set<string>();
  for (const line of cart.lines) {
    const key = JSON.stringify([line.productId, line.size ?? null, line.color ?? null]);
    if (keys.has(key)) return false;
    keys.add(key);
    if (!Number.isSafeInteger(line.quantity) || line.quantity < 1) return false;
    if (!Number.isSafeInteger(line.unitPriceCents) || line.unitPriceCents < 0) return false;
  }
  return true;
}

/** `of`: the product (and variant) the quantity is for, named in the violation's facts. */
function checkQuantity(
  quantity: number,
  rules: CartRules,
  of: RuleParams = {},
): RuleViolation | undefined {
  if (Number.isInteger(quantity) && quantity >= 1 && quantity <= rules.maxQuantityPerLine) {
    return undefined;
  }
  return violation(
    "quantity_out_of_range",
    `Quantity must be a whole number from 1 to ${rules.maxQuantityPerLine} (got ${quantity}).`,
    { ...of, quantity, max: rules.maxQuantityPerLine },
  );
}

/**
 * Puts `quantity` units of `product` at line `index` (`-1`: a new line at the end) after the stock
 * and limit checks. Stock is per product: every line of the product counts.
 */
function setLine(
  cart: Cart,
  product: Product,
  index: number,
  quantity: number,
  rules: CartRules,
  action: string,
  kind: "add" | "set",
  variant: VariantRequest = {},
): CartResult {
  const existing = cart.lines[index]?.quantity ?? 0;
  const others = cart.lines.reduce(
    (sum, l, i) => (i !== index && l.productId === product.id ? sum + l.quantity : sum),
    0,
  );
  if (product.stock <= 0) {
    return violation("insufficient_stock", `${product.name} is out of stock.`, {
      ...about(product, variant),
      available: 0,
    });
  }
  if (quantity + others > product.stock) {
    const already = existing + others > 0 ? ` (${existing + others} already in the cart)` : "";
    return violation(
      "insufficient_stock",
      `Only ${product.stock} × ${product.name} in stock; the cart would hold ${quantity + others}${already}.`,
      { ...about(product, variant), available: product.stock, wouldHold: quantity + others },
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
    index >= 0 ? cart.lines.map((l, i) => (i === index ? line : l)) : [...cart.lines, line];
  const next: Cart = { lines };
  const total = cartTotal(next);
  if (total > rules.maxTotalCents) {
    const rest = total - line.unitPriceCents * quantity;
    const fitting = Math.floor((rules.maxTotalCents - rest) / Math.max(1, product.priceCents));
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
      {
        ...about(product, variant),
        totalCents: total,
        limitCents: rules.maxTotalCents,
        room: Math.max(0, room),
      },
    );
  }
  return { ok: true, cart: next };
}

/**
 * The index of the line of `product` a change means (see {@link updateQuantity}), or why there
 * is none.
 */
function pickLine(
  cart: Cart,
  product: Product,
  variant: VariantRequest,
  line: VariantRequest | undefined,
): number | RuleViolation {
  const indices = cart.lines.flatMap((l, i) => (l.productId === product.id ? [i] : []));
  if (indices.length === 0) return notInCart(product.name, about(product));
  const selector = line === undefined ? {} : selectorOf(line);
  if (selector.size !== undefined || selector.color !== undefined) {
    const named = chooseVariant(product, selector);
    const wanted = named.ok ? { ...selector, ...named } : selector;
    const matching = indices.filter((i) => matchesLine(cart.lines[i]!, wanted));
    if (matching.length === 1) return matching[0]!;
    if (matching.length === 0) {
      return notInCart(`${product.name}${variantSuffix(wanted)}`, about(product, wanted));
    }
    return ambiguous(cart, product, matching);
  }
  if (indices.length === 1) return indices[0]!;
  if (variant.size !== undefined || variant.color !== undefined) {
    const incomplete = indices.filter((i) => missingVariant(product, cart.lines[i]!).length > 0);
    if (incomplete.length === 1) return incomplete[0]!;
  }
  return ambiguous(cart, product, indices);
}

function ambiguous(cart: Cart, product: Product, indices: readonly number[]): RuleViolation {
  const held = indices.map((i) => {
    const words = variantSuffix(cart.lines[i]!).replace(/^ \((.*)\)$/, "$1");
    return words === "" ? "without a size or colour" : words;
  });
  return violation(
    "ambiguous_line",
    `The cart holds ${product.name} in ${held.length} variants (${held.join("; ")}); say which line to change.`,
    { ...about(product), lines: indices.map((i) => variantOf(cart.lines[i]!)) },
  );
}

/** The size and colour of a selector that are set (blank ones dropped). */
function selectorOf(line: VariantRequest): VariantRequest {
  return {
    ...(line.size !== undefined && line.size.trim() !== "" ? { size: line.size } : {}),
    ...(line.color !== undefined && line.color.trim() !== "" ? { color: line.color } : {}),
  };
}

/** Whether a line has the size and colour a selector gives (in the product's or shoppers' words). */
function matchesLine(line: CartLine, selector: VariantRequest): boolean {
  const { size, color } = selectorOf(selector);
  if (size !== undefined && (line.size === undefined || sizeKey(line.size) !== sizeKey(size))) {
    return false;
  }
  if (
    color !== undefined &&
    (line.color === undefined || colorKey(line.color) !== colorKey(color))
  ) {
    return false;
  }
  return true;
}

/** " (size US 10, Volt)" for a variant, "" for none. */
function variantSuffix(variant: VariantRequest): string {
  const parts = [
    ...(variant.size !== undefined ? [`size ${variant.size}`] : []),
    ...(variant.color !== undefined ? [variant.color] : []),
  ];
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}

function notInCart(what: string, params?: RuleParams): RuleViolation {
  return violation("not_in_cart", `${what} is not in the cart.`, params);
}

/** The facts every rule about one product carries: its id and name, and the variant if any. */
function about(product: Product, variant: VariantRequest = {}): RuleParams {
  return { productId: product.id, name: product.name, ...variantOf(variant) };
}

/** The size and colour that are set, as params. */
function variantOf(variant: VariantRequest): { size?: string; color?: string } {
  return {
    ...(variant.size !== undefined ? { size: variant.size } : {}),
    ...(variant.color !== undefined ? { color: variant.color } : {}),
  };
}
