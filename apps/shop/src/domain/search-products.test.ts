import { describe, expect, it } from "vitest";
import { generateCatalog } from "./catalog.js";
import { normalizeWords, searchProducts } from "./search-products.js";

const catalog = generateCatalog();
const names = (text: string, extra: object = {}) =>
  searchProducts(catalog, { text, ...extra }).map((p) => p.name);

describe("searchProducts", () => {
  it("is case-insensitive and ranks the name that holds every word first", () => {
    expect(names("aero trail")[0]).toBe("Aero Trail Runner");
    expect(names("AERO TRAIL RUNNER")[0]).toBe("Aero Trail Runner");
    expect(names("merino socks")[0]).toBe("Merino Wool Socks");
  });

  it("matches plurals, prefixes, brands, categories and tags", () => {
    expect(names("sock").every((n) => /sock/i.test(n))).toBe(true);
    expect(names("runners")).toContain("Aero Trail Runner");
    expect(searchProducts(catalog, { text: "kinetica" }).every((p) => p.brand === "Kinetica")).toBe(
      true,
    );
    const shoes = searchProducts(catalog, { text: "running shoes", limit: 10 });
    expect(shoes.every((p) => p.category === "Running Shoes")).toBe(true);
    expect(names("waterproof")).toContain("Storm Waterproof Trail Runner");
  });

  it("ranks by the number of matched words, then score, then rating", () => {
    const hits = searchProducts(catalog, { text: "trail", limit: 100 });
    const nameHits = hits.filter((p) => /trail/i.test(p.name));
    // Among equally good matches the best rated comes first.
    for (let i = 1; i < nameHits.length; i++) {
      const [a, b] = [nameHits[i - 1]!, nameHits[i]!];
      if (a.category === b.category && a.tags.join() === b.tags.join()) {
        expect(a.rating).toBeGreaterThanOrEqual(b.rating);
      }
    }
    expect(names("zzzz")).toEqual([]);
  });

  it("filters by price range and category, and ignores stop words and numbers", () => {
    const cheap = searchProducts(catalog, {
      text: "running shoes under 100",
      category: "running shoes",
      maxPriceCents: 10_000,
      limit: 100,
    });
    expect(cheap.length).toBeGreaterThanOrEqual(4);
    expect(cheap.every((p) => p.priceCents <= 10_000 && p.category === "Running Shoes")).toBe(true);
    expect(cheap.map((p) => p.name)).toContain("Aero Trail Runner");
    const dear = searchProducts(catalog, { category: "Running-Shoes", minPriceCents: 10_001 });
    expect(dear.length).toBeGreaterThanOrEqual(4);
    expect(dear.every((p) => p.priceCents > 10_000)).toBe(true);
    // One word of the category is enough, in any case or number.
    const ids = (category: string) =>
      searchProducts(catalog, { category, limit: 500 }).map((p) => p.id);
    expect(ids("shoe")).toEqual(ids("Running Shoes"));
    expect(ids("tights").length).toBeGreaterThan(0);
    expect(ids("nonexistent")).toEqual([]);
  });

  it("lists everything best rated first without text, honouring limit and inStockOnly", () => {
    const all = searchProducts(catalog, { limit: 1_000 });
    expect(all.length).toBe(catalog.length);
    for (let i = 1; i < all.length; i++) {
      expect(all[i - 1]!.rating).toBeGreaterThanOrEqual(all[i]!.rating);
    }
    expect(searchProducts(catalog, {}).length).toBe(20);
    expect(searchProducts(catalog, { limit: 3 }).length).toBe(3);
    const inStock = searchProducts(catalog, { inStockOnly: true, limit: 1_000 });
    expect(inStock.every((p) => p.stock > 0)).toBe(true);
    expect(inStock.length).toBeLessThan(catalog.length);
  });

  it("normalises words: case, accents, punctuation, plurals", () => {
    expect(normalizeWords("Café-Shoes, RUNNERS & No-Show")).toEqual([
      "cafe",
      "shoe",
      "runner",
      "no",
      "show",
    ]);
    expect(normalizeWords("batteries glass")).toEqual(["battery", "glass"]);
  });
});
