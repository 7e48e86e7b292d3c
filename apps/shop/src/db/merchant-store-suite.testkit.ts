/**
 * The merchant's changes every {@link ShopStore} must make the same way: product edits, bulk
 * restocks and category discounts, and the discount reaching every price a shopper sees and pays.
 * SQLite and PostgreSQL register it with the harness of the main store suite.
 */

import { EffectChangedError, type ToolOutcome } from "overlap-runtime";
import { beforeEach, describe, expect, it } from "vitest";
import { cartTotal } from "../domain/cart.js";
import type { Product } from "../domain/catalog.js";
import { discountEffect, discountedCents, planDiscount } from "../domain/discounts.js";
import { planRestock, restockEffect } from "../domain/merchant.js";
import { addInFirstVariant } from "../domain/test-products.testkit.js";
import type { ShopStore } from "./shop-store.js";
import type { StoreHarness, StoreHarnessFactory } from "./store-suite.testkit.js";

const outcome = (callId: string, text: string): ToolOutcome => ({
  callId,
  name: "merchant",
  status: "ok",
  resultText: text,
  events: [],
  isError: false,
});

/** Registers the merchant change tests under `name`. */
export function registerMerchantStoreSuite(name: string, createHarness: StoreHarnessFactory): void {
  describe(name, () => {
    let harness: StoreHarness;
    let store: ShopStore;
    let jackets: Product[];
    let others: Product[];

    beforeEach(async () => {
      harness = await createHarness();
      store = harness.store;
      const all = await store.listProducts();
      jackets = all.filter((p) => p.category === "Jackets");
      others = all.filter((p) => p.category !== "Jackets");
      expect(jackets.length).toBeGreaterThan(1);
      return () => harness.dispose();
    });

    /** Adds as the cart tools do: the product as the cart's transaction reads it. */
    const add = (chat: string, product: Product, quantity = 1) =>
      store.withCart(chat, async (cart, tx) =>
        addInFirstVariant(cart, await tx.getProduct(product.id), quantity, tx.rules),
      );

    it("puts a category discount on every price a shopper sees and pays, and ends it", async () => {
      const jacket = jackets.find((p) => p.stock >= 3)!;
      // A line captured before the discount keeps its price until checkout.
      const chat = (await store.createSession("shopper")).id;
      await add(chat, jacket, 1);

      const plan = await store.setDiscount("jackets", 10);
      expect(plan).toMatchObject({ ok: true, category: "Jackets", percent: 10 });
      if (!plan.ok) return;
      expect(plan.rows).toHaveLength(jackets.length);
      for (const row of plan.rows) {
        const before = jackets.find((p) => p.id === row.productId)!;
        expect(row).toMatchObject({
          beforeCents: before.priceCents,
          afterCents: discountedCents(before.priceCents, 10),
        });
      }

      const sale = discountedCents(jacket.priceCents, 10);
      const expected = {
        priceCents: sale,
        listPriceCents: jacket.priceCents,
        discountPercent: 10,
      };
      expect(await store.getProduct(jacket.id)).toMatchObject(expected);
      // Another process sharing the database sees it on its first read.
      expect(await (await harness.openPeer()).getProduct(jacket.id)).toMatchObject(expected);
      const listed = await store.listProducts();
      expect(listed.filter((p) => p.discountPercent === 10).map((p) => p.id)).toEqual(
        jackets.map((p) => p.id),
      );
      for (const other of others) {
        expect(listed.find((p) => p.id === other.id)).toEqual(other);
      }
      const found = await store.searchProducts({ text: jacket.name, limit: 3 });
      expect(found.find((p) => p.id === jacket.id)).toMatchObject(expected);
      const cheapJackets = await store.searchProducts({
        category: "jackets",
        maxPriceCents: sale,
        limit: 50,
      });
      expect(cheapJackets.map((p) => p.id)).toContain(jacket.id);

      // A new line captures the sale price; checkout charges it on both lines.
      const other = (await store.createSession("shopper")).id;
      await add(other, jacket, 2);
      expect((await store.getCart(other)).lines[0]?.unitPriceCents).toBe(sale);
      const bought = await store.checkout(other, "call_1");
      expect(bought).toMatchObject({ ok: true, order: { totalCents: 2 * sale } });
      const early = await store.checkout(chat, "call_1");
      expect(early).toMatchObject({
        ok: true,
        order: { totalCents: sale, lines: [{ unitPriceCents: sale }] },
        priceChanges: [{ cartUnitPriceCents: jacket.priceCents, unitPriceCents: sale }],
      });
      expect((await store.salesSummary()).revenueCents).toBe(3 * sale);

      // A new list price keeps the discount; a second discount replaces the first.
      await store.setPrice(jacket.id, 10_000);
      expect(await store.getProduct(jacket.id)).toMatchObject({
        priceCents: 9_000,
        listPriceCents: 10_000,
      });
      await store.setDiscount("Jackets", 25);
      expect((await store.getProduct(jacket.id))?.priceCents).toBe(7_500);

      const ended = await store.setDiscount("Jackets", undefined);
      expect(ended).toMatchObject({ ok: true, percent: undefined });
      const back = await store.getProduct(jacket.id);
      expect(back?.priceCents).toBe(10_000);
      expect(back && "discountPercent" in back).toBe(false);
      expect((await store.listProducts()).some((p) => p.discountPercent !== undefined)).toBe(false);
    });

    it("refuses a discount out of range or for no category, and records a refusal", async () => {
      const before = await store.listProducts();
      expect(await store.setDiscount("Jackets", 95)).toMatchObject({ code: "invalid_discount" });
      expect(await store.setDiscount("hats", 10)).toMatchObject({ code: "unknown_category" });
      expect(await store.setDiscount("Jackets", undefined)).toMatchObject({
        code: "invalid_discount",
      });
      const refused = await store.setDiscount("Jackets", 0, {
        record: (result) => ({
          sessionId: "m",
          outcome: outcome("call_d", result.ok ? "done" : result.message),
        }),
      });
      expect(refused.ok).toBe(false);
      expect((await store.ledger("m").lookup("call_d"))?.resultText).toMatch(/whole percentage/);
      expect(await store.listProducts()).toEqual(before);
      // A record that fails rolls the discount back.
      await expect(
        store.setDiscount("Jackets", 10, {
          record: () => {
            throw new Error("crash");
          },
        }),
      ).rejects.toThrow(/crash/);
      expect(await store.listProducts()).toEqual(before);
    });

    it("edits a product's name, description and price; orders keep the name they were placed under", async () => {
      const [jacket, second] = jackets as [Product, Product];
      const chat = (await store.createSession("shopper")).id;
      await add(chat, jacket, 1);
      const placed = await store.checkout(chat, "call_1");
      expect(placed.ok).toBe(true);

      const edited = await store.editProduct(
        jacket.id,
        { name: "Harbour Storm Shell", description: "Sealed seams.", priceCents: 12_345 },
        { record: () => ({ sessionId: "m", outcome: outcome("call_e", "edited") }) },
      );
      expect(edited).toMatchObject({
        ok: true,
        before: { name: jacket.name },
        product: { name: "Harbour Storm Shell", description: "Sealed seams.", priceCents: 12_345 },
        changed: ["name", "description", "price"],
      });
      expect((await store.ledger("m").lookup("call_e"))?.resultText).toBe("edited");
      const read = await (await harness.openPeer()).getProduct(jacket.id);
      expect(read).toMatchObject({ name: "Harbour Storm Shell", priceCents: 12_345 });
      const found = await store.searchProducts({ text: "harbour storm", limit: 1 });
      expect(found[0]?.id).toBe(jacket.id);
      const [order] = await store.listOrders({ sessionId: chat });
      expect(order?.lines[0]?.name).toBe(jacket.name);

      // Renaming onto another product's name is refused, and nothing changes.
      expect(await store.editProduct(jacket.id, { name: second.name.toUpperCase() })).toMatchObject(
        {
          code: "name_taken",
        },
      );
      expect(await store.editProduct("p-9999", { name: "x" })).toMatchObject({
        code: "unknown_product",
      });
      expect(await store.getProduct(jacket.id)).toEqual(read);
    });

    it("restocks several products at once, by units or up to a level, or not at all", async () => {
      const low = (await store.lowStock(5)).slice(0, 3);
      expect(low.length).toBe(3);
      const ids = low.map((p) => p.id);
      const byUnits = await store.restockProducts(ids, { quantity: 7 });
      expect(byUnits).toMatchObject({ ok: true });
      expect(byUnits.ok && byUnits.rows).toEqual(
        low.map((p) => ({ productId: p.id, name: p.name, before: p.stock, after: p.stock + 7 })),
      );
      for (const p of low) expect((await store.getProduct(p.id))?.stock).toBe(p.stock + 7);

      const full = low[0]!;
      await store.restock(full.id, 100);
      const upTo = await store.restockProducts(ids, { upTo: 20 });
      expect(upTo.ok && upTo.rows.map((r) => r.after)).toEqual([full.stock + 107, 20, 20]);
      expect(upTo.ok && upTo.items.map((i) => i.productId)).toEqual(ids.slice(1));
      const stocks = async () =>
        Promise.all(ids.map(async (id) => (await store.getProduct(id))?.stock));
      const now = await stocks();
      expect(await store.restockProducts([...ids, "p-9999"], { quantity: 5 })).toMatchObject({
        code: "unknown_product",
      });
      expect(await store.restockProducts(ids, { quantity: 0 })).toMatchObject({
        code: "invalid_quantity",
      });
      expect(await stocks()).toEqual(now);
    });

    it("changes only what the merchant approved: a table that changed since does nothing", async () => {
      const low = (await store.lowStock(5)).slice(0, 3);
      const ids = low.map((p) => p.id);
      const table = async (request: { upTo: number } | { quantity: number }) => {
        const products = new Map(low.map((p) => [p.id, p]));
        for (const id of ids) {
          const now = await store.getProduct(id);
          if (now) products.set(id, now);
        }
        const plan = planRestock(ids, products, request);
        if (!plan.ok) throw new Error(plan.message);
        return restockEffect(plan, request);
      };
      // Fill up to 20: approved while all three were low; one is restocked past 20 meanwhile.
      const approved = await table({ upTo: 20 });
      await store.restock(ids[0]!, 50);
      const before = await Promise.all(ids.map((id) => store.getProduct(id)));
      await expect(
        store.restockProducts(ids, { upTo: 20 }, { approved: { effect: approved } }),
      ).rejects.toBeInstanceOf(EffectChangedError);
      expect(await Promise.all(ids.map((id) => store.getProduct(id)))).toEqual(before);
      // A checkout taking a unit does not change "7 units each": it goes through.
      const units = await table({ quantity: 7 });
      await add("bind", low[1]!, 1);
      expect(
        await store.restockProducts(ids, { quantity: 7 }, { approved: { effect: units } }),
      ).toMatchObject({ ok: true });

      // 10% off jackets approved; a jacket's list price edited meanwhile: nothing changes.
      const plan = planDiscount(await store.listProducts(), "Jackets", 10);
      if (!plan.ok) throw new Error(plan.message);
      const jacket = jackets[0]!;
      await store.setPrice(jacket.id, jacket.priceCents + 1_000);
      await expect(
        store.setDiscount("Jackets", 10, { approved: { effect: discountEffect(plan) } }),
      ).rejects.toBeInstanceOf(EffectChangedError);
      expect((await store.getProduct(jacket.id))?.discountPercent).toBeUndefined();
      const again = planDiscount(await store.listProducts(), "Jackets", 10);
      if (!again.ok) throw new Error(again.message);
      expect(
        await store.setDiscount("Jackets", 10, { approved: { effect: discountEffect(again) } }),
      ).toMatchObject({ ok: true, percent: 10 });
    });

    it("holds the cart limit at the sale price: a line over it at list price fits on sale", async () => {
      const { maxTotalCents, maxQuantityPerLine: most } = store.cartRules;
      const dear = (await store.listProducts()).find(
        (p) =>
          p.stock >= most &&
          most * p.priceCents > maxTotalCents &&
          most * discountedCents(p.priceCents, 50) <= maxTotalCents,
      );
      expect(dear).toBeDefined();
      if (!dear) return;
      expect(await add("s", dear, most)).toMatchObject({ ok: false, code: "over_limit" });
      await store.setDiscount(dear.category, 50);
      expect(await add("s", dear, most)).toMatchObject({ ok: true });
      expect(cartTotal(await store.getCart("s"))).toBe(most * discountedCents(dear.priceCents, 50));
    });
  });
}
