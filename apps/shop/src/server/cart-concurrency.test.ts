import { toolCallOf } from "overlap-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cartTotal } from "../domain/cart.js";
import type { Product } from "../domain/catalog.js";
import { createTestShop, type TestShop } from "./test-shop.testkit.js";

let t: TestShop;
beforeAll(async () => {
  t = await createTestShop();
});
afterAll(() => t.close());

describe("cart changes from tools and REST at once, under the cart lock", () => {
  it("30 concurrent add_to_cart outcomes on one session never break the rules", async () => {
    const { id, token } = await t.session();
    const rules = t.store.cartRules;
    // Pricey products with enough stock: 30 adds would reach several times the total limit.
    const products: Product[] = (await t.store.listProducts())
      .filter((p) => p.stock >= 8 && p.priceCents >= 10_000)
      .slice(0, 6);
    expect(products).toHaveLength(6);
    // Each in its first size and colour (sized products need them).
    const firstVariant = ({ productId }: { productId: string }) => {
      const product = products.find((p) => p.id === productId)!;
      return { size: product.sizes[0], color: product.colors[0] };
    };
    const executor = t.agents.shopper.executor(id);

    type Attempt = { productId: string; quantity: number; via: "tool" | "rest" };
    const attempts: Attempt[] = Array.from({ length: 30 }, (_, i) => ({
      productId: products[i % products.length]!.id,
      quantity: 1 + (i % 4),
      via: i % 2 === 0 ? "tool" : "rest",
    }));
    const outcomes = await Promise.all(
      attempts.map(async (a, i) => {
        if (a.via === "tool") {
          const outcome = await executor.execute(
            toolCallOf({
              type: "tool_use",
              id: `toolu_concurrent_${i}`,
              name: "add_to_cart",
              input: { productId: a.productId, quantity: a.quantity, ...firstVariant(a) },
            }),
          );
          return { ok: !outcome.isError, text: outcome.resultText };
        }
        const response = await t.call("POST", `/api/sessions/${id}/cart/items`, {
          token,
          json: { productId: a.productId, quantity: a.quantity, ...firstVariant(a) },
        });
        const body = (await response.json()) as { error?: { code: string; message: string } };
        if (response.status !== 200) expect(response.status).toBe(409);
        return { ok: response.status === 200, text: body.error?.message ?? "" };
      }),
    );

    const cart = await t.store.getCart(id);
    // The rules hold: the total within the limit, each line within 1..max and the stock.
    expect(cartTotal(cart)).toBeLessThanOrEqual(rules.maxTotalCents);
    for (const line of cart.lines) {
      const product = products.find((p) => p.id === line.productId)!;
      expect(line.quantity).toBeGreaterThanOrEqual(1);
      expect(line.quantity).toBeLessThanOrEqual(Math.min(rules.maxQuantityPerLine, product.stock));
    }
    // No lost update: every accepted add is in the cart exactly once, nothing else is.
    for (const product of products) {
      const accepted = attempts
        .filter((a, i) => a.productId === product.id && outcomes[i]!.ok)
        .reduce((sum, a) => sum + a.quantity, 0);
      const line = cart.lines.find((l) => l.productId === product.id);
      expect(line?.quantity ?? 0, product.name).toBe(accepted);
    }
    // The limit was really contended, from both sides, and refused with the rule's sentence.
    expect(outcomes.some((o) => o.ok)).toBe(true);
    const refused = outcomes.filter((o) => !o.ok);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.some((o) => /limit|at most/.test(o.text))).toBe(true);
    expect(new Set(attempts.filter((_, i) => outcomes[i]!.ok).map((a) => a.via)).size).toBe(2);

    // What the REST cart shows is the same cart.
    const view = (await (await t.call("GET", `/api/sessions/${id}/cart`, { token })).json()) as {
      cart: { totalCents: number };
    };
    expect(view.cart.totalCents).toBe(cartTotal(cart));
  });
});
