/**
 * How the scripted model understands shoppers and merchants: phrasings as people type them
 * (lower case, typos, no punctuation, English and Chinese), each driven end to end through the
 * real agents, a real store and the embedded model over HTTP (no pacing delays), with the effect
 * it must have: the tool calls of the turn with their arguments, or the question it asks instead
 * of acting, and for many the language and content of the final sentence.
 */

import { type AgentEvent, type Message, runAgentTurn } from "overlap-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createShopAgents, type ShopAgents } from "../agents/shop-agents.js";
import { openStore } from "../db/open-store.js";
import type { ShopStore } from "../db/shop-store.js";
import { generateCatalog } from "../domain/catalog.js";
import { isChinese } from "./intent-words.js";
import { modelFromEnv, type ShopModel } from "./model-from-env.js";
import { shopPolicy } from "./shop-policy.js";

type Who = "shopper" | "merchant";
type Call = [name: string, input?: Record<string, unknown>];

interface Turn {
  /** Top-level tool calls of the turn, in order (a delegate's inner calls are in `inner`). */
  calls: Array<{ name: string; input: Record<string, unknown> }>;
  inner: Array<{ name: string; input: Record<string, unknown> }>;
  final: string;
  /** Every text the assistant wrote in the turn, as the shopper's bubble shows it. */
  bubble: string;
  /** The turn's tool results (a delegate's answer is its call's result). */
  results: string[];
}

interface Phrasing {
  /** The kind of request the case stands for (counted in the test titles). */
  kind?: string;
  say: string;
  who?: Who;
  /** Earlier requests of the same session. */
  before?: string[];
  /** The turn's calls in order, inputs matched partially; `[]`: it must not call anything. */
  calls?: Call[] | ((store: ShopStore) => Promise<Call[]>);
  /** The final text. */
  reply?: RegExp;
  /** The final text's language. */
  lang?: "en" | "zh";
  check?: (turn: Turn, store: ShopStore, sessionId: string) => void | Promise<void>;
}

let shop: ShopModel;
const stores: Record<Who, { store: ShopStore; agents: ShopAgents }> = {} as never;

beforeAll(async () => {
  shop = await modelFromEnv({ env: {}, policy: shopPolicy, pacing: { fast: true } });
  for (const who of ["shopper", "merchant"] as const) {
    const store = await openStore({ sqliteFile: ":memory:" });
    stores[who] = { store, agents: createShopAgents({ store, model: shop.model }) };
  }
});
afterAll(async () => {
  await shop?.close();
  for (const { store } of Object.values(stores)) await store.close();
});

async function turn(who: Who, sessionId: string, text: string): Promise<Turn> {
  const { store, agents } = stores[who];
  const agent = agents[who];
  const history = await store.conversations.load(sessionId);
  const messages: Message[] = [...history, { role: "user", content: text }];
  const events: AgentEvent[] = [];
  const result = await runAgentTurn({
    model: shop.model,
    executor: agent.executor(sessionId),
    system: agent.system,
    agent: agent.name,
    messages,
    sink: (e) => events.push(e),
    ledger: store.ledger(sessionId),
    // The shopper confirms the checkout (it waits for the shopper's approval).
    approvals: { wait: async () => ({ approve: true }) },
  });
  expect(result.error).toBeUndefined();
  await store.conversations.write(sessionId, 0, result.messages);
  const last = result.messages.at(-1)?.content;
  const texts = (m: Message) =>
    typeof m.content === "string"
      ? m.content
      : m.content.map((b) => (b.type === "text" ? b.text : "")).join(" ");
  const bubble = result.messages
    .slice(messages.length)
    .filter((m) => m.role === "assistant")
    .map(texts)
    .join(" ");
  const calls = events.flatMap((e) =>
    e.type === "tool-call"
      ? [{ e, call: { name: e.name, input: e.input as Record<string, unknown> } }]
      : [],
  );
  return {
    calls: calls.filter(({ e }) => e.parentCallId === undefined).map(({ call }) => call),
    inner: calls.filter(({ e }) => e.parentCallId !== undefined).map(({ call }) => call),
    final:
      typeof last === "string"
        ? last
        : (last ?? []).map((b) => (b.type === "text" ? b.text : "")).join(""),
    bubble,
    results: result.messages
      .slice(messages.length)
      .flatMap((m) =>
        typeof m.content === "string"
          ? []
          : m.content.flatMap((b) => (b.type === "tool_result" ? [String(b.content)] : [])),
      ),
  };
}

const HAN = /[\u4e00-\u9fff]/;
/** English sentence words never appear in a Chinese answer (product names are English). */
const ENGLISH_WORDS = /\b(the|your|you|is|are|and|cart|added|order|in stock|would)\b/i;

async function run(p: Phrasing): Promise<Turn> {
  const who = p.who ?? "shopper";
  const { store } = stores[who];
  const { id } = await store.createSession(who);
  for (const text of p.before ?? []) await turn(who, id, text);
  const expected = typeof p.calls === "function" ? await p.calls(store) : p.calls;
  const result = await turn(who, id, p.say);
  if (expected) {
    expect(result.calls.map((c) => c.name)).toEqual(expected.map(([name]) => name));
    expected.forEach(([, input], i) => {
      if (input) expect(result.calls[i]?.input).toMatchObject(input);
    });
  }
  if (p.reply) expect(result.final).toMatch(p.reply);
  if (p.lang === "zh") {
    expect(result.final).toMatch(HAN);
    expect(result.final).not.toMatch(ENGLISH_WORDS);
  }
  if (p.lang === "en") expect(result.final).not.toMatch(HAN);
  if (who === "shopper") expectShopAssistantWords(result.bubble, isChinese(p.say));
  await p.check?.(result, store, id);
  return result;
}

/** What may stay in Latin letters in a Chinese reply: names, brands, colours, sizes, prices, ids. */
const LATIN_NAMES = [
  ...new Set(
    // A model name on its own ("Aero越野跑鞋") stays in Latin letters too.
    generateCatalog().flatMap((p) => [p.name, p.brand, p.name.split(" ")[0]!, ...p.colors]),
  ),
].sort((a, b) => b.length - a.length);

/** The Latin words of a Chinese reply that are not names, brands, colours or sizes. */
function strayLatin(text: string): string[] {
  let rest = text;
  for (const name of LATIN_NAMES) rest = rest.split(name).join(" ");
  return (
    rest
      .replace(
        /\bUS ?\d+(\.5)?\b|\b(XXL|XL|XS|S|M|L)\b|\$[\d,.]+|\bo-[0-9a-f]+\b|\bp-\d{4}\b/g,
        " ",
      )
      .match(/[A-Za-z]{2,}/g) ?? []
  );
}

/**
 * The shopper's bubble reads like a shop assistant's: one account of each action (not "I'll add
 * X" and then "Added X"), no tool names, parser messages or internal limits, and a Chinese reply
 * in Chinese throughout with one form of address (您).
 */
function expectShopAssistantWords(bubble: string, zh: boolean): void {
  expect(bubble).not.toMatch(
    /\bI'll (add|remove|put|change|set|empty)\b|\b(Adding|Removing|Setting|Changing|Emptying|Placing) (the |your |\d)|好的，(我)?把|好的，(删除|清空|再加)|正在为/,
  );
  expect(bubble).not.toMatch(/\b[a-z]+_[a-z_]+\b|zod|invalid_type|Unexpected token|JSON|上限/);
  if (zh) {
    expect(strayLatin(bubble)).toEqual([]);
    expect(bubble).not.toMatch(/你/);
  }
}

const cartOf = async (store: ShopStore, id: string) =>
  (await store.getCart(id)).lines.map((l) => ({
    id: l.productId,
    q: l.quantity,
    ...(l.size ? { size: l.size } : {}),
    ...(l.color ? { color: l.color } : {}),
  }));

const add = (productId: string, extra: Record<string, unknown> = {}): Call => [
  "add_to_cart",
  { productId, ...extra },
];

// Catalog ids the cases rely on (the catalog is deterministic).
const AERO = "p-0001"; // Aero Trail Runner, $89.00, US 6-13, Slate/Volt
const MERINO = "p-0002"; // Merino Wool Socks, $14.50, S-XL, Charcoal/Oatmeal
const SWIFT = "p-0003"; // Swift Road Racer, $74.99
const THERMAL_ANKLE = "p-0105"; // Thermal Ankle Socks
const STORM = "p-0007"; // Storm Waterproof Trail Runner

