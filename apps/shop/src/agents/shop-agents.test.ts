import { type AgentEvent, type Message, runAgentTurn } from "overlap-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../db/open-store.js";
import type { ShopStore } from "../db/shop-store.js";
import { modelFromEnv, type ShopModel } from "../model/model-from-env.js";
import { shopPolicy } from "../model/shop-policy.js";
import { createShopAgents, type ShopAgents } from "./shop-agents.js";

let store: ShopStore;
let shop: ShopModel;
let agents: ShopAgents;

beforeAll(async () => {
  store = await openStore({ sqliteFile: ":memory:" });
  // Paced like a fast real model, so the overlap of tools with generation is real.
  shop = await modelFromEnv({
    env: {},
    policy: shopPolicy,
    pacing: { tokensPerSecond: 600, firstTokenMs: 10, jitter: 0 },
  });
  agents = createShopAgents({ store, model: shop.model });
});
afterAll(async () => {
  await shop.close();
  await store.close();
});

/** Runs one turn of a session, continuing its conversation. */
async function turn(sessionId: string, text: string, who: "shopper" | "merchant" = "shopper") {
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
    // The shopper confirms whatever is asked (checkout waits for it).
    approvals: { wait: async () => ({ approve: true }) },
  });
  await store.conversations.write(sessionId, 0, result.messages);
  const finalText = result.messages.at(-1)?.content;
  return {
    result,
    events,
    finalText:
      typeof finalText === "string"
        ? finalText
        : (finalText ?? []).map((b) => ("text" in b ? b.text : "")).join(""),
  };
}

