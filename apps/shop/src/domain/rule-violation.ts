/**
 * Business rule violations are values, not exceptions: every rule check in the domain returns
 * either a success or a {@link RuleViolation} whose message can be shown to the shopper or the
 * model as is.
 */

/**
 * What rule was broken.
 * - `unknown_product`: the product id is not in the catalog.
 * - `quantity_out_of_range`: a line would hold fewer than 1 or more than the per-line maximum.
 * - `insufficient_stock`: a line would hold more units than are in stock.
 * - `over_limit`: the cart total would exceed the configured limit.
 * - `not_in_cart`: the product has no line in the cart.
 * - `empty_cart`: checkout of a cart without lines.
 * - `invalid_quantity`: a merchant restock quantity outside its range.
 * - `invalid_price`: a merchant price outside its range or not whole cents.
 * - `invalid_variant`: a size or colour the product does not come in, or another than its line's.
 */
export type RuleCode =
  | "unknown_product"
  | "quantity_out_of_range"
  | "insufficient_stock"
  | "over_limit"
  | "not_in_cart"
  | "empty_cart"
  | "invalid_quantity"
  | "invalid_price"
  | "invalid_variant";

/** A broken rule, with a sentence meant for people and models. */
export interface RuleViolation {
  readonly ok: false;
  readonly code: RuleCode;
  readonly message: string;
}

/** Builds a {@link RuleViolation}. */
export function violation(code: RuleCode, message: string): RuleViolation {
  return { ok: false, code, message };
}

/** The violation for a product id that is not in the catalog. */
export function unknownProduct(productId?: string): RuleViolation {
  return violation(
    "unknown_product",
    productId === undefined
      ? "That product is not in the catalog."
      : `There is no product "${productId}" in the catalog.`,
  );
}