const SHOPPER: Phrasing[] = [
  // Misspelt and loose phrasings that were once misread, as shoppers wrote them.
  {
    say: "add the aero trial runer to my cart",
    calls: [],
    reply:
      /^Which size and colour for the Aero Trail Runner\? Sizes: US 6, US 7, US 8, US 9, US 10, US 11, US 12, US 13; colours: Slate or Volt\.$/,
    lang: "en",
  },
  // The answer to "which size?" completes the request.
  {
    before: ["add the aero trial runer to my cart"],
    say: "the 10 in volt",
    calls: [add(AERO, { quantity: 1, size: "US 10", color: "Volt" })],
    reply: /Added 1 × Aero Trail Runner \(size US 10, Volt\)/,
    check: async (_t, store, id) =>
      expect(await cartOf(store, id)).toEqual([{ id: AERO, q: 1, size: "US 10", color: "Volt" }]),
  },
  {
    before: ["add the aero trial runer to my cart", "a 9"],
    say: "slate",
    calls: [add(AERO, { size: "US 9", color: "Slate" })],
  },
  {
    before: ["add the merino wool socks in size M in charcoal"],
    say: "remove the socks",
    calls: [["remove_from_cart", { productId: MERINO }]],
    check: async (_t, store, id) => expect(await cartOf(store, id)).toEqual([]),
  },
  {
    before: ["add the wool socks in size M in charcoal"],
    say: "make it 3 pairs",
    calls: [["update_cart_item", { productId: MERINO, quantity: 3 }]],
    reply: /3 × Merino Wool Socks/,
  },
  {
    before: ["add the wool socks in size M in charcoal", "add the aero trail runner"],
    say: "empty my cart",
    calls: [["clear_cart", {}]],
    reply: /cart is now empty/,
    check: async (_t, store, id) => expect(await cartOf(store, id)).toEqual([]),
  },
  {
    say: "tell me more about the Aero trail runner",
    calls: [["get_product", { productId: AERO }]],
    reply: /Aero Trail Runner by Stridewell.*\$89\.00, 42 in stock.*US 6–US 13.*Slate, Volt/,
    lang: "en",
  },
  {
    before: ["tell me more about the aero trail runner"],
    say: "do you have it in size 10?",
    calls: [["get_product", { productId: AERO }]],
    reply: /Yes.*Aero Trail Runner comes in size US 10/,
  },
  {
    before: ["add the wool socks in size M in charcoal", "check out"],
    say: "what did I order?",
    calls: [["my_orders", {}]],
    reply: /o-[0-9a-f]+ .*1 × Merino Wool Socks.*\$14\.50/,
  },
  { say: "thanks!", calls: [], reply: /welcome/ },
  // One of a thing is one item, not "1 items"; Chinese counts with 件 (no plural).
  {
    before: ["add the wool socks in size M in charcoal"],
    say: "what's in my cart?",
    reply: /^Your cart: 1 × Merino Wool Socks \(size M, Charcoal\)\. 1 item, total \$14\.50\.$/,
  },
  {
    before: ["add the wool socks in size M in charcoal"],
    say: "how much is my total?",
    reply: /^Your cart total is \$14\.50 for 1 item\.$/,
  },
  {
    before: ["add the wool socks in size M in charcoal"],
    say: "check out",
    calls: [["checkout", {}]],
    reply: /^Done! Order o-[0-9a-f]+ is placed: 1 item, \$14\.50\. Thank you!$/,
  },
  {
    before: ["add the wool socks in size M in charcoal", "check out"],
    say: "what did I order?",
    reply: /1 × Merino Wool Socks \(size M, Charcoal\) — 1 item, \$14\.50; status/,
  },
  {
    before: ["add the wool socks in size M in charcoal"],
    say: "购物车里有什么",
    reply: /^购物车：Merino Wool Socks × 1（尺码 M，炭灰色）。共 1 件，合计 \$14\.50。$/,
    lang: "zh",
  },
  // A quantity the cart cannot take is never changed, and never sent to a tool that must refuse
  // it: the model says the limit, or asks, and the cart stays as it was.
  {
    say: "add 11 wool socks in size M in charcoal",
    calls: [],
    reply: /at most 10.*can't make it 11\. How many would you like, from 1 to 10\?/,
    lang: "en",
  },
  {
    say: "来11双M号炭灰羊毛袜",
    calls: [],
    reply: /^每件商品在购物车里最多 10 件，所以没法加 11 件。要几件（1 到 10）？/,
    lang: "zh",
  },
  {
    before: ["add the wool socks in size M in charcoal"],
    say: "make it 12",
    calls: [],
    reply: /at most 10.*can't make it 12/,
    check: async (_t, store, id) =>
      expect(await cartOf(store, id)).toEqual([{ id: MERINO, q: 1, size: "M", color: "Charcoal" }]),
  },
  {
    say: "add 0 wool socks in size M in charcoal",
    calls: [],
    reply: /quantity of 0\. How many would you like, from 1 to 10\?/,
  },
  {
    before: ["add 9 wool socks in size M in charcoal"],
    say: "add 3 more wool socks",
    calls: [add(MERINO, { quantity: 3, size: "M", color: "Charcoal" })],
    reply:
      /^I couldn't do that: the cart already holds 9 × Merino Wool Socks \(size M, Charcoal\); adding 3 would make 12, and a line holds at most 10\.$/,
  },
  {
    say: "compare the Aero trail runner and the Swift Road Racer",
    calls: [["compare_products", { productIds: [AERO, SWIFT] }]],
    reply: /Swift Road Racer is the cheapest/,
  },
  {
    before: ["compare the Aero trail runner and the Swift Road Racer"],
    say: "add the cheaper one",
    calls: [],
    reply:
      /^Which size and colour for the Swift Road Racer\? Sizes: US 6, .*; colours: White or Red\.$/,
  },
  {
    say: "add 2 Aero trail runners in size 10",
    calls: [],
    reply: /^Which colour for the Aero Trail Runner: Slate or Volt\?$/,
  },
  {
    before: ["add 2 Aero trail runners in size 10"],
    say: "Volt",
    calls: [add(AERO, { quantity: 2, size: "US 10", color: "Volt" })],
    reply: /Added 2 × Aero Trail Runner \(size US 10, Volt\)/,
    check: async (_t, store, id) =>
      expect(await cartOf(store, id)).toEqual([{ id: AERO, q: 2, size: "US 10", color: "Volt" }]),
  },
  {
    before: ["add the wool socks in size M in charcoal"],
    say: "结账",
    calls: [["checkout", {}]],
    reply: /下单成功！订单 o-[0-9a-f]+：共 1 件，合计 \$14\.50/,
    lang: "zh",
  },
  {
    say: "check out",
    calls: [["view_cart", {}]],
    reply: /cart is empty, so there is nothing to check out/,
    check: async (_t, store, id) => expect(await store.listOrders({ sessionId: id })).toEqual([]),
  },
  {
    before: ["add the wool socks in size M in charcoal", "empty my cart"],
    say: "check out",
    calls: [],
    reply: /cart is empty/,
  },
  // The demo request: with sizes and colours it adds both; without, it asks, and the answer adds.
  {
    say: "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart and tell me the total",
    calls: [
      add(AERO, { quantity: 1, size: "US 10", color: "Volt" }),
      add(MERINO, { quantity: 1, size: "M", color: "Charcoal" }),
      ["cart_total", {}],
    ],
    reply: /\$103\.50 for 2 items/,
  },
  {
    say: "add the Aero trail runner and the wool socks to my cart and tell me the total",
    calls: [],
    reply:
      /^Which size and colour for the Aero Trail Runner\?.*Which size and colour for the Merino Wool Socks\? Sizes: S, M, L, XL; colours: Charcoal or Oatmeal\.$/,
  },
  {
    before: ["add the Aero trail runner and the wool socks to my cart and tell me the total"],
    say: "10 in volt and M in charcoal",
    calls: [
      add(AERO, { quantity: 1, size: "US 10", color: "Volt" }),
      add(MERINO, { quantity: 1, size: "M", color: "Charcoal" }),
      ["cart_total", {}],
    ],
    reply: /\$103\.50 for 2 items/,
  },
  {
    say: "add the Aero trail runner in size 10 in volt and the wool socks to my cart",
    calls: [add(AERO, { size: "US 10", color: "Volt" })],
    reply: /Added 1 × Aero Trail Runner.*Which size and colour for the Merino Wool Socks\?/,
  },
  // Products by name: typos, plurals, brands, lower case, Chinese names.
  {
    say: "Add 2 merino wool socks to my cart",
    calls: [],
    reply: /Which size and colour for the Merino Wool Socks\\?/,
  },
  {
    say: "can u add the wool sokcs pls",
    calls: [],
    reply: /Which size and colour for the Merino Wool Socks\\?/,
  },
  {
    say: "put the stridewell runner in my basket",
    calls: [],
    reply: /Which size and colour for the Aero Trail Runner\\?/,
  },
  {
    say: "add 3 swift racers",
    calls: [],
    reply: /Which size and colour for the Swift Road Racer\\?/,
  },
  {
    say: "add the summit ultra trial",
    calls: [],
    reply: /Which size and colour for the Summit Ultra Trail\\?/,
  },
  {
    say: "把Aero越野跑鞋和美利奴羊毛袜加入购物车",
    calls: [],
    reply:
      /^Aero Trail Runner要哪个尺码和颜色？可选：尺码：US 6、.*US 13；颜色：石板灰、荧光绿。Merino Wool Socks要哪个尺码和颜色？/,
    lang: "zh",
  },
  {
    before: ["把Aero越野跑鞋和美利奴羊毛袜加入购物车"],
    say: "10码荧光绿，L号炭灰",
    calls: [
      add(AERO, { quantity: 1, size: "US 10", color: "Volt" }),
      add(MERINO, { quantity: 1, size: "L", color: "Charcoal" }),
    ],
    reply:
      /已加入购物车：Aero Trail Runner × 1（尺码 US 10，荧光绿）、Merino Wool Socks × 1（尺码 L，炭灰色）。购物车现有 2 件/,
    lang: "zh",
  },
  // The page's Chinese suggestion: a size and a colour given, added and totalled.
  {
    say: "把10码荧光绿的Aero越野跑鞋加入购物车，然后算一下总价",
    calls: [add(AERO, { quantity: 1, size: "US 10", color: "Volt" }), ["cart_total", {}]],
    // The colour as the chip and the cart name it in Chinese.
    reply: /（尺码 US 10，荧光绿）。购物车总价 \$89\.00，共 1 件/,
    lang: "zh",
  },
  {
    say: "来两双10码的Aero越野跑鞋",
    calls: [],
    reply: /^Aero Trail Runner要哪个颜色？可选：石板灰、荧光绿。$/,
    lang: "zh",
  },
  {
    before: ["来两双10码的Aero越野跑鞋"],
    say: "石板",
    calls: [add(AERO, { quantity: 2, size: "US 10", color: "Slate" })],
    reply: /Aero Trail Runner × 2（尺码 US 10，石板灰）/,
    lang: "zh",
  },
  // Sizes and colours, kept on the cart line.
  {
    say: "i want the aero trail runner in volt size 10",
    calls: [add(AERO, { size: "US 10", color: "Volt" })],
    check: async (_t, store, id) =>
      expect(await cartOf(store, id)).toEqual([{ id: AERO, q: 1, size: "US 10", color: "Volt" }]),
  },
  {
    say: "add the wool socks in medium in oatmeal",
    calls: [add(MERINO, { size: "M", color: "Oatmeal" })],
  },
  {
    say: "put a pair of merino socks in charcoal in my basket",
    calls: [],
    reply: /^Which size for the Merino Wool Socks: S, M, L, XL\?$/,
  },
  {
    before: ["put a pair of merino socks in charcoal in my basket"],
    say: "a medium",
    calls: [add(MERINO, { quantity: 1, size: "M", color: "Charcoal" })],
  },
  {
    before: ["put a pair of merino socks in charcoal in my basket"],
    say: "what is the meaning of life?",
    calls: [],
    reply: /scripted shopping assistant/,
  },
  {
    before: ["add the aero trail runner in size 9 in slate"],
    say: "change it to size 10",
    calls: [["update_cart_item", { productId: AERO, size: "US 10" }]],
    check: async (_t, store, id) =>
      expect(await cartOf(store, id)).toEqual([{ id: AERO, q: 1, size: "US 10", color: "Slate" }]),
  },
  {
    say: "add the aero trail runner in size 15",
    // Asked before any call: the product does not come in that size.
    calls: [],
    reply:
      /doesn't come in size 15\. Which size and colour for the Aero Trail Runner\? Sizes: US 6, .*US 13/,
    check: async (_t, store, id) => expect(await cartOf(store, id)).toEqual([]),
  },
  // Quantities and changes.
  {
    before: ["add the wool socks in size M in charcoal"],
    say: "one more",
    calls: [add(MERINO, { quantity: 1, size: "M", color: "Charcoal" })],
    check: async (_t, store, id) =>
      expect(await cartOf(store, id)).toEqual([{ id: MERINO, q: 2, size: "M", color: "Charcoal" }]),
  },
  {
    before: ["add the merino wool socks in size M in charcoal"],
    say: "add another pair",
    calls: [add(MERINO, { quantity: 1, size: "M", color: "Charcoal" })],
  },
  {
    before: ["add the wool socks in size M in charcoal"],
    say: "actually make that 2",
    calls: [["update_cart_item", { productId: MERINO, quantity: 2 }]],
  },
  {
    before: ["add 3 merino wool socks in size M in charcoal"],
    say: "take one pair of socks out",
    calls: [["update_cart_item", { productId: MERINO, quantity: 2 }]],
  },
  {
    before: ["add the aero trail runner in size 10 in volt"],
    say: "i dont want the aero trail runner anymore",
    calls: [["remove_from_cart", { productId: AERO }]],
  },
  {
    before: ["add 9 aero trail runners in size 10 in volt"],
    say: "add 2 more",
    calls: [add(AERO, { quantity: 2 })],
    reply: /already holds 9 × Aero Trail Runner.*at most 10/,
  },
  {
    before: ["把M号炭灰美利奴羊毛袜加入购物车"],
    say: "袜子改成3双",
    calls: [["update_cart_item", { productId: MERINO, quantity: 3 }]],
    reply: /Merino Wool Socks 已改为 3 件/,
    lang: "zh",
  },
  {
    before: ["把M号炭灰美利奴羊毛袜加入购物车"],
    say: "再来一双",
    calls: [add(MERINO, { quantity: 1, size: "M", color: "Charcoal" })],
    lang: "zh",
  },
  {
    before: ["add the wool socks in size M in charcoal"],
    say: "把袜子删掉",
    calls: [["remove_from_cart", { productId: MERINO }]],
    reply: /已从购物车删除 Merino Wool Socks/,
    lang: "zh",
  },
  {
    before: ["add the wool socks in size M in charcoal"],
    say: "清空购物车",
    calls: [["clear_cart", {}]],
    lang: "zh",
  },
  {
    before: ["add the wool socks in size M in charcoal"],
    say: "dont empty my cart",
    calls: [],
    reply: /leave your cart/,
  },
  // Which product: references to the cart and to what was shown; asking when unsure.
  {
    before: [
      "add the merino wool socks in size M in charcoal and the thermal ankle socks in size M",
    ],
    say: "remove the socks",
    calls: [],
    reply:
      /Which one do you mean: the (Thermal Ankle Socks or the Merino Wool Socks|Merino Wool Socks or the Thermal Ankle Socks)\?/,
  },
  {
    before: [
      "add the merino wool socks in size M in charcoal and the thermal ankle socks in size M",
      "remove the socks",
    ],
    say: "the merino ones",
    calls: [["remove_from_cart", { productId: MERINO }]],
    check: async (_t, store, id) =>
      expect(await cartOf(store, id)).toEqual([
        { id: THERMAL_ANKLE, q: 1, size: "M", color: "White" },
      ]),
  },
  {
    before: [
      "add the merino wool socks in size M in charcoal and the thermal ankle socks in size M",
    ],
    say: "remove the merino ones",
    calls: [["remove_from_cart", { productId: MERINO }]],
    check: async (_t, store, id) =>
      expect(await cartOf(store, id)).toEqual([
        { id: THERMAL_ANKLE, q: 1, size: "M", color: "White" },
      ]),
  },
  { say: "add a tent", calls: [], reply: /"tent" fits 8 products.*Which one/ },
  {
    before: ["add a tent"],
    say: "the first one",
    calls: [],
    reply: /^Which colour for the Basecamp Family Tent: Green, Orange or Grey\?$/,
  },
  {
    before: ["add a tent", "the first one"],
    say: "green",
    calls: [add("p-0070", { quantity: 1, color: "Green" })],
    reply: /Added 1 × Basecamp Family Tent \(Green\)/,
  },
  {
    say: "add the merino hat",
    // A name the catalog the script knows lacks is looked up (a product may have been renamed).
    calls: [["search_products", { query: "merino hat" }]],
    reply: /couldn't find "merino hat" in the catalog\. The closest is the Merino Wool Socks/,
  },
  {
    before: ["add the merino hat"],
    say: "yes",
    calls: [],
    reply: /Which size and colour for the Merino Wool Socks\\?/,
  },
  {
    before: ["把Nimbus加入购物车"],
    say: "越野的那双",
    calls: [],
    reply: /^Nimbus Trail Shoe要哪个尺码和颜色？/,
    lang: "zh",
  },
  { say: "add the aero", calls: [], reply: /"aero" fits 4 products.*Aero Trail Runner/ },
  {
    say: "add the zebra trail runner",
    calls: [],
    reply: /couldn't find "zebra trail runner" exactly\. Did you mean the Aero Trail Runner/,
  },
  {
    say: "add the flux capacitor",
    calls: [["search_products", { query: "flux capacitor" }]],
    reply: /couldn't find "flux capacitor"/,
  },
  { say: "remove it", calls: [["view_cart", {}]], reply: /cart is empty/ },
  {
    say: "grab me two swift road racers size 9 in red and a headlamp",
    calls: [add(SWIFT, { quantity: 2, size: "US 9", color: "Red" })],
    reply:
      /Added 2 × Swift Road Racer \(size US 9, Red\).*Which one do you mean: the \w+ Headlamp or the \w+ Headlamp\?/,
  },
  {
    before: ["compare the aero trail runner and the swift road racer"],
    say: "add both",
    // Without sizes nothing is added: both are asked about at once.
    calls: [],
    reply:
      /Which size and colour for the Aero Trail Runner\?.*Which size and colour for the Swift Road Racer\?/,
  },
  {
    before: ["compare the aero trail runner and the swift road racer", "add both"],
    say: "10 in volt and 9 in red",
    calls: [
      add(AERO, { size: "US 10", color: "Volt" }),
      add(SWIFT, { size: "US 9", color: "Red" }),
    ],
  },
  {
    before: ["compare the aero trail runner and the swift road racer"],
    say: "add the second one",
    calls: [],
    reply: /Which size and colour for the Swift Road Racer\?/,
  },
  {
    before: ["tell me about the swift road racer"],
    say: "add it in size 9 in white",
    calls: [add(SWIFT, { size: "US 9", color: "White" })],
  },
  // Product details and availability.
  {
    say: "how much is the swift road racer?",
    calls: [["get_product", { productId: SWIFT }]],
    reply: /\$74\.99/,
  },
  {
    say: "is the storm waterproof trail runner in stock",
    calls: [["get_product", { productId: STORM }]],
    reply: /in stock: 4 available/,
  },
  {
    say: "介绍一下Aero越野跑鞋",
    calls: [["get_product", { productId: AERO }]],
    reply: /Aero Trail Runner（Stridewell，跑鞋）：\$89\.00，库存 42 件/,
    lang: "zh",
  },
  {
    before: ["介绍一下Aero越野跑鞋"],
    say: "有10码吗",
    calls: [["get_product", { productId: AERO }]],
    reply: /有的，Aero Trail Runner 有 US 10 码/,
    lang: "zh",
  },
  {
    before: ["show me the swift road racer"],
    say: "is it any good",
    calls: [["get_product", { productId: SWIFT }]],
    reply: /rated 4\.3\/5/,
  },
  { say: "Aero越野跑鞋有货吗", calls: [["get_product", { productId: AERO }]], lang: "zh" },
  // Comparisons by name.
  {
    say: "aero trail runner vs swift road racer",
    calls: [["compare_products", { productIds: [AERO, SWIFT] }]],
  },
  {
    say: "which is better the aero trail runner or the swift road racer",
    calls: [["compare_products", { productIds: [AERO, SWIFT] }]],
  },
  {
    say: "比较一下Aero越野跑鞋和Swift Road Racer",
    calls: [["compare_products", { productIds: [AERO, SWIFT] }]],
    reply: /最便宜的是 Swift Road Racer/,
    lang: "zh",
  },
  // Searches and price filters.
  {
    say: "show me running shoes under 100",
    calls: [
      ["search_products", { query: "running shoes", maxPrice: 100 }],
      ["show_products", {}],
    ],
    reply: /best matches, from \$[\d.]+ to \$[\d.]+/,
  },
  {
    say: "trail shoes between 50 and 80",
    calls: [
      [
        "search_products",
        { query: "trail shoes", minPrice: 50, maxPrice: 80, category: "Running Shoes" },
      ],
      ["show_products", {}],
    ],
  },
  {
    say: "推荐一些跑鞋 100元以下",
    calls: [
      ["search_products", { query: "running shoes", maxPrice: 100 }],
      ["show_products", {}],
    ],
    lang: "zh",
  },
  {
    before: ["compare the aero trail runner and the swift road racer", "add the cheaper one"],
    say: "便宜一点的",
    calls: [
      ["search_products", { maxPrice: 74.98, category: "Running Shoes" }],
      ["show_products", {}],
    ],
    reply: /价格从/,
    lang: "zh",
  },
  { say: "show me something cheaper", calls: [], reply: /Cheaper than what\?/ },
  // Cart, total, orders, checkout questions.
  {
    before: ["add the wool socks in size M in charcoal"],
    say: "whats in my cart",
    calls: [["view_cart", {}]],
  },
  {
    before: ["add the wool socks in size M in charcoal"],
    say: "waht's in my crat",
    calls: [["view_cart", {}]],
    reply: /1 × Merino Wool Socks \(size M, Charcoal\)/,
  },
  {
    before: ["add the wool socks in size M in charcoal"],
    say: "how much is my total",
    calls: [["cart_total", {}]],
    reply: /\$14\.50/,
  },
  {
    before: ["add the wool socks in size M in charcoal"],
    say: "chekout",
    calls: [["checkout", {}]],
    reply: /Order o-/,
  },
  {
    before: ["add the wool socks in size M in charcoal", "结账"],
    say: "我的订单",
    calls: [["my_orders", {}]],
    reply: /您的订单：\no-[0-9a-f]+/,
    lang: "zh",
  },
  {
    say: "结账",
    calls: [["view_cart", {}]],
    reply: /购物车是空的/,
    lang: "zh",
  },
  {
    say: "Don't check out yet, just show me running shoes",
    calls: [],
    reply: /won't place an order/,
  },
  { say: "should I buy it now or wait?", calls: [] },
  // Greetings, thanks, and the rest.
  { say: "hi", calls: [], reply: /scripted shopping assistant/, lang: "en" },
  { say: "你好", calls: [], reply: /脚本购物助手/, lang: "zh" },
  { say: "谢谢", calls: [], reply: /不客气/, lang: "zh" },
  { say: "what is the meaning of life?", calls: [], reply: /scripted shopping assistant/ },
  // Questions for the merchant go through the read-only merchant agent.
  {
    say: "ask the merchant when the Aero trail runner is back in stock",
    calls: [["ask_merchant", {}]],
    // The merchant's answer is the call's result, shown in its card; the reply does not repeat it.
    reply: /^That's the merchant's answer, above\./,
    check: (t) => {
      expect(t.results.join("\n")).toMatch(/Aero Trail Runner is in stock \(42 units\)/);
      expect(t.bubble).not.toMatch(/42 units/);
      expect(t.inner).toEqual([{ name: "restock_eta", input: { productId: AERO } }]);
    },
  },
  {
    say: "bulk discount for 20 merino wool socks",
    calls: [["ask_merchant", {}]],
    check: (t) => {
      expect(t.results.join("\n")).toMatch(/20 × Merino Wool Socks: 10% off/);
      expect(t.inner).toEqual([{ name: "bulk_discount", input: { productId: MERINO, units: 20 } }]);
    },
  },
];

