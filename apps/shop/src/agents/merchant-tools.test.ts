import { ToolExecutor, toolCallOf } from "overlap-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../db/open-store.js";
import type { ShopStore } from "../db/shop-store.js";
import type { Product } from "../domain/catalog.js";
import { discountedCents } from "../domain/discounts.js";
import { formatCents } from "../domain/money.js";
import { merchantTools } from "./merchant-tools.js";
import type { ChangeTableView } from "./merchant-views.js";
import type { ShopToolContext } from "./tool-context.js";

let store: ShopStore;
let executor: ToolExecutor<ShopToolContext>;
let n = 0;

beforeAll(async () => {
  store = await openStore({ sqliteFile: ":memory:" });
  executor = new ToolExecutor(merchantTools(), { context: { sessionId: "m", store } });
});
afterAll(() => store.close());

function call(name: string, input: Record<string, unknown>) {
  n += 1;
  return toolCallOf({ type: "tool_use", id: `call_${n}`, name, input });
}

const tableOf = (details: Record<string, unknown> | undefined) =>
  (details as { type: string; change: ChangeTableView } | undefined)?.change;

describe("the merchant's changing tools", () => {
  it("asks before a restock of several products, showing one table, and answers with it", async () => {
    const low = (await store.lowStock(5)).slice(0, 3);
    const restock = call("restock_products", { productIds: low.map((p) => p.id), upTo: 20 });
    const need = await executor.approvalOf(restock);
    expect(need?.summary).toBe(
      `Fill 3 products up to 20 units each (${low.reduce((s, p) => s + 20 - p.stock, 0)} units in all).`,
    );
    const asked = tableOf(need?.details);
    expect(need?.details?.type).toBe("product-changes");
    expect(asked).toEqual({
      kind: "restock",
      upTo: 20,
      rows: low.map((p) => ({
        productId: p.id,
        name: p.name,
        before: p.stock,
        after: 20,
        beforeText: String(p.stock),
        afterText: "20",
      })),
    });
    const outcome = await executor.execute(restock);
    expect(outcome.isError).toBe(false);
    expect(outcome.events).toEqual([{ type: "products-changed", change: asked }]);
    for (const p of low) expect((await store.getProduct(p.id))?.stock).toBe(20);
    expect(outcome.resultText).toMatch(/^Restocked 3 products: /);
  });

  it("does not ask for a change to one product, nor for a request it refuses", async () => {
    const [one] = await store.lowStock(5);
    expect(
      await executor.approvalOf(call("restock_products", { productIds: [one!.id], quantity: 4 })),
    ).toBeUndefined();
    const both = call("restock_products", { productIds: [one!.id], quantity: 4, upTo: 9 });
    expect(await executor.approvalOf(both)).toBeUndefined();
    expect(await executor.execute(both)).toMatchObject({ isError: true });
    const unknown = call("restock_products", { productIds: [one!.id, "p-9999"], quantity: 4 });
    expect(await executor.approvalOf(unknown)).toBeUndefined();
    const refused = await executor.execute(unknown);
    expect(refused.resultText).toMatch(/p-9999/);
    // The page words it from the code and facts, in its own language.
    expect(refused.problem).toEqual({ code: "unknown_product", params: { productId: "p-9999" } });
    expect(await executor.approvalOf(call("set_discount", { category: "hats", percent: 10 }))).toBe(
      undefined,
    );
  });

  it("asks before a category discount with the table of new prices, then every read has them", async () => {
    const jackets = (await store.listProducts()).filter((p) => p.category === "Jackets");
    const discount = call("set_discount", { category: "jackets", percent: 10 });
    const need = await executor.approvalOf(discount);
    expect(need?.summary).toBe(`10% off Jackets: ${jackets.length} products at the sale price.`);
    const table = tableOf(need?.details);
    expect(table).toMatchObject({ kind: "discount", category: "Jackets", percent: 10 });
    expect(table?.rows).toHaveLength(jackets.length);
    for (const row of table?.rows ?? []) {
      const p = jackets.find((j) => j.id === row.productId) as Product;
      expect(row.after).toBe(discountedCents(p.priceCents, 10));
    }
    const outcome = await executor.execute(discount);
    expect(outcome.events).toEqual([{ type: "products-changed", change: table }]);
    const shown = await executor.execute(call("show_inventory", { productIds: [jackets[0]!.id] }));
    expect(shown.resultText).toContain(
      `(on sale: 10% off the list price ${formatCents(jackets[0]!.priceCents)})`,
    );
    expect(shown.events[0]).toMatchObject({
      products: [{ discountPercent: 10, listPriceCents: jackets[0]!.priceCents }],
    });
    const listed = await executor.execute(call("list_discounts", {}));
    expect(listed.resultText).toBe(`10% off Jackets (${jackets.length} products)`);

    const end = call("end_discount", { category: "Jackets" });
    expect((await executor.approvalOf(end))?.summary).toMatch(/^End the discount on Jackets/);
    expect((await executor.execute(end)).isError).toBe(false);
    expect((await executor.execute(call("list_discounts", {}))).resultText).toBe(
      "No discount is in force.",
    );
  });

  it("edits one product without asking and says what changed", async () => {
    const product = (await store.getProduct("p-0001")) as Product;
    const edit = call("edit_product", {
      productId: product.id,
      name: "Aero Trail Runner 2",
      price: 95,
    });
    expect(await executor.approvalOf(edit)).toBeUndefined();
    const outcome = await executor.execute(edit);
    expect(outcome.resultText).toBe(
      `Aero Trail Runner 2 (p-0001): renamed from "${product.name}" to "Aero Trail Runner 2", price $89.00 → $95.00.`,
    );
    expect(outcome.events[0]).toMatchObject({
      type: "product-edited",
      edit: {
        before: { name: product.name },
        product: { price: "$95.00" },
        changed: ["name", "price"],
      },
    });
    const cents = await executor.execute(
      call("edit_product", { productId: product.id, price: 1.005 }),
    );
    expect(cents.isError).toBe(false);
    expect((await store.getProduct(product.id))?.priceCents).toBe(101);
    const same = await executor.execute(call("edit_product", { productId: product.id }));
    expect(same).toMatchObject({ isError: true, problem: { code: "invalid_edit" } });
  });

  it("leaves every changing tool out of the read-only set a shopper's delegate gets", () => {
    const names = merchantTools({ readOnly: true }).map((t) => t.name);
    for (const changing of [
      "restock",
      "restock_products",
      "set_price",
      "edit_product",
      "set_discount",
      "end_discount",
    ]) {
      expect(names).not.toContain(changing);
    }
    expect(names).toContain("list_discounts");
  });
});
