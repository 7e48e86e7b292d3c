import { describe, expect, it } from "vitest";
import { withDiscount } from "./discounts.js";
import {
  changePrice,
  editProduct,
  lowStockReport,
  MAX_NAME_LENGTH,
  MAX_PRODUCTS_PER_CHANGE,
  MAX_RESTOCK_QUANTITY,
  planRestock,
  restockProduct,
  summarizeSales,
} from "./merchant.js";
import type { Order } from "./orders.js";
import { testProduct } from "./test-products.testkit.js";

const a = testProduct({ id: "a", name: "Alpha", stock: 0 });
const b = testProduct({ id: "b", name: "Bravo", stock: 5 });
const c = testProduct({ id: "c", name: "Charlie", stock: 6 });
const d = testProduct({ id: "d", name: "Delta", stock: 2 });

function order(id: string, createdAt: string, lines: [string, number, number][]): Order {
  const orderLines = lines.map(([productId, quantity, unitPriceCents]) => ({
    productId,
    name: productId.toUpperCase(),
    quantity,
    unitPriceCents,
    lineTotalCents: quantity * unitPriceCents,
  }));
  return {
    id,
    sessionId: "s",
    callId: id,
    lines: orderLines,
    totalCents: orderLines.reduce((s, l) => s + l.lineTotalCents, 0),
    itemCount: orderLines.reduce((s, l) => s + l.quantity, 0),
    createdAt,
  };
}