// Catalog ids of the everyday cases (deterministic catalog): one-colour products need no choice.
const ECHO_HRM = "p-0017"; // Echo Heart Rate Monitor, $44.00, one size, White only
const HEADLAMP = "p-0029"; // Vertex Headlamp, $60.99, Silver/White
const JUMP_ROPE = "p-0043"; // Pro Jump Rope, $36.50, Grey only
const GLACIER = "p-0036"; // Glacier Rain Jacket, XS-XXL, Red/Blue/Olive
const STORM_VEST = "p-0025"; // Storm Running Vest
const FOAM_ROLLER = "p-0063"; // Pro Foam Roller
/** "show me wireless earbuds" shows these, in this order (all one size, one colour but Nova). */
const EARBUDS = ["p-0144", "p-0108", "p-0052", "p-0040", "p-0060", "p-0068"] as const;
const [QUANTUM, TITAN, ORBIT, , ECHO_BUDS, VERTEX_BUDS] = EARBUDS; // Titan is the cheapest ($54.99), Quantum the best rated (4.3)
const EARBUDS_SHOWN = ["show me wireless earbuds"];
const EARBUDS_SHOWN_ZH = ["推荐一些无线耳机"];
const WITH_MONITOR = ["add the echo heart rate monitor"];
const AERO_10_SLATE = ["add the aero trail runner in size 10 in slate"];
const ASKS_LANGUAGE = /English or Chinese.*英文或中文|英文或中文.*English or Chinese/s;

