import { describe, expect, it } from "vitest";
import { isChinese } from "./intent-words.js";
import { readMerchantIntent } from "./merchant-intent.js";
import { readShopperIntent } from "./shopper-intent.js";

describe("readShopperIntent", () => {
  it.each([
    [
      "add the Aero trail runner and the wool socks to my cart and tell me the total",
      {
        kind: "add",
        items: [
          { query: "aero trail runner", quantity: 1 },
          { query: "wool socks", quantity: 1 },
        ],
        total: true,
      },
    ],
    [
      "Add 2 merino wool socks to my cart",
      { kind: "add", items: [{ query: "merino wool socks", quantity: 2 }], total: false },
    ],
    ["帮我把两件商品加入购物车再算一下总价", { kind: "add-shown", count: 2, total: true }],
    ["add these two to my cart", { kind: "add-shown", count: 2, total: false }],
    [
      "show me running shoes under 100",
      { kind: "search", query: "running shoes", maxPriceCents: 10_000 },
    ],
    ["find a rain jacket over 50", { kind: "search", query: "rain jacket", minPriceCents: 5_000 }],
    ["compare these two", { kind: "compare", count: 2 }],
    ["check out", { kind: "checkout" }],
    ["Don't check out yet, just show me running shoes", { kind: "checkout-question" }],
    ["how does checkout work?", { kind: "checkout-question" }],
    ["先不要结账", { kind: "checkout-question" }],
    [
      "add 1000 wool socks",
      { kind: "add", items: [{ query: "wool socks", quantity: 1000 }], total: false },
    ],
    ["结账", { kind: "checkout" }],
    ["what's in my cart?", { kind: "view-cart" }],
    ["how much is my total?", { kind: "total" }],
    ["remove the socks", { kind: "remove", query: "socks" }],
    [
      "When will the trail runner be back in stock?",
      { kind: "ask-merchant", question: "When will the trail runner be back in stock?" },
    ],
    ["hello", { kind: "greeting" }],
    ["what is the meaning of life", { kind: "unknown" }],
    ["推荐一些跑鞋 100元以下", { kind: "search", query: "running shoes", maxPriceCents: 10_000 }],
  ])("%s", (text, intent) => {
    expect(readShopperIntent(text)).toEqual(intent);
  });
});

describe("readMerchantIntent", () => {
  it.each([
    ["what is low on stock? restock it", { kind: "low-stock", restock: true }],
    ["what is running low?", { kind: "low-stock", restock: false }],
    [
      "restock the aero trail runner with 30",
      { kind: "restock", query: "aero trail runner", quantity: 30 },
    ],
    [
      "set the price of merino wool socks to 12.99",
      { kind: "set-price", query: "merino wool socks", priceCents: 1299 },
    ],
    ["list recent orders", { kind: "orders" }],
    ["sales summary please", { kind: "sales" }],
    ["哪些商品库存不足？补货", { kind: "low-stock", restock: true }],
    ["tell me a joke", { kind: "unknown" }],
    ["don't restock anything", { kind: "inventory" }], // harmless: it only shows stock
  ])("%s", (text, intent) => {
    expect(readMerchantIntent(text)).toEqual(intent);
  });
});

describe("isChinese", () => {
  it("detects mostly-Chinese text", () => {
    expect(isChinese("帮我把两件商品加入购物车")).toBe(true);
    expect(isChinese("add socks")).toBe(false);
  });
});
