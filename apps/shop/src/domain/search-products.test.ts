import { describe, expect, it } from "vitest";
import { generateCatalog } from "./catalog.js";
import { normalizeWords, ProductSearchIndex, searchProducts } from "./search-products.js";

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

describe("ProductSearchIndex", () => {
  // A description word counts only whole (its prefix weight is 0); the other fields by prefix too.
  const matches = (p: (typeof catalog)[number], w: string) =>
    normalizeWords(p.description).includes(w) ||
    [p.name, p.brand, p.category, ...p.tags]
      .flatMap(normalizeWords)
      .some((f) => f === w || (w.length >= 3 && f.startsWith(w)));

  it("finds exactly the products holding a query word, whole or as a prefix of 3+ characters", () => {
    const index = new ProductSearchIndex();
    index.sync(catalog);
    const queries = [
      "trail",
      "tra",
      "sock",
      "merino socks",
      "waterproof jacket",
      "kinetica",
      "run",
      "ru",
      "headlamp batteries",
      "zzzz trail",
      "café",
      "x",
    ];
    for (const text of queries) {
      const words = normalizeWords(text);
      const expected = catalog
        .filter((p) => words.some((w) => matches(p, w)))
        .map((p) => p.id)
        .sort();
      const found = index
        .search({ text, limit: 1_000 })
        .map((p) => p.id)
        .sort();
      expect(found, text).toEqual(expected);
    }
  });

  it("stays true to the catalog it is given: edited, removed and added products, new prices", () => {
    const index = new ProductSearchIndex();
    index.sync(catalog);
    const aero = catalog.find((p) => p.name === "Aero Trail Runner")!;
    const ids = (text: string, extra: object = {}) =>
      index.search({ text, limit: 1_000, ...extra }).map((p) => p.id);
    expect(ids("aero")).toContain(aero.id);

    // The merchant renames it and changes its price; another product is removed, one added.
    const removed = catalog.find((p) => p.id !== aero.id && p.name.includes("Socks"))!;
    const added = { ...aero, id: "p-9999", name: "Wombatrix Road Flat", priceCents: 4_200 };
    const edited = catalog
      .filter((p) => p.id !== removed.id)
      .map((p) =>
        p.id === aero.id ? { ...p, name: "Quokkafly Trail Runner", priceCents: 1_000 } : p,
      )
      .concat(added);
    index.sync(edited);
    expect(index.size).toBe(edited.length);
    expect(ids("quokkafly")).toEqual([aero.id]);
    expect(ids("aero")).not.toContain(aero.id);
    expect(ids("quokkafly", { maxPriceCents: 1_000 })).toEqual([aero.id]);
    expect(ids(removed.name)).not.toContain(removed.id);
    expect(ids("wombatrix")).toEqual(["p-9999"]);
    // Unchanged text, new stock: the filter reads the products passed, not the indexed ones.
    index.sync(edited.map((p) => (p.id === "p-9999" ? { ...p, stock: 0 } : p)));
    expect(ids("wombatrix", { inStockOnly: true })).toEqual([]);
    // searchProducts follows whatever catalog it is handed.
    expect(searchProducts(edited, { text: "quokkafly" }).map((p) => p.id)).toEqual([aero.id]);
    expect(searchProducts(catalog, { text: "quokkafly" })).toEqual([]);
  });
});
