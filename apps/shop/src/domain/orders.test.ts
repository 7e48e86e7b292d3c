import { describe, expect, it } from "vitest";
import { addToCart, type Cart, EMPTY_CART } from "./cart.js";
import type { Product } from "./catalog.js";
import { checkout } from "./orders.js";
import { testProduct } from "./test-products.testkit.js";

const shoe = testProduct({ id: "shoe", name: "Aero Trail Runner", priceCents: 8_900, stock: 5 });
const sock = testProduct({ id: "sock", name: "Merino Wool Socks", priceCents: 1_450, stock: 3 });
const catalog = (...products: Product[]) => new Map(products.map((p) => [p.id, p]));

function cartWith(...adds: [Product, number][]): Cart {
  let cart = EMPTY_CART;
  for (const [product, quantity] of adds) {
    const result = addToCart(cart, product, quantity);
    if (!result.ok) throw new Error(result.message);
    cart = result.cart;
  }
  return cart;
}

describe("checkout", () => {
  it("builds the order at current prices with stock decrements", () => {
    const result = checkout(cartWith([shoe, 2], [sock, 3]), catalog(shoe, sock));
    expect(result).toEqual({
      ok: true,
      draft: {
        lines: [
          {
            productId: "shoe",
            name: "Aero Trail Runner",
            quantity: 2,
            unitPriceCents: 8_900,
            lineTotalCents: 17_800,
          },
          {
            productId: "sock",
            name: "Merino Wool Socks",
            quantity: 3,
            unitPriceCents: 1_450,
            lineTotalCents: 4_350,
          },
        ],
        totalCents: 22_150,
        itemCount: 5,
        stockDecrements: [
          { productId: "shoe", quantity: 2 },
          { productId: "sock", quantity: 3 },
        ],
        priceChanges: [],
      },
    });
  });

  it("charges the current price and reports the change", () => {
    const cart = cartWith([shoe, 1]);
    const result = checkout(cart, catalog({ ...shoe, priceCents: 9_500 }));
    if (!result.ok) throw new Error(result.message);
    expect(result.draft.totalCents).toBe(9_500);
    expect(result.draft.priceChanges).toEqual([
      {
        productId: "shoe",
        name: "Aero Trail Runner",
        cartUnitPriceCents: 8_900,
        unitPriceCents: 9_500,
      },
    ]);
  });

  it("refuses an empty cart, vanished products, missing stock and a total over the limit", () => {
    expect(checkout(EMPTY_CART, catalog())).toMatchObject({ code: "empty_cart" });
    expect(checkout(cartWith([shoe, 1]), catalog())).toMatchObject({ code: "unknown_product" });
    expect(checkout(cartWith([shoe, 5]), catalog({ ...shoe, stock: 4 }))).toMatchObject({
      ok: false,
      code: "insufficient_stock",
      message: "Only 4 × Aero Trail Runner left in stock; the cart holds 5.",
    });
    expect(checkout(cartWith([shoe, 1]), catalog({ ...shoe, stock: 0 }))).toMatchObject({
      code: "insufficient_stock",
    });
    expect(
      checkout(cartWith([shoe, 5]), catalog(shoe), { maxQuantityPerLine: 4, maxTotalCents: 1e9 }),
    ).toMatchObject({
      code: "quantity_out_of_range",
    });
    expect(checkout(cartWith([shoe, 5]), catalog({ ...shoe, priceCents: 100_001 }))).toMatchObject({
      ok: false,
      code: "over_limit",
      message:
        "At current prices the cart totals $5,000.05, over the $5,000.00 limit; remove something first.",
    });
  });

  it("accepts a cart exactly at the stock and the limit", () => {
    const dear = { ...shoe, priceCents: 100_000 };
    expect(checkout(cartWith([dear, 5]), catalog(dear)).ok).toBe(true);
  });
});

describe("checkout keeps variants", () => {
  it("carries each line's size and colour into the order; lines without one have neither", () => {
    const boot = testProduct({
      id: "boot",
      name: "Ridge Boot",
      priceCents: 12_000,
      stock: 4,
      sizes: ["US 9", "US 10"],
      colors: ["Slate", "Rust"],
    });
    let cart = EMPTY_CART;
    const add = addToCart(cart, boot, 1, undefined, { size: "10", color: "rust" });
    if (!add.ok) throw new Error(add.message);
    cart = add.cart;
    const plain = addToCart(cart, sock, 2);
    if (!plain.ok) throw new Error(plain.message);
    const result = checkout(plain.cart, catalog(boot, sock));
    if (!result.ok) throw new Error(result.message);
    expect(result.draft.lines[0]).toMatchObject({
      productId: "boot",
      size: "US 10",
      color: "Rust",
    });
    expect(result.draft.lines[1]).not.toHaveProperty("size");
    expect(result.draft.lines[1]).not.toHaveProperty("color");
  });
});

describe("checkout refuses a line without its variant", () => {
  const boot = testProduct({
    id: "boot",
    name: "Ridge Boot",
    stock: 4,
    sizes: ["US 9", "US 10"],
    colors: ["Slate", "Rust"],
  });
  const cap = testProduct({ id: "cap", name: "Sport Cap", colors: ["Grey"] });

  it("names every such line with its choices, and orders nothing", () => {
    const cart: Cart = {
      lines: [
        { productId: "boot", quantity: 1, unitPriceCents: 1_000, color: "Rust" },
        { productId: "sock", quantity: 1, unitPriceCents: 1_450 },
        { productId: "boot", quantity: 1, unitPriceCents: 1_000 },
      ],
    };
    expect(checkout(cart, catalog(boot, sock))).toMatchObject({
      ok: false,
      code: "variant_required",
      message:
        "Choose a size (US 9, US 10) for Ridge Boot (Rust); a size (US 9, US 10) and a colour (Slate, Rust) for Ridge Boot before checking out; nothing was ordered.",
      params: {
        choices: [
          {
            productId: "boot",
            name: "Ridge Boot",
            missing: ["size"],
            sizes: ["US 9", "US 10"],
            colors: ["Slate", "Rust"],
            color: "Rust",
          },
          {
            productId: "boot",
            name: "Ridge Boot",
            missing: ["size", "color"],
            sizes: ["US 9", "US 10"],
            colors: ["Slate", "Rust"],
          },
        ],
      },
    });
  });

  it("orders a one-colour product's line in its colour; stock counts every line of a product", () => {
    const cart: Cart = {
      lines: [
        { productId: "cap", quantity: 1, unitPriceCents: 1_000 },
        { productId: "boot", quantity: 3, unitPriceCents: 1_000, size: "US 9", color: "Rust" },
        { productId: "boot", quantity: 1, unitPriceCents: 1_000, size: "US 10", color: "Rust" },
      ],
    };
    const result = checkout(cart, catalog(boot, cap));
    if (!result.ok) throw new Error(result.message);
    expect(result.draft.lines[0]).toMatchObject({ productId: "cap", color: "Grey" });
    expect(result.draft.stockDecrements).toEqual([
      { productId: "cap", quantity: 1 },
      { productId: "boot", quantity: 4 },
    ]);
    expect(checkout(cart, catalog({ ...boot, stock: 3 }, cap))).toMatchObject({
      code: "insufficient_stock",
      message: "Only 3 × Ridge Boot left in stock; the cart holds 4.",
    });
  });
});