/**
 * Conversations as shoppers write them, by kind of request: each asserts the exact calls (product,
 * variant, quantity) or the one question asked instead, and so that nothing else was done.
 */
const EVERYDAY: Phrasing[] = [
  // Sizes and colours anywhere in the sentence, in any order.
  {
    kind: "variant",
    say: "can I get the swift road racer in red, size 9",
    calls: [add(SWIFT, { quantity: 1, size: "US 9", color: "Red" })],
  },
  {
    kind: "variant",
    say: "put a large merino wool socks in charcoal in my cart",
    calls: [add(MERINO, { quantity: 1, size: "L", color: "Charcoal" })],
  },
  {
    kind: "variant",
    say: "把L号的美利奴羊毛袜加入购物车，炭灰色",
    calls: [add(MERINO, { quantity: 1, size: "L", color: "Charcoal" })],
    lang: "zh",
  },
  {
    kind: "variant",
    say: "add the glacier rain jacket in M in red",
    calls: [add(GLACIER, { quantity: 1, size: "M", color: "Red" })],
  },
  {
    kind: "variant",
    say: "size 10, volt, aero trail runner please",
    calls: [add(AERO, { quantity: 1, size: "US 10", color: "Volt" })],
  },
  {
    kind: "variant",
    say: "add a pair of merino socks, medium, oatmeal",
    calls: [add(MERINO, { quantity: 1, size: "M", color: "Oatmeal" })],
  },
  {
    kind: "variant",
    say: "我要38码的Aero越野跑鞋",
    calls: [],
    reply:
      /Aero Trail Runner 没有 38 码。Aero Trail Runner要哪个尺码和颜色？可选：尺码：US 6.*US 13/,
    lang: "zh",
  },
  {
    kind: "variant",
    say: "add the aero trail runner size 11 in navy",
    calls: [],
    reply: /Aero Trail Runner doesn't come in Navy.*Slate or Volt/,
    lang: "en",
  },
  // Quantities in words.
  {
    kind: "quantity",
    say: "add four echo heart rate monitors",
    calls: [add(ECHO_HRM, { quantity: 4 })],
  },
  {
    kind: "quantity",
    say: "三双美利奴羊毛袜，M号，炭灰色",
    calls: [add(MERINO, { quantity: 3, size: "M", color: "Charcoal" })],
    lang: "zh",
  },
  {
    kind: "quantity",
    say: "来一件 echo heart rate monitor",
    calls: [add(ECHO_HRM, { quantity: 1 })],
  },
  {
    kind: "quantity",
    say: "two vertex headlamps in silver please",
    calls: [add(HEADLAMP, { quantity: 2, color: "Silver" })],
  },
  {
    kind: "quantity",
    say: "a couple of pro jump ropes",
    calls: [add(JUMP_ROPE, { quantity: 2 })],
  },
  {
    kind: "quantity",
    say: "给我来两个Echo心率监测器",
    calls: [add(ECHO_HRM, { quantity: 2 })],
    lang: "zh",
  },
  // References to what was shown or is in the cart.
  {
    kind: "reference",
    before: EARBUDS_SHOWN,
    say: "add the third one",
    calls: [add(ORBIT, { quantity: 1 })],
  },
  {
    kind: "reference",
    before: EARBUDS_SHOWN,
    say: "add the last two you showed",
    calls: [add(ECHO_BUDS!, { quantity: 1 }), add(VERTEX_BUDS!, { quantity: 1 })],
  },
  {
    kind: "reference",
    before: EARBUDS_SHOWN,
    say: "I'll take those",
    calls: [],
    reply: /Which of these.*all 6/,
  },
  {
    kind: "reference",
    before: EARBUDS_SHOWN_ZH,
    say: "把后面两件加入购物车",
    calls: [add(ECHO_BUDS!, { quantity: 1 }), add(VERTEX_BUDS!, { quantity: 1 })],
    lang: "zh",
  },
  {
    kind: "reference",
    before: EARBUDS_SHOWN_ZH,
    say: "这个加入购物车",
    calls: [],
    reply: /您指的是哪一款/,
    lang: "zh",
  },
  {
    kind: "reference",
    before: ["tell me about the echo heart rate monitor"],
    say: "ok add it to my cart",
    calls: [add(ECHO_HRM, { quantity: 1 })],
  },
  {
    kind: "reference",
    before: EARBUDS_SHOWN,
    say: "add the second and the third",
    calls: [add(TITAN!, { quantity: 1 }), add(ORBIT!, { quantity: 1 })],
  },
  {
    kind: "reference",
    before: [...WITH_MONITOR, "add the vertex headlamp in white"],
    say: "take the first one out",
    calls: [["remove_from_cart", { productId: ECHO_HRM }]],
  },
  // Corrections.
  {
    kind: "correction",
    before: WITH_MONITOR,
    say: "wait, not that one, the vertex headlamp in silver",
    calls: [["remove_from_cart", { productId: ECHO_HRM }], add(HEADLAMP, { color: "Silver" })],
    check: async (_t, store, id) =>
      expect(await cartOf(store, id)).toEqual([{ id: HEADLAMP, q: 1, color: "Silver" }]),
  },
  {
    kind: "correction",
    before: AERO_10_SLATE,
    say: "swap it for a 9",
    calls: [["update_cart_item", { productId: AERO, size: "US 9" }]],
    check: async (_t, store, id) =>
      expect(await cartOf(store, id)).toEqual([{ id: AERO, q: 1, size: "US 9", color: "Slate" }]),
  },
  {
    kind: "correction",
    before: AERO_10_SLATE,
    say: "换成荧光绿的",
    calls: [["update_cart_item", { productId: AERO, color: "Volt" }]],
    lang: "zh",
  },
  {
    kind: "correction",
    before: AERO_10_SLATE,
    say: "actually make that an 11",
    calls: [["update_cart_item", { productId: AERO, size: "US 11" }]],
  },
  {
    kind: "correction",
    before: ["add the swift road racer in size 9 in red"],
    say: "sorry, I meant white",
    calls: [["update_cart_item", { productId: SWIFT, color: "White" }]],
  },
  {
    kind: "correction",
    before: ["add the merino wool socks in size M in charcoal"],
    say: "no wait, make it a large",
    calls: [["update_cart_item", { productId: MERINO, size: "L" }]],
  },
  // Keeping one line and removing the rest.
  {
    kind: "keep-only",
    before: [...WITH_MONITOR, "add the glacier rain jacket in M in red"],
    say: "only keep the jacket",
    calls: [["remove_from_cart", { productId: ECHO_HRM }]],
    check: async (_t, store, id) =>
      expect(await cartOf(store, id)).toEqual([{ id: GLACIER, q: 1, size: "M", color: "Red" }]),
  },
  {
    kind: "keep-only",
    before: [...WITH_MONITOR, "add the glacier rain jacket in M in red"],
    say: "别的都删掉，只留夹克",
    calls: [["remove_from_cart", { productId: ECHO_HRM }]],
    lang: "zh",
  },
  {
    kind: "keep-only",
    before: [...WITH_MONITOR, "add the vertex headlamp in silver", "add a pro jump rope"],
    say: "remove everything except the headlamp",
    calls: [
      ["remove_from_cart", { productId: ECHO_HRM }],
      ["remove_from_cart", { productId: JUMP_ROPE }],
    ],
    check: async (_t, store, id) =>
      expect(await cartOf(store, id)).toEqual([{ id: HEADLAMP, q: 1, color: "Silver" }]),
  },
  {
    kind: "keep-only",
    before: [...WITH_MONITOR, "add the merino wool socks in M in charcoal"],
    say: "just keep the socks and get rid of the rest",
    calls: [["remove_from_cart", { productId: ECHO_HRM }]],
  },
  // Totals, subtotals and delivery.
  {
    kind: "total",
    before: WITH_MONITOR,
    say: "how much is it all",
    calls: [["cart_total", {}]],
    reply: /\$44\.00 for 1 item/,
  },
  {
    kind: "total",
    before: WITH_MONITOR,
    say: "一共多少钱",
    calls: [["cart_total", {}]],
    reply: /\$44\.00/,
    lang: "zh",
  },
  {
    kind: "total",
    before: WITH_MONITOR,
    say: "what's my subtotal?",
    calls: [["cart_total", {}]],
    reply: /\$44\.00/,
  },
  {
    kind: "total",
    before: WITH_MONITOR,
    say: "how much is delivery?",
    calls: [["cart_total", {}]],
    reply: /no separate delivery charge.*\$44\.00/,
  },
  {
    kind: "total",
    before: WITH_MONITOR,
    say: "运费多少？",
    calls: [["cart_total", {}]],
    reply: /运费.*\$44\.00/,
    lang: "zh",
  },
  // Every common way to say "check out".
  ...[
    "let's wrap this up",
    "I'll buy them",
    "ok that's everything, I'm ready to pay",
    "proceed to checkout please",
    "place my order",
    "that's all for today, check me out",
    "complete my purchase",
    "我要付款",
    "就这些，结算吧",
  ].map(
    (say): Phrasing => ({
      kind: "checkout",
      before: WITH_MONITOR,
      say,
      calls: [["checkout", {}]],
      reply: /Order o-|订单 o-/,
    }),
  ),
  {
    kind: "checkout",
    before: WITH_MONITOR,
    say: "I'm not ready to pay yet",
    calls: [],
    reply: /won't place an order/,
  },
  // The shopper's orders.
  {
    kind: "orders",
    before: [...WITH_MONITOR, "check out"],
    say: "what have I bought before?",
    calls: [["my_orders", {}]],
    reply: /o-[0-9a-f]+ .*Echo Heart Rate Monitor/,
  },
  {
    kind: "orders",
    before: [...WITH_MONITOR, "买单"],
    say: "我的订单呢",
    calls: [["my_orders", {}]],
    reply: /o-[0-9a-f]+/,
    lang: "zh",
  },
  { kind: "orders", say: "我之前买过什么", calls: [["my_orders", {}]], lang: "zh" },
  { kind: "orders", say: "did my order go through?", calls: [["my_orders", {}]] },
  // Questions about a shown product, answered from its facts.
  {
    kind: "attribute",
    before: ["tell me about the aero trail runner"],
    say: "does it come in black",
    calls: [["get_product", { productId: AERO }]],
    reply: /doesn't come in Black.*Slate, Volt/,
  },
  {
    kind: "attribute",
    before: ["tell me about the merino wool socks"],
    say: "what's it made of",
    calls: [["get_product", { productId: MERINO }]],
    reply: /merino wool/,
  },
  {
    kind: "attribute",
    before: ["介绍一下Storm防水越野跑鞋"],
    say: "适合下雨天吗",
    calls: [["get_product", { productId: STORM }]],
    reply: /防水/,
    lang: "zh",
  },
  {
    kind: "attribute",
    before: ["tell me about the aero trail runner"],
    say: "is it waterproof?",
    calls: [["get_product", { productId: AERO }]],
    reply: /doesn't say the Aero Trail Runner is waterproof/,
  },
  {
    kind: "attribute",
    before: ["介绍一下Glacier Rain Jacket"],
    say: "有蓝色的吗",
    calls: [["get_product", { productId: GLACIER }]],
    reply: /有的.*Blue/,
    lang: "zh",
  },
  // Superlatives over what was shown.
  {
    kind: "superlative",
    before: EARBUDS_SHOWN,
    say: "add the lowest price one",
    calls: [add(TITAN!, { quantity: 1 })],
  },
  {
    kind: "superlative",
    before: EARBUDS_SHOWN,
    say: "which one is top rated",
    calls: [],
    reply: /Quantum Wireless Earbuds.*4\.3/,
  },
  {
    kind: "superlative",
    before: EARBUDS_SHOWN_ZH,
    say: "评分最高的是哪个",
    calls: [],
    reply: /Quantum Wireless Earbuds/,
    lang: "zh",
  },
  {
    kind: "superlative",
    before: EARBUDS_SHOWN,
    say: "I'll take the cheapest",
    calls: [add(TITAN!, { quantity: 1 })],
  },
  {
    kind: "superlative",
    before: EARBUDS_SHOWN_ZH,
    say: "最便宜的那个加入购物车",
    calls: [add(TITAN!, { quantity: 1 })],
    lang: "zh",
  },
  {
    kind: "superlative",
    before: EARBUDS_SHOWN,
    say: "add the highest rated one",
    calls: [add(QUANTUM!, { quantity: 1 })],
  },
  // Comparing what was shown: an answer, never an addition.
  {
    kind: "compare",
    before: ["show me running shoes under 100"],
    say: "which of these is lighter",
    calls: [],
    reply: /Aero Trail Runner.*Swift Road Racer|Swift Road Racer.*Aero Trail Runner/,
  },
  {
    kind: "compare",
    before: EARBUDS_SHOWN,
    say: "which of these is the cheapest?",
    calls: [],
    reply: /Titan Wireless Earbuds.*\$54\.99/,
  },
  {
    kind: "compare",
    before: EARBUDS_SHOWN,
    say: "which is better, the first or the second?",
    calls: [["compare_products", { productIds: [QUANTUM, TITAN] }]],
  },
  {
    kind: "compare",
    before: EARBUDS_SHOWN_ZH,
    say: "比较一下前两款",
    calls: [["compare_products", { productIds: [QUANTUM, TITAN] }]],
    lang: "zh",
  },
  // A request buried in a long, polite message.
  {
    kind: "buried",
    say: "Hi there! I hope you're having a lovely day. My sister has a birthday next week and she just started running, so I was wondering if you could show me some running socks. Thank you so much!",
    calls: [
      ["search_products", { query: "running socks" }],
      ["show_products", {}],
    ],
  },
  {
    kind: "buried",
    say: "Hello, sorry to bother you. I bought stuff last month and I can't remember what it was, could you show me my past orders please? Thanks a lot.",
    calls: [["my_orders", {}]],
  },
  {
    kind: "buried",
    say: "Good morning! We're going camping this weekend and my old one broke. Could you add the vertex headlamp in silver to my cart? Thanks!",
    calls: [add(HEADLAMP, { quantity: 1, color: "Silver" })],
  },
  {
    kind: "buried",
    say: "您好，打扰一下。我下周要去跑马拉松，想请您帮我推荐几款跑步袜，谢谢！",
    calls: [
      ["search_products", { query: "running socks" }],
      ["show_products", {}],
    ],
    lang: "zh",
  },
  {
    kind: "buried",
    say: "hey so I was out running yesterday and it started pouring, my shoes got soaked lol. anyway do you have any waterproof trail shoes?",
    calls: [
      ["search_products", { query: "waterproof trail shoes" }],
      ["show_products", {}],
    ],
  },
  // Typos fixed without changing the words that were right.
  {
    kind: "typo",
    say: "add the aero trail runner in size 10 in volt and the merino wool sox in M charcoal",
    calls: [
      add(AERO, { quantity: 1, size: "US 10", color: "Volt" }),
      add(MERINO, { quantity: 1, size: "M", color: "Charcoal" }),
    ],
  },
  {
    kind: "typo",
    say: "add the echo hart rate moniter",
    calls: [add(ECHO_HRM, { quantity: 1 })],
  },
  { kind: "typo", before: WITH_MONITOR, say: "chekc out", calls: [["checkout", {}]] },
  {
    kind: "typo",
    before: WITH_MONITOR,
    say: "remvoe the echo heart rate monitor",
    calls: [["remove_from_cart", { productId: ECHO_HRM }]],
  },
  {
    kind: "typo",
    say: "show me the storm running vest",
    calls: [["show_products", { productIds: [STORM_VEST] }]],
  },
  {
    kind: "typo",
    say: "whats the price of the pro foam roler",
    calls: [["get_product", { productId: FOAM_ROLLER }]],
  },
  // Other languages: a polite answer in the languages the assistant writes.
  ...[
    "Bonjour, je cherche des chaussures de course",
    "Hola, quiero comprar unos calcetines",
    "Guten Tag, ich suche Laufschuhe",
    "こんにちは、ランニングシューズを探しています",
    "안녕하세요 운동화 보여주세요",
  ].map((say): Phrasing => ({ kind: "other-language", say, calls: [], reply: ASKS_LANGUAGE })),
  // Partly understood: one specific question, not the list of what the assistant can do.
  {
    kind: "question",
    say: "add some socks in M",
    calls: [],
    reply: /Which one do you mean|"socks" fits \d+ products/,
  },
  {
    kind: "question",
    say: "I want to buy something for my dad",
    calls: [],
    reply: /What kind of product/,
  },
  {
    kind: "question",
    before: AERO_10_SLATE,
    say: "change the size",
    calls: [],
    reply: /Which size for the Aero Trail Runner/,
  },
  {
    kind: "question",
    before: [...WITH_MONITOR, "add a pro jump rope"],
    say: "remove one",
    calls: [],
    reply: /Which one do you mean: the Echo Heart Rate Monitor or the Pro Jump Rope\?/,
  },
  // The README's and the welcome screen's suggestions do what they say.
  {
    kind: "suggestion",
    say: "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart and tell me the total",
    calls: [
      add(AERO, { quantity: 1, size: "US 10", color: "Volt" }),
      add(MERINO, { quantity: 1, size: "M", color: "Charcoal" }),
      ["cart_total", {}],
    ],
    reply: /\$103\.50 for 2 items/,
  },
  {
    kind: "suggestion",
    say: "show me running shoes under 100",
    calls: [
      ["search_products", { maxPrice: 100 }],
      ["show_products", {}],
    ],
  },
  {
    kind: "suggestion",
    before: ["show me running shoes under 100"],
    say: "compare these two",
    calls: [["compare_products", {}]],
  },
  {
    kind: "suggestion",
    say: "ask the merchant when the Aero trail runner is back in stock",
    calls: [["ask_merchant", {}]],
  },
  {
    kind: "suggestion",
    say: "把10码荧光绿的Aero越野跑鞋加入购物车，然后算一下总价",
    calls: [add(AERO, { quantity: 1, size: "US 10", color: "Volt" }), ["cart_total", {}]],
    reply: /\$89\.00/,
    lang: "zh",
  },
  {
    kind: "suggestion",
    before: [...WITH_MONITOR],
    say: "check out",
    calls: [["checkout", {}]],
  },
  {
    kind: "suggestion",
    before: EARBUDS_SHOWN_ZH,
    say: "帮我把前两件商品加入购物车再算一下总价",
    calls: [add(QUANTUM!, { quantity: 1 }), add(TITAN!, { quantity: 1 }), ["cart_total", {}]],
    reply: /已加入购物车.*总价 \$223\.99/,
    lang: "zh",
  },
  {
    kind: "suggestion",
    before: ["推荐几款跑鞋"],
    say: "帮我把前两件商品加入购物车再算一下总价",
    calls: [],
    reply: /Horizon Trail Shoe要哪个尺码.*Rapid Trail Shoe要哪个尺码和颜色/,
    lang: "zh",
  },
  {
    kind: "suggestion",
    before: ["add the aero trail runner"],
    say: "the 10 in Volt",
    calls: [add(AERO, { quantity: 1, size: "US 10", color: "Volt" })],
  },
  // More wordings of the same kinds, written apart from the ones above.
  {
    kind: "variant",
    say: "I'd like the pacer daily trainer, size 8, black",
    calls: [add("p-0004", { quantity: 1, size: "US 8", color: "Black" })],
  },
  {
    kind: "variant",
    say: "can you put the storm waterproof trail runner in olive size 12 in my basket",
    calls: [add(STORM, { quantity: 1, size: "US 12", color: "Olive" })],
  },
  {
    kind: "variant",
    before: ["add the glacier rain jacket"],
    say: "medium, blue",
    calls: [add(GLACIER, { quantity: 1, size: "M", color: "Blue" })],
  },
  {
    kind: "variant",
    before: ["add the glacier rain jacket"],
    say: "M",
    calls: [],
    reply: /^Which colour for the Glacier Rain Jacket: Red, Blue or Olive\?$/,
  },
  {
    kind: "quantity",
    say: "grab me 3 pairs of merino wool socks size L oatmeal",
    calls: [add(MERINO, { quantity: 3, size: "L", color: "Oatmeal" })],
  },
  {
    kind: "quantity",
    say: "我想买两双Aero越野跑鞋，9码，灰蓝色",
    calls: [add(AERO, { quantity: 2, size: "US 9", color: "Slate" })],
    lang: "zh",
  },
  {
    kind: "quantity",
    say: "add five of the pro jump rope",
    calls: [add(JUMP_ROPE, { quantity: 5 })],
  },
  {
    kind: "quantity",
    before: WITH_MONITOR,
    say: "add another one",
    calls: [add(ECHO_HRM, { quantity: 1 })],
  },
  {
    kind: "reference",
    before: ["show me headlamps"],
    say: "I want the first one in white",
    calls: [add(HEADLAMP, { quantity: 1, color: "White" })],
  },
  {
    kind: "reference",
    before: ["show me some yoga mats"],
    say: "add both",
    calls: [],
    reply: /Which of these should I add: all 3/,
  },
  {
    kind: "superlative",
    before: EARBUDS_SHOWN,
    say: "the cheapest one please",
    calls: [add(TITAN!, { quantity: 1 })],
  },
  {
    kind: "superlative",
    before: ["show me rain jackets"],
    say: "which of these has the best reviews",
    calls: [],
    reply: /best rated of these is the Squall Rain Jacket/,
  },
  {
    kind: "superlative",
    before: ["show me rain jackets"],
    say: "哪个最便宜",
    calls: [],
    reply: /最便宜的是 Aurora Rain Jacket/,
    lang: "zh",
  },
  {
    kind: "keep-only",
    before: [...WITH_MONITOR, "add a pro jump rope"],
    say: "get rid of everything but the rope",
    calls: [["remove_from_cart", { productId: ECHO_HRM }]],
  },
  {
    kind: "keep-only",
    before: [...WITH_MONITOR, "add a pro jump rope"],
    say: "just the jump rope, remove the rest",
    calls: [["remove_from_cart", { productId: ECHO_HRM }]],
  },
  {
    kind: "total",
    before: WITH_MONITOR,
    say: "how much do I owe you",
    calls: [["cart_total", {}]],
    reply: /\$44\.00/,
  },
  {
    kind: "total",
    before: WITH_MONITOR,
    say: "is there free shipping?",
    calls: [["cart_total", {}]],
    reply: /no separate delivery charge/,
  },
  ...[
    "ok I'm done, let's checkout",
    "go ahead and place the order",
    "buy it",
    "好了，帮我结账",
  ].map(
    (say): Phrasing => ({
      kind: "checkout",
      before: WITH_MONITOR,
      say,
      calls: [["checkout", {}]],
    }),
  ),
  {
    kind: "checkout",
    before: WITH_MONITOR,
    say: "can I check out?",
    calls: [],
    reply: /won't place an order until you ask/,
  },
  {
    kind: "checkout",
    before: ["tell me about the echo heart rate monitor"],
    say: "buy it",
    calls: [["view_cart", {}], add(ECHO_HRM, { quantity: 1 })],
  },
  { kind: "orders", say: "show me my order history", calls: [["my_orders", {}]] },
  { kind: "orders", say: "我上次买了什么", calls: [["my_orders", {}]], lang: "zh" },
  {
    kind: "attribute",
    before: ["tell me about the glacier rain jacket"],
    say: "is it good for hiking in the rain?",
    calls: [["get_product", { productId: GLACIER }]],
    reply: /Glacier Rain Jacket as waterproof/,
  },
  {
    kind: "attribute",
    before: ["tell me about the merino wool socks"],
    say: "are they warm?",
    calls: [["get_product", { productId: MERINO }]],
    reply: /^Yes, the Merino Wool Socks/,
  },
  {
    kind: "attribute",
    before: ["tell me about the merino wool socks"],
    say: "这个是什么材质的",
    calls: [["get_product", { productId: MERINO }]],
    reply: /美利奴羊毛/,
    lang: "zh",
  },
  {
    kind: "compare",
    before: ["show me running shoes"],
    say: "compare the first three",
    calls: [["compare_products", { productIds: ["p-0009", "p-0202", "p-0072"] }]],
  },
  {
    kind: "buried",
    say: "Hey! Quick question, my friend recommended your shop. I'm training for a 10k and need new shoes. What do you have in road running shoes under 80? Cheers",
    calls: [
      ["search_products", { query: "road running shoes", maxPrice: 80 }],
      ["show_products", {}],
    ],
  },
  {
    kind: "buried",
    say: "你好！我最近开始跑步了，朋友推荐了你们店，想问一下有没有适合新手的跑鞋？",
    calls: [
      ["search_products", { category: "Running Shoes" }],
      ["show_products", {}],
    ],
    lang: "zh",
  },
  {
    kind: "typo",
    say: "add the aero trial runner sise 10 in volt",
    calls: [add(AERO, { quantity: 1, size: "US 10", color: "Volt" })],
  },
  {
    kind: "typo",
    say: "compare the aero trial runner and the swfit road racer",
    calls: [["compare_products", { productIds: [AERO, SWIFT] }]],
  },
  ...["Ciao, vorrei delle scarpe da corsa", "Привет, покажи кроссовки"].map(
    (say): Phrasing => ({ kind: "other-language", say, calls: [], reply: ASKS_LANGUAGE }),
  ),
  { kind: "question", say: "I need a gift", calls: [], reply: /What kind of product/ },
  {
    kind: "question",
    before: WITH_MONITOR,
    say: "change it",
    calls: [],
    reply: /What should I change on the Echo Heart Rate Monitor/,
  },
  {
    kind: "suggestion",
    say: "给我看看100美元以下的跑鞋",
    calls: [
      ["search_products", { maxPrice: 100 }],
      ["show_products", {}],
    ],
    lang: "zh",
  },
  {
    kind: "suggestion",
    say: "问问商家Aero越野跑鞋什么时候补货",
    calls: [["ask_merchant", {}]],
    lang: "zh",
  },
  // Chinese and mixed conversations, written apart from the ones above.
  {
    kind: "reference",
    before: ["推荐几款耳机"],
    say: "第二个加入购物车",
    calls: [add(TITAN!, { quantity: 1 })],
    lang: "zh",
  },
  {
    kind: "reference",
    before: ["推荐几款耳机"],
    say: "把第一款和第三款加入购物车",
    calls: [add(QUANTUM!, { quantity: 1 }), add(ORBIT!, { quantity: 1 })],
    lang: "zh",
  },
  {
    kind: "reference",
    before: ["show me wireless earbuds"],
    say: "第三个加入购物车",
    calls: [add(ORBIT!, { quantity: 1 })],
    lang: "zh",
  },
  {
    kind: "reference",
    before: ["推荐几款耳机"],
    say: "add the second one",
    calls: [add(TITAN!, { quantity: 1 })],
    lang: "en",
  },
  {
    kind: "superlative",
    before: ["推荐几款耳机"],
    say: "最便宜的那款多少钱",
    calls: [["get_product", { productId: TITAN }]],
    reply: /Titan Wireless Earbuds.*\$54\.99/,
    lang: "zh",
  },
  {
    kind: "superlative",
    before: ["推荐几款耳机"],
    say: "这几款哪个评分高",
    calls: [],
    reply: /评分最高的是 Quantum Wireless Earbuds/,
    lang: "zh",
  },
  {
    kind: "compare",
    before: ["推荐几款耳机"],
    say: "对比一下前三款",
    calls: [["compare_products", { productIds: [QUANTUM, TITAN, ORBIT] }]],
    lang: "zh",
  },
  {
    kind: "quantity",
    say: "帮我加一个Echo心率带",
    calls: [add(ECHO_HRM, { quantity: 1 })],
    lang: "zh",
  },
  {
    kind: "quantity",
    say: "来两件Glacier Rain Jacket，L号，蓝色",
    calls: [add(GLACIER, { quantity: 2, size: "L", color: "Blue" })],
    lang: "zh",
  },
  {
    kind: "quantity",
    before: ["帮我加一个Echo心率带"],
    say: "再来一个",
    calls: [add(ECHO_HRM, { quantity: 1 })],
    lang: "zh",
  },
  {
    kind: "quantity",
    before: ["帮我加一个Echo心率带"],
    say: "改成3个",
    calls: [["update_cart_item", { productId: ECHO_HRM, quantity: 3 }]],
    lang: "zh",
  },
  {
    kind: "quantity",
    say: "I want 两双 merino wool socks in M charcoal",
    calls: [add(MERINO, { quantity: 2, size: "M", color: "Charcoal" })],
    lang: "en",
  },
  {
    kind: "variant",
    before: ["把美利奴羊毛袜加入购物车", "M号"],
    say: "燕麦色",
    calls: [add(MERINO, { quantity: 1, size: "M", color: "Oatmeal" })],
    lang: "zh",
  },
  {
    kind: "variant",
    say: "我要一双Swift Road Racer，42码",
    calls: [],
    reply: /Swift Road Racer 没有 42 码。Swift Road Racer要哪个尺码和颜色/,
    lang: "zh",
  },
  {
    kind: "variant",
    say: "把10码的Aero越野跑鞋加入购物车，Slate色",
    calls: [add(AERO, { quantity: 1, size: "US 10", color: "Slate" })],
    lang: "zh",
  },
  {
    kind: "variant",
    say: "帮我把 merino wool socks M号 charcoal 加入购物车",
    calls: [add(MERINO, { quantity: 1, size: "M", color: "Charcoal" })],
    lang: "zh",
  },
  {
    kind: "correction",
    before: ["把10码的Aero越野跑鞋加入购物车，Slate色"],
    say: "换成11码",
    calls: [["update_cart_item", { productId: AERO, size: "US 11" }]],
    lang: "zh",
  },
  {
    kind: "correction",
    before: ["把10码的Aero越野跑鞋加入购物车，Slate色"],
    say: "不对，我要的是Swift Road Racer，9码红色",
    calls: [
      ["remove_from_cart", { productId: AERO }],
      add(SWIFT, { quantity: 1, size: "US 9", color: "Red" }),
    ],
    lang: "zh",
  },
  {
    kind: "keep-only",
    before: ["帮我加一个Echo心率带", "加一个Pro Jump Rope"],
    say: "只要跳绳，其他的都删掉",
    calls: [["remove_from_cart", { productId: ECHO_HRM }]],
    lang: "zh",
  },
  {
    kind: "total",
    before: ["帮我加一个Echo心率带"],
    say: "总共多少钱？",
    calls: [["cart_total", {}]],
    reply: /^购物车总价 \$44\.00，共 1 件。$/,
    lang: "zh",
  },
  {
    kind: "checkout",
    before: ["帮我加一个Echo心率带"],
    say: "下单吧",
    calls: [["checkout", {}]],
    lang: "zh",
  },
  {
    kind: "checkout",
    before: ["帮我加一个Echo心率带"],
    say: "先不结账",
    calls: [],
    reply: /不会下单/,
    lang: "zh",
  },
  {
    kind: "attribute",
    before: ["介绍一下Aero越野跑鞋"],
    say: "有黑色的吗",
    calls: [["get_product", { productId: AERO }]],
    reply: /没有黑色.*石板灰、荧光绿/,
    lang: "zh",
  },
  {
    kind: "attribute",
    before: ["介绍一下Aero越野跑鞋"],
    say: "轻吗",
    calls: [["get_product", { productId: AERO }]],
    reply: /轻量款/,
    lang: "zh",
  },
  {
    kind: "attribute",
    before: ["tell me about the Storm Waterproof Trail Runner"],
    say: "适合下雨天吗",
    calls: [["get_product", { productId: STORM }]],
    reply: /防水/,
    lang: "zh",
  },
  { kind: "orders", say: "我的订单到哪了", calls: [["my_orders", {}]], lang: "zh" },
  { kind: "orders", say: "您好，我想看看我以前的订单", calls: [["my_orders", {}]], lang: "zh" },
  {
    kind: "question",
    say: "你们有什么",
    calls: [],
    reply: /^本店有跑鞋、袜子.*例如「推荐100美元以下的跑鞋」。$/,
    lang: "zh",
  },
  {
    kind: "question",
    say: "what do you sell?",
    calls: [],
    reply: /^We sell running shoes, socks/,
    lang: "en",
  },
  {
    kind: "search",
    say: "有没有200块以下的跑鞋",
    calls: [
      ["search_products", { maxPrice: 200, category: "Running Shoes" }],
      ["show_products", {}],
    ],
    lang: "zh",
  },
  {
    kind: "search",
    say: "帮我找一下冲锋衣",
    calls: [
      ["search_products", { query: "rain jacket" }],
      ["show_products", {}],
    ],
    lang: "zh",
  },
  // Wordings that once led to a wrong action: none may act on a guess.
  {
    kind: "no-wrong-action",
    say: "don't add the echo heart rate monitor",
    calls: [],
    reply: /leave your cart as it is/,
  },
  {
    kind: "no-wrong-action",
    say: "check out the storm waterproof trail runner",
    calls: [["get_product", { productId: STORM }]],
  },
  {
    kind: "no-wrong-action",
    say: "should I add the echo heart rate monitor?",
    calls: [["get_product", { productId: ECHO_HRM }]],
  },
  {
    kind: "no-wrong-action",
    before: [...WITH_MONITOR, "add a pro jump rope"],
    say: "I don't want the echo",
    calls: [["remove_from_cart", { productId: ECHO_HRM }]],
  },
  {
    kind: "no-wrong-action",
    before: [...WITH_MONITOR, "add a pro jump rope", "show me headlamps"],
    say: "remove the second one",
    calls: [["remove_from_cart", { productId: JUMP_ROPE }]],
  },
  {
    kind: "no-wrong-action",
    before: ["compare the aero trail runner and the swift road racer"],
    say: "I'll go with the cheaper one",
    calls: [],
    reply: /^Which size and colour for the Swift Road Racer\?/,
  },
  {
    kind: "no-wrong-action",
    say: "add the aero trail runner in size 10.5 in volt",
    calls: [],
    reply: /doesn't come in size 10\.5/,
  },
  {
    kind: "quantity",
    say: "add a dozen pro jump ropes",
    calls: [add(JUMP_ROPE, { quantity: 12 })],
    reply: /at most 10/,
  },
  {
    kind: "total",
    before: WITH_MONITOR,
    say: "how many items are in my cart?",
    calls: [["view_cart", {}]],
    reply: /1 item, total \$44\.00/,
  },
  { kind: "thanks", before: WITH_MONITOR, say: "that's all", calls: [], reply: /welcome/ },
  {
    kind: "buried",
    say: "Could you please help me find a tent for two people under 600 dollars? Thank you!",
    calls: [
      ["search_products", { maxPrice: 600 }],
      ["show_products", {}],
    ],
    check: (t) => expect(String(t.calls[0]?.input.query)).not.toMatch(/help|could|thank/),
  },
  {
    kind: "superlative",
    say: "I'd love to see your best rated running shoes",
    calls: [
      ["search_products", { query: "running shoes" }],
      ["show_products", {}],
    ],
    check: (t) => {
      const ids = t.calls[1]!.input.productIds as string[];
      const ratings = ids.map((id) => generateCatalog().find((p) => p.id === id)!.rating);
      expect(ratings).toEqual([...ratings].sort((a, b) => b - a));
    },
  },
  {
    kind: "variant",
    before: ["add the aero trail runner"],
    say: "whatever size 10 you have in slate",
    calls: [add(AERO, { quantity: 1, size: "US 10", color: "Slate" })],
  },
  {
    kind: "correction",
    before: ["add the merino wool socks in size M in charcoal"],
    say: "change the color to oatmeal",
    calls: [["update_cart_item", { productId: MERINO, color: "Oatmeal" }]],
  },
  {
    kind: "question",
    before: ["add the merino wool socks in size M in charcoal"],
    say: "and the same in oatmeal",
    calls: [],
    reply: /^Which size for the Merino Wool Socks: S, M, L, XL\?$/,
  },
  {
    kind: "attribute",
    before: ["show me backpacks under 150"],
    say: "does the first one come in black?",
    calls: [["get_product", {}]],
    reply: /comes in Black.*Want me to add one in Black\?/,
  },
  {
    kind: "correction",
    before: [...WITH_MONITOR],
    say: "I changed my mind, remove everything",
    calls: [["clear_cart", {}]],
  },
];

