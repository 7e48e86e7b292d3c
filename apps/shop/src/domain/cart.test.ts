import { describe, expect, it } from "vitest";
import {
  addToCart,
  type Cart,
  type CartResult,
  cartItemCount,
  cartTotal,
  clearCart,
  DEFAULT_CART_RULES,
  EMPTY_CART,
  isWellFormedCart,
  removeLine,
  updateQuantity,
} from "./cart.js";
import { testProduct } from "./test-products.testkit.js";

const shoe = testProduct({ id: "shoe", name: "Aero Trail Runner", priceCents: 8_900, stock: 40 });
const sock = testProduct({ id: "sock", name: "Merino Wool Socks", priceCents: 1_450, stock: 3 });
const tent = testProduct({ id: "tent", name: "Family Tent", priceCents: 50_000, stock: 50 });

function cartOf(result: CartResult): Cart {
  if (!result.ok) throw new Error(`expected ok, got ${result.code}: ${result.message}`);
  return result.cart;
}

describe("addToCart", () => {
  it("adds a line with the current price, then grows it", () => {
    const one = cartOf(addToCart(EMPTY_CART, shoe, 2));
    expect(one.lines).toEqual([{ productId: "shoe", quantity: 2, unitPriceCents: 8_900 }]);
    const two = cartOf(addToCart(one, sock, 1));
    const three = cartOf(addToCart(two, shoe, 3));
    expect(three.lines.map((l) => [l.productId, l.quantity])).toEqual([
      ["shoe", 5],
      ["sock", 1],
    ]);
    expect(cartTotal(three)).toBe(5 * 8_900 + 1_450);
    expect(cartItemCount(three)).toBe(6);
    // Pure: the inputs are untouched.
    expect(one.lines[0]?.quantity).toBe(2);
  });

  it("refreshes the captured price when an existing line grows", () => {
    const before = cartOf(addToCart(EMPTY_CART, shoe, 1));
    const after = cartOf(addToCart(before, { ...shoe, priceCents: 9_900 }, 1));
    expect(after.lines[0]).toEqual({ productId: "shoe", quantity: 2, unitPriceCents: 9_900 });
  });

  it("rejects an unknown product", () => {
    expect(addToCart(EMPTY_CART, undefined, 1)).toMatchObject({
      ok: false,
      code: "unknown_product",
    });
  });

  it("accepts 1 and 10 and rejects 0, 11, fractions and negatives", () => {
    expect(addToCart(EMPTY_CART, shoe, 1).ok).toBe(true);
    expect(addToCart(EMPTY_CART, shoe, 10).ok).toBe(true);
    for (const quantity of [0, 11, -1, 1.5, Number.NaN]) {
      const result = addToCart(EMPTY_CART, shoe, quantity);
      expect(result).toMatchObject({ ok: false, code: "quantity_out_of_range" });
    }
    expect(addToCart(EMPTY_CART, shoe, 11)).toMatchObject({
      message: "Quantity must be a whole number from 1 to 10 (got 11).",
    });
  });

  it("re-checks 1..10 on the grown line", () => {
    const nine = cartOf(addToCart(EMPTY_CART, shoe, 9));
    expect(addToCart(nine, shoe, 1).ok).toBe(true);
    expect(addToCart(nine, shoe, 2)).toMatchObject({
      ok: false,
      code: "quantity_out_of_range",
      message:
        "The cart already holds 9 × Aero Trail Runner; adding 2 would make 11, and a line holds at most 10.",
    });
  });

  it("allows exactly the stock and not one more", () => {
    const exact = cartOf(addToCart(EMPTY_CART, sock, 3));
    expect(exact.lines[0]?.quantity).toBe(3);
    expect(addToCart(exact, sock, 1)).toMatchObject({
      ok: false,
      code: "insufficient_stock",
      message:
        "Only 3 × Merino Wool Socks in stock; the cart would hold 4 (3 already in the cart).",
    });
    expect(addToCart(EMPTY_CART, { ...sock, stock: 0 }, 1)).toMatchObject({
      ok: false,
      code: "insufficient_stock",
      message: "Merino Wool Socks is out of stock.",
    });
  });

  it("allows exactly the limit and not one cent more", () => {
    const rules = { ...DEFAULT_CART_RULES, maxTotalCents: 500_000 };
    const full = cartOf(addToCart(EMPTY_CART, tent, 10, rules));
    expect(cartTotal(full)).toBe(500_000);
    const tooMuch = addToCart(EMPTY_CART, { ...tent, priceCents: 50_001 }, 10, rules);
    expect(tooMuch).toMatchObject({ ok: false, code: "over_limit" });
    expect(addToCart(full, sock, 1)).toMatchObject({
      ok: false,
      code: "over_limit",
      message:
        "Adding 1 × Merino Wool Socks would bring the cart total to $5,014.50, over the $5,000.00 limit. Remove something first to make room.",
    });
  });

  it("says how many more would fit under the limit", () => {
    const rules = { maxQuantityPerLine: 10, maxTotalCents: 200_000 };
    const two = cartOf(addToCart(EMPTY_CART, tent, 2, rules));
    expect(addToCart(two, tent, 3, rules)).toMatchObject({
      code: "over_limit",
      message: expect.stringContaining("At most 2 more would fit."),
    });
  });

  it("honours configured rules", () => {
    const rules = { maxQuantityPerLine: 3, maxTotalCents: 10_000 };
    expect(addToCart(EMPTY_CART, sock, 3, rules).ok).toBe(true);
    expect(addToCart(EMPTY_CART, shoe, 4, rules)).toMatchObject({ code: "quantity_out_of_range" });
    expect(addToCart(EMPTY_CART, shoe, 2, rules)).toMatchObject({ code: "over_limit" });
  });
});

