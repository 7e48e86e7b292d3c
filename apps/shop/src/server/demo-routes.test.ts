import type { AgentEvent, LoggedEvent } from "overlap-runtime";
import { validateConversation } from "overlap-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modelFromEnv } from "../model/model-from-env.js";
import { shopPolicy } from "../model/shop-policy.js";
import type { DemoAnswer } from "./demo-routes.js";
import { createTestShop, readEvents, type TestShop } from "./test-shop.testkit.js";

type Of<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;
const of = <T extends AgentEvent["type"]>(events: readonly LoggedEvent[], type: T) =>
  events.map((e) => e.event).filter((e): e is Of<T> => e.type === type);

/** Three calls in one response (two adds, then the total): what the faults cut. */
const THREE_CALLS =
  "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart and tell me the total";

let t: TestShop;
beforeAll(async () => {
  t = await createTestShop();
});
afterAll(() => t.close());

async function demo(id: string, token: string, json?: unknown) {
  const response = json
    ? await t.call("PUT", `/api/sessions/${id}/demo`, { token, json })
    : await t.call("GET", `/api/sessions/${id}/demo`, { token });
  return { status: response.status, body: (await response.json()) as DemoAnswer & ErrorJson };
}
interface ErrorJson {
  error?: { code: string; message: string };
}

async function send(id: string, token: string, text: string): Promise<LoggedEvent[]> {
  const response = await t.call("POST", `/api/sessions/${id}/messages`, { token, json: { text } });
  expect(response.status).toBe(200);
  return readEvents(response);
}

/**
 * The repair of a reply cut inside its last call: every call answered; the last one never ran;
 * the others either ran (their effect is in the cart) or were cut off before they ran (with the
 * embedded model's fast test pacing the cut can come within a millisecond of an earlier call's
 * end); the stored conversation is valid.
 */
async function expectRepaired(id: string, events: readonly LoggedEvent[]): Promise<void> {
  const results = of(events, "tool-result");
  expect(results).toHaveLength(3);
  expect(results.at(-1)).toMatchObject({ status: "not_executed", isError: true });
  for (const r of results) expect(["ok", "not_executed", "interrupted"]).toContain(r.status);
  const ran = results.filter((r) => r.status === "ok").length;
  expect((await t.store.getCart(id)).lines).toHaveLength(ran);
  expect(validateConversation(await t.store.conversations.load(id))).toEqual([]);
}

describe("GET/PUT /api/sessions/:id/demo", () => {
  it("starts with no demo effect, and keeps what a PUT sets (fields left out unchanged)", async () => {
    const { id, token } = await t.session();
    const start = await demo(id, token);
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({
      settings: {
        tokensPerSecond: null,
        serviceLatencyMs: { search: 0, inventory: 0, cart: 0, orders: 0 },
        breakNextReply: null,
      },
      lastBreak: null,
      simulated: {},
      modelControls: true,
    });
    await demo(id, token, { serviceLatencyMs: { search: 400 }, tokensPerSecond: 120 });
    const after = await demo(id, token, { serviceLatencyMs: { inventory: 300 } });
    expect(after.body.settings).toEqual({
      tokensPerSecond: 120,
      serviceLatencyMs: { search: 400, inventory: 300, cart: 0, orders: 0 },
      breakNextReply: null,
    });
    // Another session is not affected.
    const other = await t.session();
    expect((await demo(other.id, other.token)).body.settings.serviceLatencyMs.search).toBe(0);
  });

  it("answers 400 with what is wrong", async () => {
    const { id, token } = await t.session();
    const cases: [unknown, RegExp][] = [
      [{ serviceLatencyMs: { search: -1 } }, /serviceLatencyMs\.search: must be 0 or more/],
      [{ serviceLatencyMs: { search: 99_999 } }, /at most 5000 ms/],
      [{ serviceLatencyMs: { search: 1.5 } }, /whole number/],
      [{ serviceLatencyMs: { payments: 100 } }, /payments/],
      [{ tokensPerSecond: 0 }, /tokensPerSecond: must be at least 5/],
      [{ tokensPerSecond: "fast" }, /tokensPerSecond/],
      [{ breakNextReply: "explode" }, /breakNextReply: must be null or one of drop, error/],
      [{ latency: 5 }, /latency/],
    ];
    for (const [json, message] of cases) {
      const answer = await demo(id, token, json);
      expect(answer.status, JSON.stringify(json)).toBe(400);
      expect(answer.body.error?.code).toBe("invalid_request");
      expect(answer.body.error?.message).toMatch(message);
    }
    const notJson = await t.call("PUT", `/api/sessions/${id}/demo`, {
      token,
      body: "{",
      headers: { "content-type": "application/json" },
    });
    expect(notJson.status).toBe(400);
    // Nothing was changed by the refused requests.
    expect((await demo(id, token)).body.settings.serviceLatencyMs.search).toBe(0);
  });

  it("needs the session's own token", async () => {
    const { id } = await t.session();
    const other = await t.session();
    expect((await t.call("GET", `/api/sessions/${id}/demo`)).status).toBe(401);
    expect((await t.call("GET", `/api/sessions/${id}/demo`, { token: other.token })).status).toBe(
      404,
    );
  });
});

