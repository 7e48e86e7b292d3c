/**
 * The JSON the shop's API and its UI events carry, defined once: the server writes these shapes
 * and the browser app (`web/src/api/types.ts`) reads them, importing these types rather than
 * copying them, so a renamed or retyped field fails to compile on both sides. Types only: this
 * file imports nothing, so the browser's type-check can follow it.
 */

/** A product as shown on a card (live price and stock). */
export interface ProductView {
  id: string;
  name: string;
  brand: string;
  category: string;
  /** The price a shopper pays now (after a discount, when one applies). */
  priceCents: number;
  price: string;
  /** While a discount applies: the price before it, and the percentage off. */
  listPriceCents?: number;
  listPrice?: string;
  discountPercent?: number;
  stock: number;
  inStock: boolean;
  rating: number;
  description: string;
  sizes: readonly string[];
  colors: readonly string[];
}

/** One line of a {@link CartView}. */
export interface CartLineView {
  productId: string;
  name: string;
  quantity: number;
  unitPriceCents: number;
  unitPrice: string;
  lineTotalCents: number;
  lineTotal: string;
  /** The size chosen, when one was. */
  size?: string;
  /** The colour chosen, when one was. */
  color?: string;
  /**
   * What the line still has to choose before checkout (a line made before sizes were required),
   * with the product's choices; absent when nothing is missing.
   */
  needs?: { missing: ("size" | "color")[]; sizes: string[]; colors: string[] };
}

/** What `GET /api/sessions/:id/cart` and the cart changes answer, and `cart-updated` carries. */
export interface CartView {
  lines: CartLineView[];
  itemCount: number;
  totalCents: number;
  total: string;
  /** The highest total a cart may reach. */
  limitCents: number;
  limit: string;
  /** The most units one line may hold. */
  maxQuantityPerLine: number;
}