describe("updateQuantity and removeLine", () => {
  const cart = cartOf(addToCart(cartOf(addToCart(EMPTY_CART, shoe, 2)), sock, 1));

  it("sets a line's quantity within the same rules", () => {
    expect(cartOf(updateQuantity(cart, shoe, 10)).lines[0]?.quantity).toBe(10);
    expect(cartOf(updateQuantity(cart, sock, 3)).lines[1]?.quantity).toBe(3);
    expect(updateQuantity(cart, shoe, 11)).toMatchObject({ code: "quantity_out_of_range" });
    expect(updateQuantity(cart, sock, 4)).toMatchObject({ code: "insufficient_stock" });
    expect(
      updateQuantity(cart, shoe, 3, { maxQuantityPerLine: 10, maxTotalCents: 20_000 }),
    ).toMatchObject({
      ok: false,
      code: "over_limit",
      message:
        "Setting Aero Trail Runner to 3 would bring the cart total to $281.50, over the $200.00 limit. At most 2 would fit.",
    });
  });

  it("removes the line when set to 0", () => {
    expect(cartOf(updateQuantity(cart, shoe, 0)).lines.map((l) => l.productId)).toEqual(["sock"]);
  });

  it("reports products that are not in the cart or not in the catalog", () => {
    expect(updateQuantity(cart, tent, 1)).toMatchObject({
      ok: false,
      code: "not_in_cart",
      message: "Family Tent is not in the cart.",
    });
    expect(updateQuantity(cart, undefined, 1)).toMatchObject({ code: "unknown_product" });
    expect(removeLine(cart, "tent")).toMatchObject({ code: "not_in_cart" });
  });

  it("removes a line and keeps the others in order", () => {
    expect(cartOf(removeLine(cart, "shoe")).lines).toEqual([
      { productId: "sock", quantity: 1, unitPriceCents: 1_450 },
    ]);
  });
});

