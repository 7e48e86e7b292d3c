import { describe, expect, it } from "vitest";
import type { ConversationState } from "../conversation-state.js";
import { readShopperIntent } from "../shopper-intent.js";
import { readRequest, STEPS } from "./read-request.js";

function state(userText: string, more: Partial<ConversationState> = {}): ConversationState {
  return {
    userText,
    earlierTexts: [],
    lastReply: "",
    zh: /\p{Script=Han}/u.test(userText),
    rounds: [],
    shown: [],
    seen: [],
    prices: new Map(),
    orders: [],
    searches: [],
    names: new Map(),
    ...more,
  };
}
const read = (s: ConversationState) => readRequest(s, readShopperIntent(s.userText));
const SHOWN = ["p-0009", "p-0202", "p-0072"];

describe("the reading policy", () => {
  it("tries its steps in this order", () => {
    // Each later step would misread what an earlier one takes (see the cases below).
    expect(STEPS.map(([name]) => name)).toEqual([
      "a question for the merchant",
      "quantity the cart cannot take",
      "empty the cart",
      "size corrected",
      "a preference said",
      "positions of the list shown",
      "the cheapest or best-rated of a kind",
      "another product with its variant",
    ]);
  });

  it("a merchant question's number is not a quantity to refuse (merchant before quantity)", () => {
    const r = read(state("is there a discount if I buy 20 polar beanies?"));
    expect(r).toMatchObject({ intent: { kind: "ask-merchant" } });
  });

  it("a quantity the cart cannot take is asked about before any add", () => {
    for (const t of ["add -3 of the wool socks in size M", "add the first 2.5", "make it -1"])
      expect(read(state(t, { shown: SHOWN })), t).toHaveProperty("reply");
    expect(read(state("add 3 of the wool socks in size M"))).toHaveProperty("intent");
  });

  it("positions of the list: added with their variants, or compared side by side", () => {
    const s = state("add the first two in size 10, any colour, and tell me the total", {
      shown: SHOWN,
    });
    expect(read(s)).toEqual({
      intent: {
        kind: "add",
        total: true,
        items: [
          { query: "", id: "p-0009", quantity: 1, size: "10", color: "White" },
          { query: "", id: "p-0202", quantity: 1, size: "10", color: "Black" },
        ],
      },
    });
    expect(read(state("put the first two side by side", { shown: SHOWN }))).toEqual({
      intent: { kind: "compare", count: 2 },
    });
  });

  it("a superlative with a kind of product searches for the one product", () => {
    expect(read(state("which sleeping pad has the best reviews"))).toMatchObject({
      intent: { kind: "search", best: "best-rated", category: "Camping" },
    });
    // Without a kind, after a list: the older reading picks among the products shown.
    expect(read(state("which one is top rated", { shown: SHOWN }))).toMatchObject({
      intent: { kind: "which-shown" },
    });
  });

  it("carries a size, a budget and a category said earlier", () => {
    const size = read(
      state("add the pacer daily trainer in black", { earlierTexts: ["I'm a size 10"] }),
    );
    expect(size).toMatchObject({ intent: { items: [{ size: "10", color: "Black" }] } });
    // A size a product does not come in is not carried to it.
    const socks = read(
      state("add the merino wool socks in charcoal", { earlierTexts: ["I'm a size 10"] }),
    );
    expect(socks).toMatchObject({ intent: { items: [{ color: "Charcoal" }] } });
    expect(JSON.stringify(socks)).not.toContain('"size"');
    expect(
      read(state("show me running shoes", { earlierTexts: ["my budget is $80"] })),
    ).toMatchObject({ intent: { kind: "search", maxPriceCents: 8000 } });
    expect(
      read(state("anything under 150?", { earlierTexts: ["show me hiking boots"] })),
    ).toMatchObject({
      intent: { kind: "search", category: "Hiking Boots", maxPriceCents: 15000 },
    });
  });

  it("reads the issue's dialogue requests", () => {
    expect(read(state("nuke the whole cart"))).toEqual({ intent: { kind: "clear-cart" } });
    expect(read(state("I meant a 10, not a 9"))).toMatchObject({
      intent: { kind: "set-variant", size: "10" },
    });
    expect(read(state("and 2 pairs of merino socks too, size M in charcoal"))).toMatchObject({
      intent: { kind: "add", items: [{ quantity: 2, size: "M", color: "Charcoal" }] },
    });
  });
});
