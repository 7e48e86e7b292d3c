/**
 * Hand-made products for domain tests: exact prices and stock make boundaries easy to hit.
 * Not used by production code.
 */

import type { Product } from "./catalog.js";

/** Builds a product with sensible defaults for a test. */
export function testProduct(overrides: Partial<Product> & Pick<Product, "id">): Product {
  return {
    sku: `TST-${overrides.id}`,
    name: `Product ${overrides.id}`,
    brand: "Testco",
    category: "Tests",
    tags: ["test"],
    priceCents: 1_000,
    sizes: [],
    colors: [],
    stock: 100,
    rating: 4,
    description: "A product for tests.",
    ...overrides,
  };
}