describe("isWellFormedCart", () => {
  it("accepts carts built by the rules and rejects malformed ones", () => {
    expect(isWellFormedCart(cartOf(addToCart(EMPTY_CART, shoe, 10)))).toBe(true);
    const line = { productId: "shoe", quantity: 1, unitPriceCents: 100 };
    expect(isWellFormedCart({ lines: [line, line] })).toBe(false);
    expect(isWellFormedCart({ lines: [{ ...line, quantity: 0 }] })).toBe(false);
    expect(isWellFormedCart({ lines: [{ ...line, quantity: 1.5 }] })).toBe(false);
    expect(isWellFormedCart({ lines: [{ ...line, unitPriceCents: 1.5 }] })).toBe(false);
  });
});

describe("variants on a cart line", () => {
  const runner = testProduct({
    id: "runner",
    name: "Aero Trail Runner",
    sizes: ["US 9", "US 10", "US 11"],
    colors: ["Slate", "Volt"],
  });
  const gloves = testProduct({ id: "gloves", name: "Dash Gloves", sizes: ["S/M", "L/XL"] });
  const cap = testProduct({ id: "cap", name: "Sport Cap", sizes: [], colors: ["Grey"] });

  it("keeps the product's own size and colour names for the shopper's words", () => {
    const cart = cartOf(
      addToCart(EMPTY_CART, runner, 2, DEFAULT_CART_RULES, { size: "10", color: "volt" }),
    );
    expect(cart.lines).toEqual([
      { productId: "runner", quantity: 2, unitPriceCents: 1_000, size: "US 10", color: "Volt" },
    ]);
    const more = cartOf(
      addToCart(cart, runner, 1, DEFAULT_CART_RULES, { size: "US 10", color: "Volt" }),
    );
    expect(more.lines).toEqual([{ ...cart.lines[0], quantity: 3 }]);
    expect(
      cartOf(addToCart(EMPTY_CART, gloves, 1, DEFAULT_CART_RULES, { size: "large" })).lines[0]
        ?.size,
    ).toBe("L/XL");
    expect(
      cartOf(addToCart(EMPTY_CART, cap, 1, DEFAULT_CART_RULES, { color: "gray" })).lines[0]?.color,
    ).toBe("Grey");
  });

  it("refuses a sized or many-coloured product without its variant, listing the choices", () => {
    const none = addToCart(EMPTY_CART, runner, 1);
    expect(none).toEqual({
      ok: false,
      code: "variant_required",
      message:
        "Choose a size (US 9, US 10, US 11) and a colour (Slate, Volt) for Aero Trail Runner; nothing was added.",
      params: {
        choices: [
          {
            productId: "runner",
            name: "Aero Trail Runner",
            missing: ["size", "color"],
            sizes: ["US 9", "US 10", "US 11"],
            colors: ["Slate", "Volt"],
          },
        ],
      },
    });
    expect(addToCart(EMPTY_CART, runner, 1, DEFAULT_CART_RULES, { color: "Slate" })).toMatchObject({
      code: "variant_required",
      message: "Choose a size (US 9, US 10, US 11) for Aero Trail Runner; nothing was added.",
      params: { choices: [{ missing: ["size"], color: "Slate" }] },
    });
    expect(addToCart(EMPTY_CART, runner, 1, DEFAULT_CART_RULES, { size: "9" })).toMatchObject({
      code: "variant_required",
      params: { choices: [{ missing: ["color"], size: "US 9" }] },
    });
    expect(addToCart(EMPTY_CART, gloves, 1)).toMatchObject({
      code: "variant_required",
      params: { choices: [{ missing: ["size"] }] },
    });
  });

  it("gives a one-colour product its colour; one-size products need nothing", () => {
    expect(cartOf(addToCart(EMPTY_CART, cap, 1)).lines).toEqual([
      { productId: "cap", quantity: 1, unitPriceCents: 1_000, color: "Grey" },
    ]);
    const bottle = testProduct({ id: "bottle", name: "Bottle", colors: ["Blue", "Green"] });
    expect(addToCart(EMPTY_CART, bottle, 1)).toMatchObject({ code: "variant_required" });
    expect(cartOf(addToCart(EMPTY_CART, shoe, 1)).lines).toEqual([
      { productId: "shoe", quantity: 1, unitPriceCents: 8_900 },
    ]);
  });

  it("refuses a size or colour the product does not come in", () => {
    expect(addToCart(EMPTY_CART, runner, 1, DEFAULT_CART_RULES, { size: "15" })).toMatchObject({
      ok: false,
      code: "invalid_variant",
      message: expect.stringContaining("US 9, US 10, US 11"),
    });
    expect(addToCart(EMPTY_CART, cap, 1, DEFAULT_CART_RULES, { size: "M" })).toMatchObject({
      code: "invalid_variant",
    });
    expect(addToCart(EMPTY_CART, cap, 1, DEFAULT_CART_RULES, { color: "pink" })).toMatchObject({
      code: "invalid_variant",
    });
  });

  it("keeps another size of the same product on its own line; stock counts every line", () => {
    const ten = cartOf(
      addToCart(EMPTY_CART, runner, 1, DEFAULT_CART_RULES, { size: "10", color: "Volt" }),
    );
    const both = cartOf(
      addToCart(ten, runner, 2, DEFAULT_CART_RULES, { size: "11", color: "Volt" }),
    );
    expect(both.lines.map((l) => [l.size, l.quantity])).toEqual([
      ["US 10", 1],
      ["US 11", 2],
    ]);
    expect(isWellFormedCart(both)).toBe(true);
    const scarce = { ...runner, stock: 3 };
    expect(
      addToCart(both, scarce, 1, DEFAULT_CART_RULES, { size: "9", color: "Slate" }),
    ).toMatchObject({
      code: "insufficient_stock",
      message:
        "Only 3 × Aero Trail Runner in stock; the cart would hold 4 (3 already in the cart).",
    });
    expect(cartOf(removeLine(both, "runner", { size: "10" })).lines.map((l) => l.size)).toEqual([
      "US 11",
    ]);
    expect(cartOf(removeLine(both, "runner")).lines).toEqual([]);
    expect(removeLine(both, "runner", { size: "9" })).toMatchObject({ code: "not_in_cart" });
  });

  it("updateQuantity keeps the variant, or changes it when asked; clearCart empties", () => {
    const ten = cartOf(
      addToCart(EMPTY_CART, runner, 1, DEFAULT_CART_RULES, { size: "10", color: "Volt" }),
    );
    const three = cartOf(updateQuantity(ten, runner, 3));
    expect(three.lines[0]).toMatchObject({ quantity: 3, size: "US 10", color: "Volt" });
    const eleven = cartOf(updateQuantity(three, runner, 3, DEFAULT_CART_RULES, { size: "11" }));
    expect(eleven.lines[0]).toMatchObject({ quantity: 3, size: "US 11", color: "Volt" });
    expect(cartOf(clearCart(eleven)).lines).toEqual([]);
    expect(isWellFormedCart(eleven)).toBe(true);
  });

  it("completes a line that lacks its variant, and picks among several lines", () => {
    // A line from before sizes were required: no size, no colour.
    const old: Cart = {
      lines: [
        { productId: "runner", quantity: 2, unitPriceCents: 1_000 },
        { productId: "runner", quantity: 1, unitPriceCents: 1_000, size: "US 9", color: "Slate" },
      ],
    };
    expect(updateQuantity(old, runner, 4)).toMatchObject({ code: "ambiguous_line" });
    const fixed = cartOf(
      updateQuantity(old, runner, undefined, DEFAULT_CART_RULES, { size: "10", color: "Volt" }),
    );
    expect(fixed.lines[0]).toEqual({
      productId: "runner",
      quantity: 2,
      unitPriceCents: 1_000,
      size: "US 10",
      color: "Volt",
    });
    const nine = cartOf(
      updateQuantity(old, runner, 5, DEFAULT_CART_RULES, {}, { size: "9", color: "slate" }),
    );
    expect(nine.lines[1]).toMatchObject({ quantity: 5, size: "US 9" });
    // Changed into the variant of another line, the two become one.
    const joined = cartOf(
      updateQuantity(old, runner, undefined, DEFAULT_CART_RULES, { size: "9", color: "Slate" }),
    );
    expect(joined.lines).toEqual([
      { productId: "runner", quantity: 3, unitPriceCents: 1_000, size: "US 9", color: "Slate" },
    ]);
    expect(updateQuantity(old, runner, 1, DEFAULT_CART_RULES, {}, { size: "12" })).toMatchObject({
      code: "not_in_cart",
    });
  });
});