describe("the shop agents on the embedded scripted model", () => {
  it("is labelled honestly as a scripted model", () => {
    expect(shop.scripted).toBe(true);
    expect(shop.label.startsWith("scripted-")).toBe(true);
  });

  it("demo: adds both items in one response, tools start while it streams, the total is right", async () => {
    const { id } = await store.createSession("shopper");
    const { result, events, finalText } = await turn(
      id,
      "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart and tell me the total",
    );
    expect(result.error).toBeUndefined();
    const round1 = events.filter((e) => "round" in e && e.round === 1);
    const calls = round1
      .filter((e) => e.type === "tool-call")
      .map((e) => (e as { name: string }).name);
    expect(calls).toEqual(["add_to_cart", "add_to_cart", "cart_total"]);
    // eager: the first add is running before the model finished the last call's block
    const firstRunning = round1.findIndex(
      (e) => e.type === "tool-status" && e.status === "running",
    );
    const lastStart = round1.findLastIndex((e) => e.type === "tool-call-start");
    expect(firstRunning).toBeGreaterThan(-1);
    expect(firstRunning).toBeLessThan(lastStart);
    // results in call order, and the total (run in the same round) sees both adds (FIFO lock)
    const results = round1.filter((e) => e.type === "tool-result") as Array<
      Extract<AgentEvent, { type: "tool-result" }>
    >;
    expect(results.map((r) => r.name)).toEqual(["add_to_cart", "add_to_cart", "cart_total"]);
    expect(results[2]?.resultText).toContain("$103.50 for 2 items");
    const cart = await store.getCart(id);
    expect(cart.lines.map((l) => [l.productId, l.quantity])).toEqual([
      ["p-0001", 1],
      ["p-0002", 1],
    ]);
    expect(finalText).toContain("$103.50");
    expect(events.some((e) => e.type === "ui" && e.ui.type === "cart-updated")).toBe(true);
  });

  it("search: a progressive card then a final card of running shoes under $100 with live prices", async () => {
    const { id } = await store.createSession("shopper");
    const { result, events } = await turn(id, "show me running shoes under 100");
    expect(result.error).toBeUndefined();
    const card = events.find((e) => e.type === "ui" && e.ui.type === "product-cards") as Extract<
      AgentEvent,
      { type: "ui" }
    >;
    const shown = card.ui.products as Array<{ priceCents: number; category: string }>;
    expect(shown.length).toBeGreaterThan(1);
    expect(shown.every((p) => p.priceCents <= 10_000)).toBe(true);
    const previews = events.filter(
      (e) => e.type === "tool-input-preview" && e.callId === card.callId,
    );
    expect(previews.length).toBeGreaterThan(0);
  });

  it("Chinese: asks the sizes of the two shown products instead of adding them; compare works on what was shown", async () => {
    const { id } = await store.createSession("shopper");
    await turn(id, "show me running shoes under 100");
    const compared = await turn(id, "compare these two");
    expect(compared.events.some((e) => e.type === "ui" && e.ui.type === "comparison")).toBe(true);
    const { result, finalText } = await turn(id, "帮我把两件商品加入购物车再算一下总价");
    expect(result.error).toBeUndefined();
    // Running shoes need a size: the tool refuses without one, and the model asks.
    expect(finalText).toMatch(/要哪个尺码/);
    expect((await store.getCart(id)).lines).toEqual([]);
  });

  it("checkout runs only after the response completes, and places the order once", async () => {
    const { id } = await store.createSession("shopper");
    await turn(id, "add the charcoal wool socks in size M to my cart");
    const { events } = await turn(id, "check out");
    const call = events.find((e) => e.type === "tool-call" && e.name === "checkout");
    expect(call).toMatchObject({ dispatch: "deferred" });
    const asked = events.find((e) => e.type === "approval-request");
    expect(asked).toMatchObject({ name: "checkout", details: { type: "order-summary" } });
    expect(events.some((e) => e.type === "ui" && e.ui.type === "order-placed")).toBe(true);
    expect((await store.getCart(id)).lines).toEqual([]);
    expect(await store.listOrders({ sessionId: id })).toHaveLength(1);
  });

  it("ask_merchant delegates to the merchant agent (read-only tools), its events tagged", async () => {
    const { id } = await store.createSession("shopper");
    const { events, finalText } = await turn(
      id,
      "When will the Aero trail runner be back in stock?",
    );
    const delegated = events.filter((e) => e.parentCallId !== undefined);
    expect(delegated.length).toBeGreaterThan(0);
    expect(delegated.every((e) => e.agent === "merchant")).toBe(true);
    expect(delegated.some((e) => e.type === "tool-call" && e.name === "restock_eta")).toBe(true);
    // The merchant's answer shows in the call's card; the final text points to it, not again.
    expect(finalText).toMatch(/merchant's answer, above/);
    expect(finalText).not.toMatch(/Aero Trail Runner/);
    expect(agents.merchant.executor(id, { readOnly: true }).tool("restock")).toBeUndefined();
  });

  it("merchant: reports low stock and restocks it in one call the merchant approves", async () => {
    const { id } = await store.createSession("merchant");
    const before = await store.lowStock(5);
    expect(before.length).toBeGreaterThan(1);
    const { result, events } = await turn(id, "what is low on stock? restock it", "merchant");
    expect(result.error).toBeUndefined();
    const restocks = events.filter(
      (e) => e.type === "tool-call" && (e.name === "restock" || e.name === "restock_products"),
    );
    expect(restocks.map((e) => e.type === "tool-call" && e.name)).toEqual(["restock_products"]);
    const asked = events.filter((e) => e.type === "approval-request");
    expect(asked).toHaveLength(1);
    for (const p of before) expect((await store.getProduct(p.id))!.stock).toBe(p.stock + 20);
  });

  it("a request it does not understand gets a polite answer saying what it can do", async () => {
    const { id } = await store.createSession("shopper");
    const { finalText } = await turn(id, "what is the meaning of life?");
    expect(finalText).toMatch(/scripted shopping assistant/);
  });
});

describe("tools are built once per process, not per turn", () => {
  it("every session's executor holds the same tool objects (their JSON Schemas made once)", () => {
    for (const agent of [agents.shopper, agents.merchant]) {
      const a = agent.executor("session-a");
      const b = agent.executor("session-b");
      const specs = a.specs();
      expect(specs.length).toBeGreaterThan(0);
      for (const spec of specs) expect(b.tool(spec.name)).toBe(a.tool(spec.name));
    }
    const readOnly = agents.merchant.executor("session-a", { readOnly: true });
    expect(readOnly.specs().length).toBeLessThan(agents.merchant.executor("x").specs().length);
    expect(readOnly.tool("low_stock_report")).toBe(
      agents.merchant.executor("session-b", { readOnly: true }).tool("low_stock_report"),
    );
  });
});
