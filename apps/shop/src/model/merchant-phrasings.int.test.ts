/**
 * How the scripted model understands merchants: phrasings as merchants type them (English and
 * Chinese, lower case, short), each driven end to end through the real merchant agent, a real
 * store and the embedded model over HTTP, with the tool calls it must make, the approvals it must
 * ask for (a change to more than one product is one confirmed call, never a call per product), the
 * store's state afterwards and the final sentence in the merchant's language.
 */

import { type AgentEvent, type ApprovalRequest, type Message, runAgentTurn } from "overlap-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createShopAgents, type ShopAgents } from "../agents/shop-agents.js";
import { openStore } from "../db/open-store.js";
import type { ShopStore } from "../db/shop-store.js";
import { discountedCents, listPriceOf } from "../domain/discounts.js";
import { addInFirstVariant } from "../domain/test-products.testkit.js";
import { modelFromEnv, type ShopModel } from "./model-from-env.js";
import { shopPolicy } from "./shop-policy.js";

type Call = [name: string, input?: Record<string, unknown>];

interface Turn {
  calls: Array<{ name: string; input: Record<string, unknown> }>;
  asked: ApprovalRequest[];
  final: string;
}

interface Phrasing {
  say: string;
  before?: string[];
  /** The turn's calls in order, inputs matched partially; `[]`: it must not call anything. */
  calls?: Call[] | ((store: ShopStore) => Promise<Call[]>);
  /** The tools whose calls must wait for the merchant's approval (in order); default none. */
  approve?: string[];
  /** Decline the approvals instead of approving them. */
  decline?: boolean;
  reply?: RegExp;
  lang?: "en" | "zh";
  check?: (turn: Turn, store: ShopStore) => void | Promise<void>;
}

let shop: ShopModel;
let agents: ShopAgents;
/** A fresh store per case: the cases change the catalog. */
let store: ShopStore;

beforeAll(async () => {
  shop = await modelFromEnv({ env: {}, policy: shopPolicy, pacing: { fast: true } });
});
afterAll(async () => {
  await shop?.close();
});

async function turn(sessionId: string, text: string, decline = false): Promise<Turn> {
  const agent = agents.merchant;
  const history = await store.conversations.load(sessionId);
  const messages: Message[] = [...history, { role: "user", content: text }];
  const events: AgentEvent[] = [];
  const asked: ApprovalRequest[] = [];
  const result = await runAgentTurn({
    model: shop.model,
    executor: agent.executor(sessionId),
    system: agent.system,
    agent: agent.name,
    messages,
    sink: (e) => events.push(e),
    ledger: store.ledger(sessionId),
    approvals: {
      wait: async (_callId, _signal, request) => {
        asked.push(request);
        return { approve: !decline };
      },
    },
  });
  expect(result.error).toBeUndefined();
  await store.conversations.write(sessionId, 0, result.messages);
  const last = result.messages.at(-1)?.content;
  return {
    calls: events.flatMap((e) =>
      e.type === "tool-call" && e.parentCallId === undefined
        ? [{ name: e.name, input: e.input as Record<string, unknown> }]
        : [],
    ),
    asked,
    final:
      typeof last === "string"
        ? last
        : (last ?? []).map((b) => (b.type === "text" ? b.text : "")).join(""),
  };
}

const HAN = /[\u4e00-\u9fff]/;
const ENGLISH_WORDS = /\b(the|your|you|is|are|and|now|done|products?|off|sale|called)\b/i;

async function run(p: Phrasing): Promise<Turn> {
  store = await openStore({ sqliteFile: ":memory:" });
  agents = createShopAgents({ store, model: shop.model });
  try {
    const { id } = await store.createSession("merchant");
    for (const text of p.before ?? []) await turn(id, text);
    const expected = typeof p.calls === "function" ? await p.calls(store) : p.calls;
    const result = await turn(id, p.say, p.decline);
    if (expected) {
      expect(result.calls.map((c) => c.name)).toEqual(expected.map(([name]) => name));
      expected.forEach(([, input], i) => {
        if (input) expect(result.calls[i]?.input).toMatchObject(input);
      });
    }
    expect(result.asked.map((a) => a.name)).toEqual(p.approve ?? []);
    // What the merchant confirms is the whole change as one table.
    for (const request of result.asked) {
      expect(request.details).toMatchObject({ type: "product-changes" });
      expect(
        (request.details as { change: { rows: unknown[] } }).change.rows.length,
      ).toBeGreaterThan(1);
    }
    if (p.reply) expect(result.final).toMatch(p.reply);
    if (p.lang === "zh") {
      expect(result.final).toMatch(HAN);
      expect(result.final).not.toMatch(ENGLISH_WORDS);
    }
    if (p.lang === "en") expect(result.final).not.toMatch(HAN);
    await p.check?.(result, store);
    return result;
  } finally {
    await store.close();
  }
}