describe("merchant rules", () => {
  it("reports products at or below the threshold, emptiest first", () => {
    expect(lowStockReport([a, b, c, d]).map((p) => p.id)).toEqual(["a", "d", "b"]);
    expect(lowStockReport([a, b, c, d], 0).map((p) => p.id)).toEqual(["a"]);
  });

  it("validates restocks", () => {
    expect(restockProduct(b, 10)).toEqual({ ok: true, product: { ...b, stock: 15 } });
    expect(restockProduct(b, MAX_RESTOCK_QUANTITY).ok).toBe(true);
    for (const quantity of [0, -3, 2.5, MAX_RESTOCK_QUANTITY + 1]) {
      expect(restockProduct(b, quantity)).toMatchObject({ ok: false, code: "invalid_quantity" });
    }
    expect(restockProduct(undefined, 1)).toMatchObject({ code: "unknown_product" });
  });

  it("validates prices in whole cents", () => {
    expect(changePrice(b, 1_999)).toEqual({ ok: true, product: { ...b, priceCents: 1_999 } });
    for (const price of [0, -100, 19.99, 10_000_001]) {
      expect(changePrice(b, price)).toMatchObject({ ok: false, code: "invalid_price" });
    }
    expect(changePrice(undefined, 100)).toMatchObject({ code: "unknown_product" });
  });

  it("summarises sales with best sellers by revenue", () => {
    const summary = summarizeSales(
      [
        order("o1", "2024-01-02T00:00:00.000Z", [
          ["a", 2, 1_000],
          ["b", 1, 5_000],
        ]),
        order("o2", "2024-01-01T00:00:00.000Z", [["a", 1, 1_000]]),
        order("o3", "2024-01-03T00:00:00.000Z", [["c", 10, 100]]),
      ],
      2,
    );
    expect(summary).toEqual({
      orderCount: 3,
      itemCount: 14,
      revenueCents: 9_000,
      averageOrderCents: 3_000,
      topProducts: [
        { productId: "b", name: "B", quantity: 1, revenueCents: 5_000 },
        { productId: "a", name: "A", quantity: 3, revenueCents: 3_000 },
      ],
      firstOrderAt: "2024-01-01T00:00:00.000Z",
      lastOrderAt: "2024-01-03T00:00:00.000Z",
    });
    expect(summarizeSales([])).toMatchObject({
      orderCount: 0,
      averageOrderCents: 0,
      topProducts: [],
    });
  });

  it("keeps a product's discount when its price changes: the new price is the list price", () => {
    const onSale = withDiscount(testProduct({ id: "j", priceCents: 10_000 }), 10);
    expect(changePrice(onSale, 8_000)).toMatchObject({
      ok: true,
      product: { priceCents: 7_200, listPriceCents: 8_000, discountPercent: 10 },
    });
  });

  it("edits a name, a description and a price, and says exactly what changed", () => {
    const result = editProduct(b, {
      name: "  Bravo   Trail  Runner ",
      description: "Light.\nGrippy.",
      priceCents: 4_200,
    });
    expect(result).toMatchObject({
      ok: true,
      before: b,
      product: {
        ...b,
        name: "Bravo Trail Runner",
        description: "Light. Grippy.",
        priceCents: 4_200,
      },
      changed: ["name", "description", "price"],
    });
    // A field given with its current value is not a change.
    expect(editProduct(b, { name: b.name, priceCents: 2_500 })).toMatchObject({
      ok: true,
      changed: ["price"],
    });
    const onSale = withDiscount(b, 20);
    expect(editProduct(onSale, { priceCents: 5_000 })).toMatchObject({
      ok: true,
      product: { priceCents: 4_000, listPriceCents: 5_000, discountPercent: 20 },
    });
  });

  it("refuses an edit that is empty, too long, taken, badly priced or changes nothing", () => {
    const refused: [Parameters<typeof editProduct>[1], string][] = [
      [{ name: "   " }, "invalid_edit"],
      [{ name: "x".repeat(MAX_NAME_LENGTH + 1) }, "invalid_edit"],
      [{ name: "Bad\u0007name" }, "invalid_edit"],
      [{ description: "" }, "invalid_edit"],
      [{ priceCents: 0 }, "invalid_price"],
      [{ priceCents: 12.5 }, "invalid_price"],
      [{}, "invalid_edit"],
      [{ name: b.name, description: b.description }, "invalid_edit"],
      [{ name: "charlie" }, "name_taken"],
    ];
    for (const [edit, code] of refused) {
      expect(editProduct(b, edit, [a.name, b.name, c.name])).toMatchObject({ ok: false, code });
    }
    expect(editProduct(b, { name: "x".repeat(MAX_NAME_LENGTH) }).ok).toBe(true);
    // Its own name in another case is a rename, not a clash.
    expect(editProduct(b, { name: "BRAVO" }, [b.name])).toMatchObject({ ok: true });
    expect(editProduct(undefined, { name: "Z" })).toMatchObject({ code: "unknown_product" });
  });

  it("plans a bulk restock by units or up to a level, refusing it whole when a part is wrong", () => {
    const byId = new Map([a, b, c, d].map((p) => [p.id, p]));
    expect(planRestock(["a", "d", "a"], byId, { quantity: 10 })).toEqual({
      ok: true,
      rows: [
        { productId: "a", name: "Alpha", before: 0, after: 10 },
        { productId: "d", name: "Delta", before: 2, after: 12 },
      ],
      items: [
        { productId: "a", quantity: 10 },
        { productId: "d", quantity: 10 },
      ],
    });
    const upTo = planRestock(["a", "b", "c"], byId, { upTo: 6 });
    expect(upTo).toMatchObject({
      ok: true,
      rows: [
        { productId: "a", before: 0, after: 6 },
        { productId: "b", before: 5, after: 6 },
        { productId: "c", before: 6, after: 6 },
      ],
      items: [
        { productId: "a", quantity: 6 },
        { productId: "b", quantity: 1 },
      ],
    });
    expect(planRestock(["a", "zz"], byId, { quantity: 1 })).toMatchObject({
      code: "unknown_product",
    });
    for (const request of [
      { quantity: 0 },
      { upTo: MAX_RESTOCK_QUANTITY + 1 },
      { quantity: 1.5 },
    ]) {
      expect(planRestock(["a"], byId, request)).toMatchObject({ code: "invalid_quantity" });
    }
    expect(planRestock([], byId, { quantity: 1 })).toMatchObject({ code: "invalid_quantity" });
    const many = Array.from({ length: MAX_PRODUCTS_PER_CHANGE + 1 }, (_, i) => `p${i}`);
    expect(planRestock(many, byId, { quantity: 1 })).toMatchObject({ code: "too_many_products" });
  });
});