describe("a violation's facts (params), from which a page writes its own words", () => {
  const runner = testProduct({
    id: "runner",
    name: "Aero Trail Runner",
    sizes: ["US 9", "US 10"],
    colors: ["Slate", "Volt"],
    stock: 4,
  });
  const rules = DEFAULT_CART_RULES;
  const fail = (result: CartResult) => {
    if (result.ok) throw new Error("expected a violation");
    return result;
  };

  it("names the product and the bound that was crossed", () => {
    const full = cartOf(addToCart(EMPTY_CART, shoe, 10));
    expect(fail(addToCart(full, shoe, 1)).params).toEqual({
      productId: "shoe",
      name: "Aero Trail Runner",
      quantity: 1,
      wouldHold: 11,
      max: rules.maxQuantityPerLine,
    });
    expect(fail(addToCart(EMPTY_CART, shoe, 0)).params).toEqual({
      productId: "shoe",
      name: "Aero Trail Runner",
      quantity: 0,
      max: 10,
    });
    expect(fail(addToCart(EMPTY_CART, sock, 4)).params).toMatchObject({
      productId: "sock",
      available: 3,
      wouldHold: 4,
    });
    const kayak = testProduct({ id: "kayak", name: "Sea Kayak", priceCents: 400_000, stock: 9 });
    const over = fail(addToCart(EMPTY_CART, kayak, 2));
    expect(over.code).toBe("over_limit");
    expect(over.params).toEqual({
      productId: "kayak",
      name: "Sea Kayak",
      totalCents: 800_000,
      limitCents: rules.maxTotalCents,
      room: Math.floor(rules.maxTotalCents / 400_000),
    });
  });

  it("says what a product comes in, the variant asked for, and the lines it cannot tell apart", () => {
    expect(fail(addToCart(EMPTY_CART, runner, 1, rules, { size: "15" })).params).toEqual({
      productId: "runner",
      name: "Aero Trail Runner",
      size: "15",
      sizes: ["US 9", "US 10"],
    });
    expect(
      fail(addToCart(EMPTY_CART, runner, 1, rules, { size: "9", color: "pink" })).params,
    ).toMatchObject({ color: "pink", colors: ["Slate", "Volt"] });
    const two = cartOf(
      addToCart(
        cartOf(addToCart(EMPTY_CART, runner, 1, rules, { size: "9", color: "Slate" })),
        runner,
        1,
        rules,
        { size: "10", color: "Volt" },
      ),
    );
    const which = fail(updateQuantity(two, runner, 2, rules));
    expect(which.code).toBe("ambiguous_line");
    expect(which.params?.lines).toEqual([
      { size: "US 9", color: "Slate" },
      { size: "US 10", color: "Volt" },
    ]);
    expect(fail(removeLine(EMPTY_CART, "runner")).params).toMatchObject({ productId: "runner" });
  });

  it("every violation's params are plain JSON (they travel to the page unchanged)", () => {
    const results = [
      addToCart(EMPTY_CART, shoe, 11),
      addToCart(EMPTY_CART, sock, 5),
      addToCart(EMPTY_CART, runner, 1),
      addToCart(EMPTY_CART, undefined, 1),
    ];
    for (const result of results) {
      const v = fail(result);
      expect(JSON.parse(JSON.stringify(v.params ?? {}))).toEqual(v.params ?? {});
    }
  });
});