const AERO = "p-0001"; // Aero Trail Runner, $89.00, stock 42
const MERINO = "p-0002"; // Merino Wool Socks, $14.50, stock 120
const STORM = "p-0007"; // Storm Waterproof Trail Runner, stock 4

const jackets = async (s: ShopStore) =>
  (await s.listProducts()).filter((p) => p.category === "Jackets");
const socks = async (s: ShopStore) =>
  (await s.listProducts()).filter((p) => p.category === "Socks");

/** Every jacket at `percent`% off its list price, and nothing else discounted. */
async function expectJacketsOff(s: ShopStore, percent: number | undefined) {
  for (const p of await s.listProducts()) {
    const expected = p.category === "Jackets" ? percent : undefined;
    expect(p.discountPercent).toBe(expected);
    expect(p.priceCents).toBe(
      expected === undefined ? listPriceOf(p) : discountedCents(listPriceOf(p), expected),
    );
  }
}

/** Ways merchants ask for a discount on a category. */
const DISCOUNTS: Phrasing[] = [
  ...[
    "10% off all jackets",
    "put 10% off all the jackets",
    "take 10 percent off jackets",
    "jackets 10% off",
    "discount all jackets by 10%",
    "mark down every jacket by 10%",
    "10% discount on jackets please",
    "Put all our Jackets on sale at 10% off",
  ].map(
    (say): Phrasing => ({
      say,
      calls: [["set_discount", { category: "Jackets", percent: 10 }]],
      approve: ["set_discount"],
      reply:
        /^Done: 10% off all Jackets, 20 products now at the sale price \(for example .+ \$[\d,.]+ → \$[\d,.]+\)\.$/,
      lang: "en",
      check: (_t, s) => expectJacketsOff(s, 10),
    }),
  ),
  ...["把夹克打九折", "所有夹克打九折", "夹克全部九折", "夹克打9折", "外套都打九折"].map(
    (say): Phrasing => ({
      say,
      calls: [["set_discount", { category: "Jackets", percent: 10 }]],
      approve: ["set_discount"],
      reply: /^已完成：外套全部打9折，20 款商品按折后价出售/,
      lang: "zh",
      check: (_t, s) => expectJacketsOff(s, 10),
    }),
  ),
  {
    say: "所有袜子打八五折",
    calls: [["set_discount", { category: "Socks", percent: 15 }]],
    approve: ["set_discount"],
    lang: "zh",
    check: async (_t, s) => {
      for (const p of await socks(s)) expect(p.discountPercent).toBe(15);
    },
  },
  {
    say: "half price on all backpacks",
    calls: [["set_discount", { category: "Backpacks", percent: 50 }]],
    approve: ["set_discount"],
  },
  {
    say: "25% off all running shoes",
    calls: [["set_discount", { category: "Running Shoes", percent: 25 }]],
    approve: ["set_discount"],
    check: async (_t, s) =>
      expect((await s.getProduct(AERO))?.priceCents).toBe(discountedCents(8_900, 25)),
  },
  {
    say: "所有跑鞋降价20%",
    calls: [["set_discount", { category: "Running Shoes", percent: 20 }]],
    approve: ["set_discount"],
    lang: "zh",
  },
  {
    // Declined: nothing changes, and the reply says so.
    say: "10% off all jackets",
    decline: true,
    calls: [["set_discount", { category: "Jackets", percent: 10 }]],
    approve: ["set_discount"],
    reply: /^OK, nothing was changed\.$/,
    check: (_t, s) => expectJacketsOff(s, undefined),
  },
  {
    say: "把夹克打九折",
    decline: true,
    calls: [["set_discount"]],
    approve: ["set_discount"],
    reply: /^好的，没有做任何修改。$/,
    lang: "zh",
  },
  {
    say: "end the jacket discount",
    before: ["10% off all jackets"],
    calls: [["end_discount", { category: "Jackets" }]],
    approve: ["end_discount"],
    reply: /^Done: the discount on Jackets ended; 20 products are back at their list price\.$/,
    check: (_t, s) => expectJacketsOff(s, undefined),
  },
  {
    say: "jackets back to full price",
    before: ["20% off all jackets"],
    calls: [["end_discount", { category: "Jackets" }]],
    approve: ["end_discount"],
  },
  {
    say: "取消夹克的折扣",
    before: ["把夹克打九折"],
    calls: [["end_discount", { category: "Jackets" }]],
    approve: ["end_discount"],
    reply: /^已完成：外套的折扣已结束，20 款商品恢复原价。$/,
    lang: "zh",
  },
  {
    say: "夹克恢复原价",
    before: ["把夹克打八折"],
    calls: [["end_discount", { category: "Jackets" }]],
    approve: ["end_discount"],
    lang: "zh",
  },
  {
    say: "what discounts are running",
    before: ["10% off all jackets"],
    calls: [["list_discounts"]],
    reply: /^In force: 10% off Jackets \(20 products\)\.$/,
  },
  { say: "what's on sale", calls: [["list_discounts"]], reply: /^No discount is in force\.$/ },
  { say: "any sales running?", calls: [["list_discounts"]] },
  // "Sales" alone are the shop's sales, not discounts.
  { say: "show me the sales", calls: [["sales_summary"]] },
  { say: "what were our sales", calls: [["sales_summary"]] },
  {
    say: "现在有哪些折扣",
    calls: [["list_discounts"]],
    reply: /^目前没有折扣。$/,
    lang: "zh",
  },
  {
    // One product's price, lowered for good: no category discount, no approval.
    say: "10% off the merino wool socks",
    calls: [
      ["show_inventory", { productIds: [MERINO] }],
      ["set_price", { productId: MERINO, price: 13.05 }],
    ],
    check: async (_t, s) => expect((await s.getProduct(MERINO))?.discountPercent).toBeUndefined(),
  },
  {
    say: "美利奴羊毛袜打九折",
    calls: [
      ["show_inventory", { productIds: [MERINO] }],
      ["set_price", { productId: MERINO, price: 13.05 }],
    ],
    lang: "zh",
  },
  {
    // A category the shop does not have: the tool says which there are, nothing changes.
    say: "10% off all hats",
    calls: [],
  },
  {
    // The shopper sees it: the discounted price is what a cart line captures.
    say: "10% off all jackets",
    approve: ["set_discount"],
    check: async (_t, s) => {
      const [jacket] = await jackets(s);
      const chat = (await s.createSession("shopper")).id;
      await s.withCart(chat, async (cart, tx) => {
        const p = await tx.getProduct(jacket!.id);
        return addInFirstVariant(cart, p, 1, tx.rules);
      });
      expect((await s.getCart(chat)).lines[0]?.unitPriceCents).toBe(
        discountedCents(listPriceOf(jacket!), 10),
      );
    },
  },
];