describe("the demo settings in a turn", () => {
  it("a simulated latency delays the service's calls, and the page can tell which", async () => {
    const { id, token } = await t.session();
    await demo(id, token, { serviceLatencyMs: { cart: 300 } });
    const events = await send(id, token, THREE_CALLS);
    const end = of(events, "round-end")[0]!;
    const tools = end.timings?.tools ?? [];
    expect(tools.map((tool) => tool.name)).toEqual(["add_to_cart", "add_to_cart", "cart_total"]);
    // A sleep of 300 ms never ends sooner (a lower bound, not a speed goal).
    for (const tool of tools) expect(tool.endMs! - tool.startMs!).toBeGreaterThanOrEqual(290);
    const { simulated } = (await demo(id, token)).body;
    expect(Object.keys(simulated).sort()).toEqual(tools.map((tool) => tool.callId).sort());
    expect(Object.values(simulated)).toContainEqual({ services: ["cart"], ms: 300 });
  });

  it("a slow inventory delays the adds, not the total, which still counts both adds (call order kept)", async () => {
    const { id, token } = await t.session();
    await demo(id, token, { serviceLatencyMs: { inventory: 300 } });
    const events = await send(id, token, THREE_CALLS);
    const results = of(events, "tool-result").filter((r) => r.round === 1);
    expect(results.map((r) => r.name)).toEqual(["add_to_cart", "add_to_cart", "cart_total"]);
    // The total ran after both adds although it waited no latency of its own.
    expect(results[2]!.resultText).toContain("for 2 items");
    const tools = of(events, "round-end")[0]!.timings!.tools;
    const total = tools.find((tool) => tool.name === "cart_total")!;
    for (const add of tools.filter((tool) => tool.name === "add_to_cart")) {
      expect(total.endMs!).toBeGreaterThanOrEqual(add.endMs!);
    }
    const { simulated } = (await demo(id, token)).body;
    expect(Object.values(simulated)).toEqual([
      { services: ["inventory"], ms: 300 },
      { services: ["inventory"], ms: 300 },
    ]);
  });

  it("'drop' cuts the next reply once: finished calls keep their result, the rest are answered not run, and the next turn works", async () => {
    const { id, token } = await t.session();
    const armed = await demo(id, token, { breakNextReply: "drop" });
    expect(armed.body.settings.breakNextReply).toBe("drop");
    const events = await send(id, token, THREE_CALLS);
    expect(of(events, "error")[0]).toMatchObject({ code: "stream_interrupted" });
    await expectRepaired(id, events);
    expect(validateConversation(await t.store.conversations.load(id))).toEqual([]);
    // One-shot: disarmed, and said so.
    const after = (await demo(id, token)).body;
    expect(after.settings.breakNextReply).toBeNull();
    expect(after.lastBreak?.fault).toBe("drop");
    const next = await send(id, token, "what is in my cart?");
    expect(of(next, "error")).toEqual([]);
    expect(next.at(-1)!.event).toMatchObject({ type: "done", stopReason: "end_turn" });
  });

  it("'error' ends the reply with the provider's error event at the same point", async () => {
    const { id, token } = await t.session();
    await demo(id, token, { breakNextReply: "error" });
    const events = await send(id, token, THREE_CALLS);
    expect(of(events, "error")).toHaveLength(1);
    await expectRepaired(id, events);
    const next = await send(id, token, "thanks!");
    expect(next.at(-1)!.event).toMatchObject({ type: "done", stopReason: "end_turn" });
  });

  it("'invalid-json' makes the last call's arguments invalid: never run, answered, and the turn goes on", async () => {
    const { id, token } = await t.session();
    await demo(id, token, { breakNextReply: "invalid-json" });
    const events = await send(id, token, THREE_CALLS);
    const calls = of(events, "tool-call").filter((c) => c.round === 1);
    expect(calls.map((c) => c.dispatch)).toEqual(["started", "started", "invalid"]);
    expect(
      of(events, "tool-result")
        .filter((r) => r.round === 1)
        .at(-1),
    ).toMatchObject({
      status: "invalid_input",
      isError: true,
    });
    expect(of(events, "error")).toEqual([]);
    expect(events.at(-1)!.event).toMatchObject({ type: "done", stopReason: "end_turn" });
  });

  it("'max-tokens' cuts the reply inside its last call; that call never runs", async () => {
    const { id, token } = await t.session();
    await demo(id, token, { breakNextReply: "max-tokens" });
    const events = await send(id, token, THREE_CALLS);
    expect(of(events, "round-end")[0]).toMatchObject({ stopReason: "max_tokens" });
    expect(
      of(events, "tool-result")
        .filter((r) => r.round === 1)
        .at(-1),
    ).toMatchObject({
      isError: true,
    });
    expect(validateConversation(await t.store.conversations.load(id))).toEqual([]);
    const next = await send(id, token, "what is in my cart?");
    expect(next.at(-1)!.event).toMatchObject({ type: "done", stopReason: "end_turn" });
  });
});

