import { toolCallOf } from "overlap-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../db/open-store.js";
import type { ShopStore } from "../db/shop-store.js";
import { createShopAgents, type ShopAgents } from "./shop-agents.js";

let store: ShopStore;
let agents: ShopAgents;

beforeAll(async () => {
  store = await openStore({ sqliteFile: ":memory:" });
  // The tools only: no model call is made here.
  agents = createShopAgents({
    store,
    model: {
      stream: () => {
        throw new Error("unused");
      },
    },
  });
});
afterAll(() => store.close());

async function call(sessionId: string, name: string, input: Record<string, unknown>, id: string) {
  const record = toolCallOf({ type: "tool_use", id, name, input });
  return agents.shopper.executor(sessionId).execute(record);
}

describe("a broken rule reaches the page as a code and its facts, beside the model's sentence", () => {
  it("a sized product without its size, a size it does not come in, a line too big, an unknown id", async () => {
    const { id: sessionId } = await store.createSession("shopper");
    const runner = await store.getProduct("p-0001");
    if (!runner) throw new Error("the demo catalog starts with p-0001");

    const noSize = await call(sessionId, "add_to_cart", { productId: "p-0001" }, "c1");
    expect(noSize).toMatchObject({ isError: true, problem: { code: "variant_required" } });
    expect(noSize.problem?.params?.choices).toEqual([
      expect.objectContaining({ productId: "p-0001", name: runner.name, sizes: runner.sizes }),
    ]);

    const badSize = await call(sessionId, "add_to_cart", { productId: "p-0001", size: "99" }, "c2");
    expect(badSize.problem).toEqual({
      code: "invalid_variant",
      params: { productId: "p-0001", name: runner.name, size: "99", sizes: runner.sizes },
    });

    const size = runner.sizes[0];
    const color = runner.colors[0];
    const ok = await call(
      sessionId,
      "add_to_cart",
      { productId: "p-0001", size, color, quantity: 9 },
      "c3",
    );
    expect(ok).toMatchObject({ status: "ok", isError: false });
    expect(ok.problem).toBeUndefined();
    const tooMany = await call(
      sessionId,
      "add_to_cart",
      { productId: "p-0001", size, color, quantity: 2 },
      "c4",
    );
    expect(tooMany.problem).toMatchObject({
      code: "quantity_out_of_range",
      params: { name: runner.name, quantity: 2, wouldHold: 11, max: 10 },
    });

    const unknown = await call(sessionId, "get_product", { productId: "p-9999" }, "c5");
    expect(unknown.problem).toEqual({
      code: "unknown_product",
      params: { productId: "p-9999", productIds: ["p-9999"] },
    });

    // The model still reads the rule's own sentence.
    expect(tooMany.resultText).toMatch(/at most 10/);
  });
});