/** Ways merchants ask for a bulk restock: one confirmed call with one table. */
const RESTOCKS: Phrasing[] = [
  ...[
    "restock everything under 5 to 20",
    "restock all products under 5 up to 20",
    "fill everything below 5 up to 20",
  ].map(
    (say): Phrasing => ({
      say,
      calls: async (s) => [
        ["low_stock_report", { threshold: 4 }],
        ["restock_products", { productIds: (await s.lowStock(4)).map((p) => p.id), upTo: 20 }],
      ],
      approve: ["restock_products"],
      reply: /^Restocked \d+ products: .+ \(\d+ → 20\)/,
      lang: "en",
      check: async (_t, s) => {
        expect(await s.lowStock(4)).toEqual([]);
        expect((await s.getProduct(STORM))?.stock).toBe(20);
      },
    }),
  ),
  ...["把库存低于5的商品都补到20", "库存不足5件的全部补到20"].map(
    (say): Phrasing => ({
      say,
      calls: async (s) => [
        ["low_stock_report", { threshold: 4 }],
        ["restock_products", { productIds: (await s.lowStock(4)).map((p) => p.id), upTo: 20 }],
      ],
      approve: ["restock_products"],
      reply: /^已为 \d+ 款商品补货：.+（\d+ → 20）/,
      lang: "zh",
      check: async (_t, s) => expect(await s.lowStock(4)).toEqual([]),
    }),
  ),
  {
    say: "what is low on stock? restock it",
    calls: async (s) => [
      ["low_stock_report", { threshold: 5 }],
      ["restock_products", { productIds: (await s.lowStock(5)).map((p) => p.id), quantity: 20 }],
    ],
    approve: ["restock_products"],
    check: async (_t, s) => expect(await s.lowStock(5)).toEqual([]),
  },
  {
    say: "库存不足的商品有哪些？补货",
    calls: async (s) => [
      ["low_stock_report", { threshold: 5 }],
      ["restock_products", { productIds: (await s.lowStock(5)).map((p) => p.id), quantity: 20 }],
    ],
    approve: ["restock_products"],
    lang: "zh",
  },
  {
    say: "restock everything under 5 units",
    calls: async (s) => [
      ["low_stock_report", { threshold: 4 }],
      ["restock_products", { productIds: (await s.lowStock(4)).map((p) => p.id), quantity: 20 }],
    ],
    approve: ["restock_products"],
    reply: /^Restocked \d+ products?: /,
    check: async (_t, s) => expect(await s.lowStock(4)).toEqual([]),
  },
  {
    say: "restock all socks with 10",
    calls: [["restock_products", { quantity: 10 }]],
    approve: ["restock_products"],
    check: async (t, s) =>
      expect([...((t.calls[0]?.input.productIds ?? []) as string[])].sort()).toEqual(
        (await socks(s)).map((p) => p.id).sort(),
      ),
  },
  {
    say: "restock everything under 5 to 20",
    decline: true,
    approve: ["restock_products"],
    reply: /^OK, nothing was changed\.$/,
    check: async (_t, s) => expect((await s.getProduct(STORM))?.stock).toBe(4),
  },
  {
    // One product, filled up to a level: one call, no approval.
    say: "restock the aero trail runner to 120",
    calls: [["restock_products", { productIds: [AERO], upTo: 120 }]],
    reply: /^Restocked 1 product: Aero Trail Runner \(42 → 120\)\.$/,
    check: async (_t, s) => expect((await s.getProduct(AERO))?.stock).toBe(120),
  },
  {
    say: "restock the aero trail runner with 30",
    calls: [["restock", { productId: AERO, quantity: 30 }]],
  },
  {
    say: "restock the socks",
    calls: [],
    reply: /"socks" fits \d+ products .*Which one\? Or say "all socks"/,
  },
];

