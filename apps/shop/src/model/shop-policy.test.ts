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