describe("the scripted model in its other wire formats", () => {
  for (const api of ["chat", "responses", "gemini", "ai-sdk"]) {
    it(`SCRIPTED_API=${api}: the fault reaches the embedded model once, and the turn after works`, async () => {
      const model = await modelFromEnv({
        env: { SCRIPTED_API: api },
        policy: shopPolicy,
        pacing: { fast: true },
      });
      const shop = await createTestShop({ model });
      try {
        const { id, token } = await shop.session();
        const put = await shop.call("PUT", `/api/sessions/${id}/demo`, {
          token,
          json: { breakNextReply: "drop", tokensPerSecond: 500 },
        });
        expect(put.status).toBe(200);
        const turn = async (text: string) =>
          readEvents(
            await shop.call("POST", `/api/sessions/${id}/messages`, { token, json: { text } }),
          );
        const broken = await turn(THREE_CALLS);
        expect(of(broken, "error")).toHaveLength(1);
        // The last call (the total) never ran: answered as not run, or, in Gemini's format, where
        // a call arrives whole, never received.
        const results = of(broken, "tool-result");
        expect(results.filter((r) => r.name === "cart_total" && r.status === "ok")).toEqual([]);
        expect(results.length).toBeGreaterThanOrEqual(2);
        const next = await turn("what is in my cart?");
        expect(of(next, "error")).toEqual([]);
        expect(next.at(-1)!.event).toMatchObject({ type: "done", stopReason: "end_turn" });
      } finally {
        await shop.close();
      }
    });
  }
});

describe("with a real model", () => {
  it("offers only the simulated latency: speed and faults answer 400", async () => {
    const embedded = t.model;
    const real = await createTestShop({
      model: { model: embedded.model, label: "claude-sonnet-4-5", scripted: false },
    });
    try {
      const { id, token } = await real.session();
      const get = await real.call("GET", `/api/sessions/${id}/demo`, { token });
      expect(((await get.json()) as DemoAnswer).modelControls).toBe(false);
      for (const json of [{ tokensPerSecond: 100 }, { breakNextReply: "drop" }]) {
        const put = await real.call("PUT", `/api/sessions/${id}/demo`, { token, json });
        expect(put.status).toBe(400);
        expect(((await put.json()) as ErrorJson).error?.code).toBe("scripted_model_only");
      }
      const latency = await real.call("PUT", `/api/sessions/${id}/demo`, {
        token,
        json: { serviceLatencyMs: { search: 200 }, breakNextReply: null },
      });
      expect(latency.status).toBe(200);
    } finally {
      await real.close();
    }
  });
});
