import type { SimRequest } from "overlap-sim";
import { describe, expect, it } from "vitest";
import { shopPolicy } from "./shop-policy.js";
import { readShopperIntent } from "./shopper-intent.js";
import { readWebLookup } from "./web-lookup.js";

const shopperTools = ["search_products", "get_product", "add_to_cart", "show_products"].map(
  (name) => ({ name, description: name, input_schema: { type: "object" } }),
);

function request(
  messages: SimRequest["messages"],
  providerTools: SimRequest["providerTools"],
): SimRequest {
  return {
    api: "anthropic",
    model: "scripted-shop",
    messages,
    tools: shopperTools,
    providerTools,
    stream: true,
    headers: {},
  };
}

const asked = (text: string): SimRequest["messages"] => [
  { role: "user", content: [{ type: "text", text }] },
];

describe("what the web says about a product", () => {
  it("reads the question in English and Chinese, naming the product or pointing at it", () => {
    expect(readShopperIntent("What do reviews say about the Aero Trail Runner?")).toEqual({
      kind: "web-lookup",
      query: expect.stringMatching(/aero trail runner/),
    });
    expect(readShopperIntent("what are people saying online about the aero trail runner")).toEqual(
      expect.objectContaining({ kind: "web-lookup" }),
    );
    expect(readShopperIntent("网上对这双鞋评价怎么样？")).toEqual({
      kind: "web-lookup",
      query: "",
      ref: { kind: "it" },
    });
  });

  it("leaves other requests alone", () => {
    for (const text of [
      "show me trail runners",
      "which one is top rated",
      "is it waterproof?",
      "tell me more about the Aero Trail Runner",
      "add the aero trail runner in size US 10, slate",
      "评分最高的是哪个",
    ]) {
      expect(readWebLookup(text.toLowerCase()), text).toBeUndefined();
      expect(readShopperIntent(text).kind, text).not.toBe("web-lookup");
    }
  });

  it("searches with the provider's web search when it is offered, and answers citing two of the six pages", async () => {
    const script = await shopPolicy(
      request(asked("What do reviews say about the Aero Trail Runner?"), ["web_search"]),
    );
    expect(script.blocks.map((b) => b.type)).toEqual([
      "server_tool_use",
      "web_search_tool_result",
      "text",
    ]);
    const [search, results, answer] = script.blocks;
    expect(search).toMatchObject({
      name: "web_search",
      input: { query: "Aero Trail Runner reviews" },
    });
    const pages = results?.type === "web_search_tool_result" ? results.results : [];
    expect(pages).toHaveLength(6);
    // The script's own pages, on reserved names: no real site is cited.
    for (const page of pages) expect(new URL(page.url).hostname).toMatch(/\.example$/);
    expect(answer?.type === "text" && answer.citations?.map((c) => c.url)).toEqual([
      pages[0]?.url,
      pages[2]?.url,
    ]);
    // The one fact is the catalog's, and the answer says the pages are scripted.
    expect(answer?.type === "text" && answer.text).toMatch(/4\.6 out of 5.*not the real web/);
  });

  it("in Chinese, about the product in view, and in Chinese words", async () => {
    const script = await shopPolicy(
      request(
        [
          ...asked("tell me about the Aero Trail Runner"),
          {
            role: "assistant",
            content: [
              { type: "tool_use", id: "t1", name: "get_product", input: { productId: "p-0001" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "t1", content: '{"id":"p-0001"}' },
              { type: "text", text: "网上对这双鞋评价怎么样？" },
            ],
          },
        ],
        ["web_search"],
      ),
    );
    const answer = script.blocks.at(-1);
    expect(script.blocks[0]).toMatchObject({ input: { query: "Aero Trail Runner 评价" } });
    expect(answer?.type === "text" && answer.text).toMatch(/^评测者给 Aero Trail Runner/);
    expect(answer?.type === "text" && answer.citations).toHaveLength(2);
  });

  it("without the search offered, says it cannot search the web and calls nothing", async () => {
    const script = await shopPolicy(
      request(asked("What do reviews say about the Aero Trail Runner?"), []),
    );
    expect(script.blocks).toEqual([
      { type: "text", text: expect.stringMatching(/^I can't search the web from here/) },
    ]);
  });
});
