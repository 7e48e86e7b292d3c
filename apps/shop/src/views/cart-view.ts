/**
 * The cart as the API shows it: each line with the product's name, its unit price and line total,
 * then the item count, the total and the limit. Amounts are integer cents plus a formatted string,
 * so a client never does float arithmetic on money.
 */

import type { ShopStore } from "../db/shop-store.js";
import { type Cart, cartItemCount, cartTotal, variantChoice } from "../domain/cart.js";
import { formatCents } from "../domain/money.js";
import type { CartLineView, CartView } from "./view-types.js";

/** The cart's JSON: its shape is the one the browser app reads too. */
export type { CartLineView, CartView };

/**
 * Builds the view of `cart`, reading product names from the store (or from a transaction: any
 * source of products and cart rules).
 */
export async function cartView(
  store: Pick<ShopStore, "getProduct" | "cartRules">,
  cart: Cart,
): Promise<CartView> {
  const products = await Promise.all(cart.lines.map((line) => store.getProduct(line.productId)));
  const lines = cart.lines.map((line, i): CartLineView => {
    const lineTotalCents = line.unitPriceCents * line.quantity;
    const product = products[i];
    const choice = product ? variantChoice(product, line) : undefined;
    return {
      productId: line.productId,
      // A product removed from the catalog keeps its line; its id stands in for the name.
      name: products[i]?.name ?? line.productId,
      quantity: line.quantity,
      unitPriceCents: line.unitPriceCents,
      unitPrice: formatCents(line.unitPriceCents),
      lineTotalCents,
      lineTotal: formatCents(lineTotalCents),
      ...(line.size !== undefined ? { size: line.size } : {}),
      ...(line.color !== undefined ? { color: line.color } : {}),
      ...(choice
        ? {
            needs: {
              missing: [...choice.missing],
              sizes: [...choice.sizes],
              colors: [...choice.colors],
            },
          }
        : {}),
    };
  });
  const totalCents = cartTotal(cart);
  return {
    lines,
    itemCount: cartItemCount(cart),
    totalCents,
    total: formatCents(totalCents),
    limitCents: store.cartRules.maxTotalCents,
    limit: formatCents(store.cartRules.maxTotalCents),
    maxQuantityPerLine: store.cartRules.maxQuantityPerLine,
  };
}

/** A line with a name and its price as a view line (an order's, or one checkout would place). */
export function priceLineView(line: {
  productId: string;
  name: string;
  quantity: number;
  unitPriceCents: number;
  size?: string | undefined;
  color?: string | undefined;
}): CartLineView {
  const lineTotalCents = line.unitPriceCents * line.quantity;
  return {
    productId: line.productId,
    name: line.name,
    quantity: line.quantity,
    ...(line.size !== undefined ? { size: line.size } : {}),
    ...(line.color !== undefined ? { color: line.color } : {}),
    unitPriceCents: line.unitPriceCents,
    unitPrice: formatCents(line.unitPriceCents),
    lineTotalCents,
    lineTotal: formatCents(lineTotalCents),
  };
}