/** Ways merchants edit one product: no approval (one product changes). */
const EDITS: Phrasing[] = [
  ...[
    ["rename the Aero trail runner to Aero Trail Runner Pro", "Aero Trail Runner Pro"],
    ["change the name of the aero trail runner to “Aero Trail Runner 2”", "Aero Trail Runner 2"],
    ["Rename Aero Trail Runner as AeroLite Trail", "AeroLite Trail"],
    ["把 Aero Trail Runner 改名为 Aero Trail Runner Pro", "Aero Trail Runner Pro"],
    ["把Aero越野跑鞋的名字改成「Aero 越野跑鞋」", "Aero 越野跑鞋"],
  ].map(
    ([say, name]): Phrasing => ({
      say: say!,
      calls: [["edit_product", { productId: AERO, name: name! }]],
      reply: HAN.test(say!)
        ? new RegExp(`^已完成：Aero Trail Runner 已改名为「${name}」。$`)
        : new RegExp(`^Done: the Aero Trail Runner is now called "${name}"\\.$`),
      check: async (_t, s) => {
        expect((await s.getProduct(AERO))?.name).toBe(name);
        expect((await s.searchProducts({ text: name!, limit: 1 }))[0]?.id).toBe(AERO);
      },
    }),
  ),
  {
    say: "change the description of the merino wool socks to: Soft merino socks for cold mornings.",
    calls: [
      ["edit_product", { productId: MERINO, description: "Soft merino socks for cold mornings" }],
    ],
    reply: /^Done: the Merino Wool Socks has its new description\.$/,
  },
  {
    say: "把美利奴羊毛袜的描述改成：柔软保暖的羊毛袜",
    calls: [["edit_product", { productId: MERINO, description: "柔软保暖的羊毛袜" }]],
    reply: /^已完成：Merino Wool Socks 的描述已更新。$/,
    lang: "zh",
  },
  ...[
    "set the price of the Aero Trail Runner to $95",
    "set the price of aero trail runner to 95",
    "make the aero trail runner $95",
    "把 Aero Trail Runner 的价格改成 95 美元",
    "aero越野跑鞋的价格改为95",
  ].map(
    (say): Phrasing => ({
      say,
      calls: [["set_price", { productId: AERO, price: 95 }]],
      check: async (_t, s) => expect((await s.getProduct(AERO))?.priceCents).toBe(9_500),
    }),
  ),
  {
    // A new price of a discounted product is its list price; the discount stays.
    say: "set the price of the aero trail runner to $100",
    before: ["10% off all running shoes"],
    calls: [["set_price", { productId: AERO, price: 100 }]],
    reply: /the Aero Trail Runner now costs \$90\.00 \(10% off \$100\.00\)/,
  },
  {
    // Another product's name is refused, and said.
    say: "rename the aero trail runner to Merino Wool Socks",
    calls: [["edit_product", { productId: AERO, name: "Merino Wool Socks" }]],
    reply: /already called "Merino Wool Socks"/,
    check: async (_t, s) => expect((await s.getProduct(AERO))?.name).toBe("Aero Trail Runner"),
  },
  { say: "rename the socks to Cozy Socks", calls: [], reply: /Which one\?/ },
];

