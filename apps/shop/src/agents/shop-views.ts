/**
 * What the UI and the model see of products (and the model of carts): plain JSON with prices in
 * cents and as formatted text. The cart's JSON is `views/cart-view.ts`, shared with the REST API.
 */

import type { Product } from "../domain/catalog.js";
import { listPriceOf } from "../domain/discounts.js";
import { formatCents } from "../domain/money.js";
import { countOf } from "../views/count-words.js";
import type { CartLineView, CartView, ProductView } from "../views/view-types.js";

/** A product as shown on a card: its shape is the one the browser app reads too. */
export type { ProductView };

/** A product for a card or a tool result. */
export function productView(product: Product): ProductView {
  return {
    id: product.id,
    name: product.name,
    brand: product.brand,
    category: product.category,
    priceCents: product.priceCents,
    price: formatCents(product.priceCents),
    ...(product.discountPercent === undefined
      ? {}
      : {
          listPriceCents: listPriceOf(product),
          listPrice: formatCents(listPriceOf(product)),
          discountPercent: product.discountPercent,
        }),
    stock: product.stock,
    inStock: product.stock > 0,
    rating: product.rating,
    description: product.description,
    sizes: product.sizes,
    colors: product.colors,
  };
}

/**
 * One line of text for the model: "Aero Trail Runner (p-0001) by Stridewell, $89.00, 12 in stock,
 * rated 4.6"; on sale the price is the one paid and the line ends "(on sale: 10% off the list price
 * $89.00)", so a reader of the price keeps finding it in the same place.
 */
export function productLine(product: Product): string {
  const stock = product.stock > 0 ? `${product.stock} in stock` : "sold out";
  const sale =
    product.discountPercent === undefined
      ? ""
      : ` (on sale: ${product.discountPercent}% off the list price ${formatCents(listPriceOf(product))})`;
  return `${product.name} (${product.id}) by ${product.brand}, ${formatCents(product.priceCents)}, ${stock}, rated ${product.rating}${sale}`;
}

/** A cart summary for the model. */
export function cartSummary(view: CartView): string {
  if (view.lines.length === 0) return `The cart is empty (limit ${view.limit}).`;
  const lines = view.lines.map(
    (l) =>
      `${l.quantity} × ${l.name} (${l.productId}${variantText(l)}${neededText(l)}) at ${l.unitPrice} = ${l.lineTotal}`,
  );
  return `Cart: ${lines.join("; ")}. ${countOf(view.itemCount, "item")}, total ${view.total} (limit ${view.limit}).`;
}

/** ", size US 10, Volt" for a line with a variant, "" without. */
export function variantText(variant: { size?: string; color?: string }): string {
  const parts = [
    ...(variant.size !== undefined ? [`size ${variant.size}`] : []),
    ...(variant.color !== undefined ? [variant.color] : []),
  ];
  return parts.length > 0 ? `, ${parts.join(", ")}` : "";
}

/** ", size to choose, colour to choose" for a line missing its variant (checkout refuses it). */
function neededText(line: CartLineView): string {
  const missing = line.needs?.missing ?? [];
  return missing
    .map((kind) => (kind === "size" ? ", size to choose" : ", colour to choose"))
    .join("");
}
