/**
 * The one mapping from a `products` row to the domain's {@link Product}, and the product read
 * every cart change and checkout runs. Every read of a product goes through {@link toProduct}, so
 * a category's discount applies the same way in search, cards, the cart and checkout.
 */

import type { Selectable } from "kysely";
import type { Product } from "../domain/catalog.js";
import { withDiscount } from "../domain/discounts.js";
import { preparedQuery } from "./prepared-query.js";
import type { ProductsTable, ShopDb } from "./shop-database.js";

/** A product row as the domain sees it: the price after its category's discount, if any. */
export function toProduct(row: Selectable<ProductsTable>): Product {
  const product: Product = {
    id: row.id,
    sku: row.sku,
    name: row.name,
    brand: row.brand,
    category: row.category,
    tags: JSON.parse(row.tags) as string[],
    priceCents: Number(row.price_cents),
    sizes: JSON.parse(row.sizes) as string[],
    colors: JSON.parse(row.colors) as string[],
    stock: Number(row.stock),
    rating: Number(row.rating),
    description: row.description,
  };
  // The price a shopper sees and pays: the list price less the category's discount.
  const percent = row.discount_percent;
  return percent === null || percent === undefined
    ? product
    : withDiscount(product, Number(percent));
}

// Run by every cart change and checkout: compiled once per database.
const productById = preparedQuery((db, productId: string) =>
  db.selectFrom("products").selectAll().where("id", "=", productId),
);

/** One product with its current price and stock, read on `db` (the store or a transaction). */
export async function readProduct(db: ShopDb, productId: string): Promise<Product | undefined> {
  const row = (await productById(db, productId)).rows[0];
  return row && toProduct(row);
}
