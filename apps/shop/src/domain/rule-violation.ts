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
 * - `invalid_variant`: a size or colour the product does not come in.
 * - `variant_required`: a product with sizes (or several colours) added, or checked out, without
 *   the size (or colour) chosen; `params.choices` lists the lines and what they can be.
 * - `ambiguous_line`: the cart holds the product in several variants and the change did not say
 *   which line.
 * - `invalid_discount`: a discount that is not a whole percentage in range, or the end of one
 *   that is not there.
 * - `unknown_category`: a discount for a category the catalog does not have (or several fit).
 * - `invalid_edit`: a product name or description that is empty, too long or holds control
 *   characters, or an edit that changes nothing.
 * - `name_taken`: a new product name another product already has.
 * - `too_many_products`: one change for more products than it may cover at once.
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
  | "invalid_variant"
  | "variant_required"
  | "ambiguous_line"
  | "invalid_discount"
  | "unknown_category"
  | "invalid_edit"
  | "name_taken"
  | "too_many_products";

/** What a variant is made of. */
export type VariantKind = "size" | "color";

/** A product (or a cart line of it) that needs a size or colour chosen, with what it can be. */
export interface VariantChoice {
  readonly productId: string;
  readonly name: string;
  /** What has to be chosen. */
  readonly missing: readonly VariantKind[];
  /** The product's sizes (empty for one-size products). */
  readonly sizes: readonly string[];
  /** The product's colours. */
  readonly colors: readonly string[];
  /** The size the line already has, if any. */
  readonly size?: string;
  /** The colour the line already has, if any. */
  readonly color?: string;
}

/** Machine-readable details of a violation, for clients that offer a choice instead of a sentence. */
export interface RuleParams {
  /** `variant_required`: every product or line that needs a choice. */
  readonly choices?: readonly VariantChoice[];
  /** The product the rule is about (its id and name), when there is one. */
  readonly productId?: string;
  readonly name?: string;
  /** The size and colour of the line concerned, or the ones asked for that do not exist. */
  readonly size?: string;
  readonly color?: string;
  /** `invalid_variant`: what the product does come in. */
  readonly sizes?: readonly string[];
  readonly colors?: readonly string[];
  /** `quantity_out_of_range`: the quantity asked for, the one the line would hold, the most allowed. */
  readonly quantity?: number;
  readonly wouldHold?: number;
  readonly max?: number;
  /** `insufficient_stock`: the units in stock (0: out of stock) and the units the cart would hold. */
  readonly available?: number;
  /** `over_limit`: the total it would make, the limit, and how many more would still fit. */
  readonly totalCents?: number;
  readonly limitCents?: number;
  readonly room?: number;
  /** `ambiguous_line`: the lines of the product the cart holds. */
  readonly lines?: readonly { readonly size?: string; readonly color?: string }[];
}

/** A broken rule, with a sentence meant for people and models. */
export interface RuleViolation {
  readonly ok: false;
  readonly code: RuleCode;
  readonly message: string;
  /** Details the sentence is made from, when a client can act on them. */
  readonly params?: RuleParams;
}

/** Builds a {@link RuleViolation}. */
export function violation(code: RuleCode, message: string, params?: RuleParams): RuleViolation {
  return params === undefined ? { ok: false, code, message } : { ok: false, code, message, params };
}

/** The violation for a product id that is not in the catalog. */
export function unknownProduct(productId?: string): RuleViolation {
  return violation(
    "unknown_product",
    productId === undefined
      ? "That product is not in the catalog."
      : `There is no product "${productId}" in the catalog.`,
    productId === undefined ? undefined : { productId },
  );
}
