import { describe, expect, it } from "vitest";
import { DEFAULT_CATALOG_SIZE, generateCatalog } from "./catalog.js";
import { isCents } from "./money.js";

describe("generateCatalog", () => {
  const catalog = generateCatalog();

  it("generates at least 200 products with unique ids, skus and names", () => {
    expect(catalog.length).toBe(DEFAULT_CATALOG_SIZE);
    expect(catalog.length).toBeGreaterThanOrEqual(200);
    for (const key of ["id", "sku", "name"] as const) {
      expect(new Set(catalog.map((p) => p[key])).size).toBe(catalog.length);
    }
    expect(catalog[0]?.id).toBe("p-0001");
    expect(catalog.at(-1)?.id).toBe(`p-${String(catalog.length).padStart(4, "0")}`);
  });

  it("is deterministic per seed", () => {
    expect(generateCatalog()).toEqual(catalog);
    expect(generateCatalog(7, 50)).toEqual(generateCatalog(7, 50));
    expect(generateCatalog(7).map((p) => p.name)).not.toEqual(catalog.map((p) => p.name));
  });

  it("includes the demo products with their prices", () => {
    const byName = new Map(catalog.map((p) => [p.name, p]));
    expect(byName.get("Aero Trail Runner")).toMatchObject({
      id: "p-0001",
      category: "Running Shoes",
      priceCents: 8_900,
    });
    expect(byName.get("Merino Wool Socks")).toMatchObject({ id: "p-0002", priceCents: 1_450 });
    const shoes = catalog.filter((p) => p.category === "Running Shoes");
    expect(shoes.filter((p) => p.priceCents < 10_000).length).toBeGreaterThanOrEqual(4);
    expect(shoes.filter((p) => p.priceCents > 10_000).length).toBeGreaterThanOrEqual(4);
  });

  it("gives every product sane fields, with several categories and some low stock", () => {
    for (const p of catalog) {
      expect(isCents(p.priceCents) && p.priceCents > 0).toBe(true);
      expect(Number.isInteger(p.stock) && p.stock >= 0).toBe(true);
      expect(p.rating).toBeGreaterThanOrEqual(1);
      expect(p.rating).toBeLessThanOrEqual(5);
      expect(p.name && p.brand && p.category && p.description).toBeTruthy();
      expect(p.tags.length).toBeGreaterThan(0);
      expect(p.tags.every((t) => t === t.toLowerCase())).toBe(true);
    }
    expect(new Set(catalog.map((p) => p.category)).size).toBeGreaterThanOrEqual(10);
    expect(catalog.filter((p) => p.stock <= 5).length).toBeGreaterThanOrEqual(5);
    // Products dear enough that ten of them break the default $5,000 limit.
    expect(catalog.some((p) => p.priceCents * 10 > 500_000 && p.stock >= 10)).toBe(true);
  });
});
