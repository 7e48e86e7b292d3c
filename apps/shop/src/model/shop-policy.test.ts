import type { SimRequest } from "overlap-sim";
import { describe, expect, it } from "vitest";
import { shopPolicy } from "./shop-policy.js";

const shopperTools = ["search_products", "add_to_cart", "cart_total", "show_products"].map(
  (name) => ({
    name,
    description: name,
    input_schema: { type: "object" },
  }),
);

function request(messages: SimRequest["messages"]): SimRequest {
  return {
    api: "anthropic",
    model: "scripted-shop",
    messages,
    tools: shopperTools,
    stream: true,
    headers: {},
  };
}

describe("shopPolicy", () => {
  it("answers the new request after a stopped turn, not the interrupted tools", async () => {
    const script = await shopPolicy(
      request([
        { role: "user", content: [{ type: "text", text: "add the wool socks" }] },
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "t1", name: "add_to_cart", input: { productId: "p-0002" } },
          ],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "t1",
              content: "add_to_cart was interrupted",
              is_error: true,
            },
            { type: "text", text: "show me running shoes under 100" },
          ],
        },
      ]),
    );
    const calls = script.blocks
      .filter((b) => b.type === "tool_use")
      .map((b) => (b.type === "tool_use" ? b.name : ""));
    expect(calls).toEqual(["search_products"]);
  });

  it("searches in English for a Chinese request", async () => {
    const script = await shopPolicy(
      request([{ role: "user", content: [{ type: "text", text: "推荐一些跑鞋 100元以下" }] }]),
    );
    const search = script.blocks.find((b) => b.type === "tool_use");
    expect(search).toMatchObject({
      name: "search_products",
      input: { query: "running shoes", maxPrice: 100 },
    });
  });

  it.each(["Don't check out yet, how much is it?", "should I buy it now or wait?", "remove it"])(
    "runs no side-effecting tool on %s",
    async (text) => {
      const script = await shopPolicy(
        request([{ role: "user", content: [{ type: "text", text }] }]),
      );
      const calls = script.blocks.flatMap((b) => (b.type === "tool_use" ? [b.name] : []));
      expect(calls).not.toContain("checkout");
      expect(calls).not.toContain("remove_from_cart");
    },
  );
});

describe("shopPolicy on any text", () => {
  const merchantTools = ["low_stock_report", "restock", "set_price", "show_inventory"].map(
    (name) => ({ name, description: name, input_schema: { type: "object" } }),
  );

  it("always answers with a script: text, or tool calls of offered tools", async () => {
    const { default: fc } = await import("fast-check");
    const texts = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ unit: "grapheme", maxLength: 40 }),
      fc
        .array(
          fc.constantFrom(
            "add",
            "remove",
            "the",
            "socks",
            "aero",
            "trail",
            "runner",
            "make",
            "it",
            "3",
            "size",
            "10",
            "under",
            "100",
            "between",
            "and",
            "compare",
            "check out",
            "empty",
            "cart",
            "加入",
            "购物车",
            "袜子",
            "改成",
            "两双",
            "结账",
            "库存",
            "restock",
            "price",
            "by",
            "10%",
            "?",
            "(",
            "[",
            "*",
            "$",
          ),
          { maxLength: 10 },
        )
        .map((words) => words.join(" ")),
    );
    await fc.assert(
      fc.asyncProperty(texts, fc.boolean(), async (text, merchant) => {
        const script = await shopPolicy({
          ...request([{ role: "user", content: [{ type: "text", text }] }]),
          tools: merchant ? merchantTools : shopperTools,
        });
        expect(script.blocks.length).toBeGreaterThan(0);
        for (const block of script.blocks) {
          if (block.type === "text") expect(block.text.trim()).not.toBe("");
          if (block.type === "tool_use" && typeof block.input === "object")
            expect(block.input).not.toHaveProperty("productId", undefined);
        }
      }),
      { numRuns: 300 },
    );
  });
});
