import { type AgentEvent, type Message, runAgentTurn, validateConversation } from "overlap-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createShopAgents } from "../agents/shop-agents.js";
import { openStore } from "../db/open-store.js";
import type { ShopStore } from "../db/shop-store.js";
import { modelFromEnv, type ShopModelApi } from "./model-from-env.js";
import { shopPolicy } from "./shop-policy.js";

const DEMO =
  "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart and tell me the total";
const FAST = { tokensPerSecond: 800, firstTokenMs: 5, jitter: 0 };

let store: ShopStore;
beforeAll(async () => {
  store = await openStore({ sqliteFile: ":memory:" });
});
afterAll(() => store.close());

describe("the shop on every wire format of the scripted model (SCRIPTED_API)", () => {
  for (const api of [
    "anthropic",
    "chat",
    "responses",
    "gemini",
    "bedrock",
    "ai-sdk",
  ] satisfies ShopModelApi[]) {
    it(`${api}: the demo request runs its tools while the model streams, then check out continues the conversation`, async () => {
      const shop = await modelFromEnv({
        env: { SCRIPTED_API: api },
        policy: shopPolicy,
        pacing: FAST,
      });
      try {
        expect(shop).toMatchObject({ api, scripted: true, provider: "scripted" });
        const agent = createShopAgents({ store, model: shop.model }).shopper;
        const { id } = await store.createSession("shopper");
        let messages: Message[] = [];
        const turn = async (text: string) => {
          const events: AgentEvent[] = [];
          const result = await runAgentTurn({
            model: shop.model,
            executor: agent.executor(id),
            system: agent.system,
            agent: agent.name,
            messages: [...messages, { role: "user", content: text }],
            sink: (e) => events.push(e),
            ledger: store.ledger(id),
            // The shopper confirms the checkout (it waits for the shopper's approval).
            approvals: { wait: async () => ({ approve: true }) },
          });
          messages = result.messages;
          return { result, events };
        };

        const demo = await turn(DEMO);
        expect(demo.result.error).toBeUndefined();
        const round1 = demo.events.filter((e) => "round" in e && e.round === 1);
        const calls = round1.filter((e) => e.type === "tool-call").map((e) => e.name);
        expect(calls).toEqual(["add_to_cart", "add_to_cart", "cart_total"]);
        const results = round1.filter((e) => e.type === "tool-result");
        expect(results.map((e) => e.name)).toEqual(["add_to_cart", "add_to_cart", "cart_total"]);
        // Eager: the first add runs before the round ends (for Gemini each call arrives whole).
        const firstRunning = round1.findIndex(
          (e) => e.type === "tool-status" && e.status === "running",
        );
        const roundEnd = round1.findIndex((e) => e.type === "round-end");
        expect(firstRunning).toBeGreaterThan(-1);
        expect(firstRunning).toBeLessThan(roundEnd);
        const cart = await store.getCart(id);
        expect(cart.lines.map((l) => [l.productId, l.quantity])).toEqual([
          ["p-0001", 1],
          ["p-0002", 1],
        ]);
        const last = messages.at(-1);
        const finalText =
          last?.role === "assistant"
            ? last.content.map((b) => (b.type === "text" ? b.text : "")).join("")
            : "";
        expect(finalText).toContain("$103.50");

        // The second turn sends the whole conversation back: the strict scripted model accepts it.
        const checkout = await turn("check out");
        expect(checkout.result.error).toBeUndefined();
        expect(checkout.events.some((e) => e.type === "ui" && e.ui.type === "order-placed")).toBe(
          true,
        );
        expect(await store.listOrders({ sessionId: id })).toHaveLength(1);
        expect(validateConversation(messages)).toEqual([]);
      } finally {
        await shop.close();
      }
    });
  }

  it("refuses an unknown SCRIPTED_API or OPENAI_API with a clear message", async () => {
    await expect(
      modelFromEnv({ env: { SCRIPTED_API: "cohere" }, policy: shopPolicy }),
    ).rejects.toThrow(
      /SCRIPTED_API must be one of anthropic, chat, responses, gemini, bedrock, ai-sdk/,
    );
    await expect(
      modelFromEnv({
        env: { OPENAI_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_API: "completions" },
        policy: shopPolicy,
      }),
    ).rejects.toThrow(/OPENAI_API must be "chat" or "responses"/);
  });

  it("picks the provider from the keys: Claude, OpenAI (chat or responses), Gemini", async () => {
    const pick = async (env: NodeJS.ProcessEnv) => {
      const m = await modelFromEnv({ env, policy: shopPolicy });
      await m.close();
      return [m.provider, m.api, m.label, m.scripted];
    };
    expect(await pick({ ANTHROPIC_API_KEY: "k" })).toEqual([
      "anthropic",
      "anthropic",
      "claude-sonnet-4-5",
      false,
    ]);
    expect(await pick({ OPENAI_API_KEY: "k", MODEL: "gpt-5" })).toEqual([
      "openai",
      "chat",
      "gpt-5",
      false,
    ]);
    expect(await pick({ OPENAI_API_KEY: "k", OPENAI_API: "responses" })).toEqual([
      "openai",
      "responses",
      "gpt-4o-mini",
      false,
    ]);
    expect(await pick({ GOOGLE_API_KEY: "k" })).toEqual([
      "google",
      "gemini",
      "gemini-2.5-flash",
      false,
    ]);
    expect(
      await pick({ BEDROCK_MODEL_ID: "us.anthropic.claude", AWS_REGION: "us-west-2" }),
    ).toEqual(["aws", "bedrock", "us.anthropic.claude", false]);
  });

  it("AI_SDK_MODEL_MODULE: any AI SDK provider model from a module, through aiSdkModel", async () => {
    const shop = await modelFromEnv({
      env: {
        AI_SDK_MODEL_MODULE: "./apps/shop/src/model/__fixtures__/ai-sdk-model.mjs",
        FIXTURE_MODEL_ID: "fixture-7",
      },
      policy: shopPolicy,
    });
    expect([shop.provider, shop.api, shop.label, shop.scripted]).toEqual([
      "ai-sdk",
      "ai-sdk",
      "fixture-7",
      false,
    ]);
    const events: AgentEvent[] = [];
    const result = await runAgentTurn({
      model: shop.model,
      executor: createShopAgents({ store, model: shop.model }).shopper.executor("s-none"),
      messages: [{ role: "user", content: "hi" }],
      sink: (e) => events.push(e),
    });
    expect(result.error).toBeUndefined();
    expect(events.filter((e) => e.type === "text-delta").map((e) => e.text)).toEqual([
      "Hello from the module.",
    ]);
    await expect(
      modelFromEnv({ env: { AI_SDK_MODEL_MODULE: "node:path" }, policy: shopPolicy }),
    ).rejects.toThrow(/must export by default an AI SDK language model/);
  });
});
