/**
 * What the UI and the model see of products and carts: plain JSON with prices in cents and as
 * formatted text. One place, so tool results, cards and the REST API agree.
 */

import { type Cart, type CartRules, cartItemCount, cartTotal } from "../domain/cart.js";
import type { Product } from "../domain/catalog.js";
import { formatCents } from "../domain/money.js";

/** A product as shown on a card (live price and stock). */
export interface ProductView {
  id: string;
  name: string;
  brand: string;
  category: string;
  priceCents: number;
  price: string;
  stock: number;
  inStock: boolean;
  rating: number;
  description: string;
  sizes: readonly string[];
  colors: readonly string[];
}

/** One cart line with what a UI needs. */
export interface CartLineView {
  productId: string;
  name: string;
  quantity: number;
  unitPriceCents: number;
  unitPrice: string;
  lineTotalCents: number;
  lineTotal: string;
}

/** A cart as shown in the cart panel. */
export interface CartView {
  lines: CartLineView[];
  itemCount: number;
  totalCents: number;
  total: string;
  limitCents: number;
  limit: string;
}

/** A product for a card or a tool result. */
export function productView(product: Product): ProductView {
  return {
    id: product.id,
    name: product.name,
    brand: product.brand,
    category: product.category,
    priceCents: product.priceCents,
    price: formatCents(product.priceCents),
    stock: product.stock,
    inStock: product.stock > 0,
    rating: product.rating,
    description: product.description,
    sizes: product.sizes,
    colors: product.colors,
  };
}

/** A cart with names from `names` (product id → name). */
export function cartView(
  cart: Cart,
  names: ReadonlyMap<string, string>,
  rules: CartRules,
): CartView {
  const total = cartTotal(cart);
  return {
    lines: cart.lines.map((line) => ({
      productId: line.productId,
      name: names.get(line.productId) ?? line.productId,
      quantity: line.quantity,
      unitPriceCents: line.unitPriceCents,
      unitPrice: formatCents(line.unitPriceCents),
      lineTotalCents: line.unitPriceCents * line.quantity,
      lineTotal: formatCents(line.unitPriceCents * line.quantity),
    })),
    itemCount: cartItemCount(cart),
    totalCents: total,
    total: formatCents(total),
    limitCents: rules.maxTotalCents,
    limit: formatCents(rules.maxTotalCents),
  };
}

/** One line of text for the model: "Aero Trail Runner (p-0001) $89.00, 12 in stock, 4.6★". */
export function productLine(product: Product): string {
  const stock = product.stock > 0 ? `${product.stock} in stock` : "sold out";
  return `${product.name} (${product.id}) by ${product.brand}, ${formatCents(product.priceCents)}, ${stock}, rated ${product.rating}`;
}

/** A cart summary for the model. */
export function cartSummary(view: CartView): string {
  if (view.lines.length === 0) return `The cart is empty (limit ${view.limit}).`;
  const lines = view.lines.map(
    (l) => `${l.quantity} × ${l.name} (${l.productId}) at ${l.unitPrice} = ${l.lineTotal}`,
  );
  return `Cart: ${lines.join("; ")}. ${view.itemCount} items, total ${view.total} (limit ${view.limit}).`;
}