/** The merchant page's welcome suggestions (web/src/i18n/merchant-words.ts): each works as written. */
const SUGGESTIONS: Phrasing[] = [
  {
    say: "what is low on stock? restock it",
    calls: [["low_stock_report"], ["restock_products", { quantity: 20 }]],
    approve: ["restock_products"],
  },
  {
    say: "restock everything under 5 to 20",
    calls: [["low_stock_report"], ["restock_products", { upTo: 20 }]],
    approve: ["restock_products"],
  },
  { say: "10% off all jackets", calls: [["set_discount"]], approve: ["set_discount"] },
  {
    say: "set the price of the Aero Trail Runner to $95",
    calls: [["set_price", { productId: AERO, price: 95 }]],
  },
  { say: "sales summary", calls: [["sales_summary"]], reply: /^0 orders, 0 items/ },
  {
    say: "库存不足的商品有哪些？补货",
    calls: [["low_stock_report"], ["restock_products"]],
    approve: ["restock_products"],
    lang: "zh",
  },
  {
    say: "把库存低于5的商品都补到20",
    calls: [["low_stock_report"], ["restock_products", { upTo: 20 }]],
    approve: ["restock_products"],
    lang: "zh",
  },
  { say: "把夹克打九折", calls: [["set_discount"]], approve: ["set_discount"], lang: "zh" },
  {
    say: "把 Aero Trail Runner 的价格改成 95 美元",
    calls: [["set_price", { productId: AERO, price: 95 }]],
    lang: "zh",
  },
  { say: "销售汇总", calls: [["sales_summary"]], reply: /^共 0 个订单/, lang: "zh" },
];

describe("every suggestion of the merchant's welcome screen works as written", () => {
  it.each(SUGGESTIONS.map((p) => [p.say, p] as const))("%s", async (_title, p) => {
    await run(p);
  });
});

describe("the scripted model understands merchants' discounts", () => {
  it.each(DISCOUNTS.map((p) => [p.say + (p.decline ? " (declined)" : ""), p] as const))(
    "%s",
    async (_title, p) => {
      await run(p);
    },
  );
});

describe("the scripted model restocks several products in one confirmed call", () => {
  it.each(RESTOCKS.map((p) => [p.say + (p.decline ? " (declined)" : ""), p] as const))(
    "%s",
    async (_title, p) => {
      await run(p);
    },
  );
});

describe("the scripted model edits one product at a time", () => {
  it.each(EDITS.map((p) => [p.say, p] as const))("%s", async (_title, p) => {
    await run(p);
  });
});
