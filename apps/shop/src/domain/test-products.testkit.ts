/**
 * Hand-made products for domain tests: exact prices and stock make boundaries easy to hit.
 * Not used by production code.
 */

import {
  addToCart,
  type Cart,
  type CartResult,
  type CartRules,
  DEFAULT_CART_RULES,
} from "./cart.js";
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

/**
 * `addToCart` in the product's first size and colour: for tests that need some line of a
 * product and do not care which variant (sized products need one).
 */
export function addInFirstVariant(
  cart: Cart,
  product: Product | undefined,
  quantity: number,
  rules: CartRules = DEFAULT_CART_RULES,
): CartResult {
  const variant = product ? { size: product.sizes[0], color: product.colors[0] } : {};
  return addToCart(cart, product, quantity, rules, variant);
}