/** The merchant's store changes as the cases run: expectations read it right before each turn. */
const priceOf = async (store: ShopStore, id: string) => (await store.getProduct(id))!.priceCents;
const stockOf = async (store: ShopStore, id: string) => (await store.getProduct(id))!.stock;

const MERCHANT: Phrasing[] = [
  {
    say: "show the inventory of trail shoes",
    calls: [["show_inventory", {}]],
    reply: /^12 products, \d+ units in all\. Lowest stock: Storm Waterproof Trail Runner \(4\)/,
    check: async (t, store) => {
      const ids = t.calls[0]!.input.productIds as string[];
      expect(ids).toHaveLength(12);
      for (const id of ids) {
        const p = (await store.getProduct(id))!;
        expect(p.category).toBe("Running Shoes");
        expect(p.tags).toContain("trail");
      }
    },
  },
  {
    say: "库存不足的商品有哪些？",
    calls: [["low_stock_report", { threshold: 5 }]],
    reply: /^有 \d+ 款商品库存不多于 5 件：.+（已售罄）.*等（其余 \d+ 款见卡片）。/,
    lang: "zh",
  },
  {
    say: "how many merino socks are left",
    calls: [["show_inventory", { productIds: [MERINO] }]],
    reply: /The Merino Wool Socks has 120 units in stock, at \$14\.50/,
  },
  {
    say: "查看越野跑鞋的库存",
    calls: [["show_inventory", {}]],
    reply: /^共 12 款商品，总库存 \d+ 件/,
    lang: "zh",
  },
  {
    // Several products: one call the merchant confirms (merchant-phrasings.test.ts has more).
    say: "restock everything under 5 units",
    calls: async (store) => [
      ["low_stock_report", { threshold: 4 }],
      [
        "restock_products",
        { productIds: (await store.lowStock(4)).map((p) => p.id), quantity: 20 },
      ],
    ],
    reply: /^Restocked \d+ products?: /,
    check: async (_t, store) => expect(await store.lowStock(4)).toEqual([]),
  },
  {
    say: "raise the price of the aero trail runner by 10%",
    calls: async (store) => [
      ["show_inventory", { productIds: [AERO] }],
      [
        "set_price",
        { productId: AERO, price: Math.round((await priceOf(store, AERO)) * 1.1) / 100 },
      ],
    ],
    reply: /the Aero Trail Runner now costs \$97\.90/,
  },
  {
    say: "lower the price of merino wool socks by $2",
    calls: async (store) => [
      ["show_inventory", { productIds: [MERINO] }],
      ["set_price", { productId: MERINO, price: ((await priceOf(store, MERINO)) - 200) / 100 }],
    ],
  },
  {
    say: "set the price of merino wool socks to 12.99",
    calls: [["set_price", { productId: MERINO, price: 12.99 }]],
  },
  {
    say: "Aero越野跑鞋涨价10%",
    calls: async (store) => [
      ["show_inventory", { productIds: [AERO] }],
      [
        "set_price",
        { productId: AERO, price: Math.round((await priceOf(store, AERO)) * 1.1) / 100 },
      ],
    ],
    reply: /已完成：Aero Trail Runner 的价格现在是 \$[\d.]+。/,
    lang: "zh",
  },
  {
    say: "美利奴羊毛袜打九折",
    calls: async (store) => [
      ["show_inventory", { productIds: [MERINO] }],
      [
        "set_price",
        { productId: MERINO, price: Math.round((await priceOf(store, MERINO)) * 0.9) / 100 },
      ],
    ],
    lang: "zh",
  },
  {
    say: "把美利奴羊毛袜的价格改成14.50",
    calls: [["set_price", { productId: MERINO, price: 14.5 }]],
    lang: "zh",
  },
  {
    say: "restock the aero trail runner with 30",
    calls: [["restock", { productId: AERO, quantity: 30 }]],
  },
  {
    say: "把Storm防水越野跑鞋补货30件",
    calls: [["restock", { productId: STORM, quantity: 30 }]],
    lang: "zh",
  },
  {
    say: "restock the aero trail runner to 120",
    calls: [["restock_products", { productIds: [AERO], upTo: 120 }]],
    check: async (_t, store) => expect(await stockOf(store, AERO)).toBe(120),
  },
  {
    say: "restock all socks with 10",
    calls: [["restock_products", { quantity: 10 }]],
  },
  {
    say: "restock the socks",
    calls: [],
    reply: /"socks" fits \d+ products .*Which one\? Or say "all socks"/,
  },
  { say: "list recent orders", calls: [["list_orders", { limit: 10 }]] },
  {
    say: "restock the aero trail runner with 1",
    calls: [["restock", { productId: AERO, quantity: 1 }]],
    reply: /^Restocked 1 product: Aero Trail Runner \(now \d+\)\.$/,
  },
  {
    say: "when will the storm waterproof trail runner be restocked",
    calls: [["restock_eta", { productId: STORM }]],
    reply: /the next restock arrives in \d+ days? \(|is in stock \(\d+ units?\), so no restock/,
    check: (t) => expect(t.final).not.toMatch(/\b1 days\b|\(1 units\)/),
  },

  { say: "销售汇总", calls: [["sales_summary", { top: 5 }]], reply: /^共 \d+ 个订单/, lang: "zh" },
  {
    say: "什么时候补货Storm防水越野跑鞋",
    calls: [["restock_eta", { productId: STORM }]],
    lang: "zh",
  },
  { say: "hi", calls: [], reply: /merchant's scripted assistant/ },
];

describe("the scripted model understands shoppers", () => {
  it.each(
    SHOPPER.map((p) => [p.before ? `${p.say} (after ${p.before.join(" / ")})` : p.say, p] as const),
  )("%s", async (_title, p) => {
    await run(p);
  });
});

describe("the scripted model understands everyday shoppers", () => {
  it.each(
    EVERYDAY.map(
      (p) =>
        [`[${p.kind}] ${p.say}${p.before ? ` (after ${p.before.join(" / ")})` : ""}`, p] as const,
    ),
  )("%s", async (_title, p) => {
    await run(p);
  });
});

describe("the scripted model understands merchants", () => {
  it.each(MERCHANT.map((p) => [p.say, { ...p, who: "merchant" as const }] as const))(
    "%s",
    async (_title, p) => {
      await run(p);
    },
  );
});
