/**
 * Reading the catalog: every product, one product, a search and the merchant's low-stock report.
 * Prices come out after any category discount (`toProduct`).
 */

import type { Kysely } from "kysely";
import type { Product } from "../domain/catalog.js";
import { DEFAULT_LOW_STOCK_THRESHOLD, lowStockReport } from "../domain/merchant.js";
import { type ProductQuery, searchProducts } from "../domain/search-products.js";
import { readProduct, toProduct } from "./product-rows.js";
import type { ShopDatabase } from "./shop-database.js";

/** The catalog's reads (see `ShopStore` for each method). */
export class CatalogStore {
  readonly #db: Kysely<ShopDatabase>;

  constructor(db: Kysely<ShopDatabase>) {
    this.#db = db;
  }

  async listProducts(): Promise<Product[]> {
    const rows = await this.#db.selectFrom("products").selectAll().orderBy("id").execute();
    return rows.map(toProduct);
  }

  async getProduct(productId: string): Promise<Product | undefined> {
    return readProduct(this.#db, productId);
  }

  async searchProducts(query: ProductQuery): Promise<Product[]> {
    // A few hundred rows: ranking in memory keeps one search implementation for both dialects.
    return searchProducts(await this.listProducts(), query);
  }

  async lowStock(threshold = DEFAULT_LOW_STOCK_THRESHOLD): Promise<Product[]> {
    const rows = await this.#db
      .selectFrom("products")
      .selectAll()
      .where("stock", "<=", threshold)
      .execute();
    return lowStockReport(rows.map(toProduct), threshold);
  }
}
