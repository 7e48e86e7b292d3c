import { describe, expect, it } from "vitest";
import {
  changePrice,
  lowStockReport,
  MAX_RESTOCK_QUANTITY,
  restockProduct,
  summarizeSales,
} from "./merchant.js";
import type { Order } from "./orders.js";
import { testProduct } from "./test-products.js";

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
});
