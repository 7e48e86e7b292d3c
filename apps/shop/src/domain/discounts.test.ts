import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCatalog } from "./catalog.js";
import {
  activeDiscounts,
  discountedCents,
  listPriceOf,
  MAX_DISCOUNT_PERCENT,
  matchCategory,
  planDiscount,
  priceWords,
  withDiscount,
} from "./discounts.js";
import { testProduct } from "./test-products.testkit.js";

const jacket = testProduct({
  id: "j1",
  name: "Storm Shell",
  category: "Jackets",
  priceCents: 8_900,
});
const parka = testProduct({
  id: "j2",
  name: "Alpine Parka",
  category: "Jackets",
  priceCents: 19_999,
});
const shoe = testProduct({ id: "s1", name: "Aero", category: "Running Shoes", priceCents: 5_000 });
const tights = testProduct({ id: "t1", name: "Tights", category: "Shorts & Tights" });
const products = [jacket, parka, shoe, tights];

describe("discounts", () => {
  it("takes whole cents off the list price, half a cent up, never below a cent", () => {
    expect(discountedCents(8_900, 10)).toBe(8_010);
    expect(discountedCents(1_999, 15)).toBe(1_699); // 1699.15
    expect(discountedCents(5, 10)).toBe(5); // 4.5 rounds up
    expect(discountedCents(1, 90)).toBe(1);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 1, max: MAX_DISCOUNT_PERCENT }),
        (list, percent) => {
          const price = discountedCents(list, percent);
          expect(Number.isSafeInteger(price)).toBe(true);
          expect(price).toBeGreaterThanOrEqual(1);
          expect(price).toBeLessThanOrEqual(list);
          expect(Math.abs(price * 100 - list * (100 - percent))).toBeLessThanOrEqual(100);
        },
      ),
    );
  });

  it("replaces an earlier discount instead of stacking, and ends back at the list price", () => {
    const tenOff = withDiscount(jacket, 10);
    expect(tenOff).toMatchObject({ priceCents: 8_010, listPriceCents: 8_900, discountPercent: 10 });
    const twentyOff = withDiscount(tenOff, 20);
    expect(twentyOff).toMatchObject({
      priceCents: 7_120,
      listPriceCents: 8_900,
      discountPercent: 20,
    });
    expect(withDiscount(twentyOff, undefined)).toEqual(jacket);
    expect(withDiscount(jacket, 0)).toEqual(jacket);
    expect(listPriceOf(twentyOff)).toBe(8_900);
    expect(priceWords(tenOff)).toBe("$80.10 (10% off $89.00)");
    expect(priceWords(jacket)).toBe("$89.00");
  });

  it("matches a category by any case, singular or plural, or by the words it holds", () => {
    const categories = [...new Set(generateCatalog().map((p) => p.category))];
    const cases: [string, string][] = [
      ["jackets", "Jackets"],
      ["JACKET", "Jackets"],
      ["shoes", "Running Shoes"],
      ["running shoe", "Running Shoes"],
      ["tights", "Shorts & Tights"],
      ["boots", "Hiking Boots"],
      ["accessory", "Accessories"],
      ["Fitness", "Fitness"],
    ];
    for (const [words, category] of cases) {
      expect(matchCategory(categories, words)).toEqual({ ok: true, category });
    }
    const unknown = matchCategory(categories, "hats");
    expect(unknown).toMatchObject({ ok: false, code: "unknown_category" });
    expect(!unknown.ok && unknown.message).toContain("Jackets");
    expect(matchCategory(["Trail Shoes", "Road Shoes"], "shoes")).toMatchObject({
      ok: false,
      code: "unknown_category",
      categories: ["Road Shoes", "Trail Shoes"],
    });
  });

  it("plans a category's new prices and leaves the other categories alone", () => {
    const plan = planDiscount(products, "jackets", 10);
    expect(plan).toMatchObject({ ok: true, category: "Jackets", percent: 10 });
    if (!plan.ok) return;
    expect(plan.rows).toEqual([
      { productId: "j2", name: "Alpine Parka", beforeCents: 19_999, afterCents: 17_999 },
      { productId: "j1", name: "Storm Shell", beforeCents: 8_900, afterCents: 8_010 },
    ]);
    expect(plan.products.every((p) => p.category === "Jackets" && p.discountPercent === 10)).toBe(
      true,
    );
    const ended = planDiscount(plan.products, "Jackets", undefined);
    expect(ended.ok && ended.rows.map((r) => [r.beforeCents, r.afterCents])).toEqual([
      [17_999, 19_999],
      [8_010, 8_900],
    ]);
  });

  it("refuses a percentage out of range, an unknown category and ending nothing", () => {
    for (const percent of [0, -5, 91, 12.5, Number.NaN]) {
      expect(planDiscount(products, "Jackets", percent)).toMatchObject({
        ok: false,
        code: "invalid_discount",
      });
    }
    expect(planDiscount(products, "hats", 10)).toMatchObject({ code: "unknown_category" });
    expect(planDiscount(products, "Jackets", undefined)).toMatchObject({
      code: "invalid_discount",
    });
  });

  it("lists the discounts in force by category", () => {
    const plan = planDiscount(products, "Jackets", 15);
    if (!plan.ok) throw new Error(plan.message);
    expect(activeDiscounts([...plan.products, shoe, withDiscount(tights, 5)])).toEqual([
      { category: "Jackets", percent: 15, productCount: 2 },
      { category: "Shorts & Tights", percent: 5, productCount: 1 },
    ]);
    expect(activeDiscounts(products)).toEqual([]);
  });
});
