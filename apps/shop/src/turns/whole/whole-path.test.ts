import {
  type AgentEvent,
  type LoggedEvent,
  type Message,
  validateConversation,
} from "overlap-runtime";
import {
  cartOf as cartInState,
  initialAgentState,
  parseAgentEvent,
  reduceAgentEvent,
} from "overlap-runtime/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../db/open-store.js";
import type { ShopStore } from "../../db/shop-store.js";
import { createTestShop, readEvents, type TestShop } from "../../server/test-shop.testkit.js";
import { overlapPathFromEnv, turnBodyFor } from "../overlap-path.js";
import { streamedShopTurn } from "../streamed/streamed-shop-turn.js";
import { wholePathEndpoint } from "./whole-shop-turn.js";

const DEMO =
  "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart and tell me the total";

type Of<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;

function own(events: readonly LoggedEvent[]): AgentEvent[] {
  return events.map((e) => e.event).filter((e) => e.parentCallId === undefined);
}

function ofRound(events: readonly AgentEvent[], round: number): AgentEvent[] {
  return events.filter((e) => "round" in e && e.round === round);
}

function text(events: readonly AgentEvent[]): string {
  return events
    .filter((e): e is Of<"text-delta"> => e.type === "text-delta")
    .map((e) => e.text)
    .join("");
}

/** The checks every whole-path turn passes: the UI's vocabulary, no previews, no early start. */
function expectWholeTurn(events: readonly LoggedEvent[]): void {
  // Every frame is a valid AgentEvent as the browser client reads it.
  for (const { event } of events) expect(parseAgentEvent(JSON.stringify(event))).toEqual(event);
  const mine = own(events);
  expect(mine.some((e) => e.type === "tool-input-preview" || e.type === "tool-call-start")).toBe(
    false,
  );
  expect(mine.filter((e) => e.type === "done")).toHaveLength(1);
  expect(mine.at(-1)?.type).toBe("done");
  const rounds = mine.filter((e) => e.type === "round-start").length;
  for (let round = 1; round <= rounds; round++) {
    const r = ofRound(mine, round);
    expect(r[0]?.type).toBe("round-start");
    expect(r.at(-1)?.type).toBe("round-end");
    const calls = r.filter((e): e is Of<"tool-call"> => e.type === "tool-call");
    // The response is emitted whole: its calls all come before any tool runs.
    const lastCall = r.findLastIndex((e) => e.type === "tool-call");
    const firstStatus = r.findIndex((e) => e.type === "tool-status");
    if (firstStatus !== -1) expect(lastCall).toBeLessThan(firstStatus);
    // Results in call order, after every status of the round.
    const results = r.filter((e): e is Of<"tool-result"> => e.type === "tool-result");
    expect(results.map((x) => x.callId)).toEqual(calls.map((c) => c.callId));
    const lastStatus = r.findLastIndex((e) => e.type === "tool-status");
    const firstResult = r.findIndex((e) => e.type === "tool-result");
    if (firstResult !== -1) expect(lastStatus).toBeLessThan(firstResult);
    // Measured: no tool started before the model's response ended.
    const end = r.at(-1) as Of<"round-end">;
    const { streamEndMs, tools } = end.timings;
    expect(streamEndMs).toBeTypeOf("number");
    for (const t of tools) {
      expect(t.startMs).toBeGreaterThanOrEqual(streamEndMs!);
      expect(t.endMs).toBeGreaterThanOrEqual(t.startMs!);
    }
    for (const s of r.filter((e): e is Of<"tool-status"> => e.type === "tool-status")) {
      expect(s.atMs).toBeGreaterThanOrEqual(streamEndMs!);
    }
  }
}

async function send(t: TestShop, id: string, token: string, message: string) {
  const response = await t.call("POST", `/api/sessions/${id}/messages`, {
    token,
    json: { text: message },
  });
  expect(response.status).toBe(200);
  return readEvents(response);
}

/** "check out", confirmed as the shopper would: the turn waits for the approval. */
async function checkOutConfirmed(t: TestShop, id: string, token: string) {
  const response = await t.call("POST", `/api/sessions/${id}/messages`, {
    token,
    json: { text: "check out" },
  });
  const asked = await readEvents(response, {
    until: (events) => events.some((e) => e.event.type === "approval-request"),
  });
  const request = asked.at(-1)!.event as Of<"approval-request">;
  expect(request).toMatchObject({ name: "checkout" });
  const answer = await t.call("POST", `/api/sessions/${id}/approvals/${request.callId}`, {
    token,
    json: { approve: true },
  });
  expect(answer.status).toBe(200);
  // The whole turn, replayed from its start and followed to its end.
  return readEvents(await t.call("GET", `/api/sessions/${id}/stream`, { token }));
}

async function cartOf(t: TestShop, id: string, token: string) {
  const body = (await (await t.call("GET", `/api/sessions/${id}/cart`, { token })).json()) as {
    cart: { lines: Array<{ name: string; quantity: number }>; total: string };
  };
  return { lines: body.cart.lines.map((l) => [l.name, l.quantity]), total: body.cart.total };
}

async function conversationOf(t: TestShop, id: string, token: string): Promise<Message[]> {
  const body = (await (await t.call("GET", `/api/sessions/${id}`, { token })).json()) as {
    messages: Message[];
  };
  return body.messages;
}

// Each turn spawns the SDK's CLI: more time than the default on a busy machine.
describe("OVERLAP_PATH=whole: the Claude Agent SDK over the embedded model, through the shop's HTTP API", {
  timeout: 60_000,
}, () => {
  let store: ShopStore;
  let whole: TestShop;
  let streamed: TestShop;
  beforeAll(async () => {
    store = await openStore({ sqliteFile: ":memory:" });
    // Paced: the response takes a while, so the SDK's CLI asks for each call before it ends.
    const pacing = { tokensPerSecond: 200, firstTokenMs: 20 };
    whole = await createTestShop({ store, path: "whole", pacing });
    streamed = await createTestShop({ store, pacing: { fast: true } });
  });
  afterAll(async () => {
    await whole?.close();
    await streamed?.close();
    await store?.close();
  });

  it("the demo drawer's speed and faults act on the streamed path only, even with the embedded model", async () => {
    const modelControls = async (t: TestShop) => {
      const { id, token } = await t.session();
      const answer = await t.call("GET", `/api/sessions/${id}/demo`, { token });
      return ((await answer.json()) as { modelControls: boolean }).modelControls;
    };
    expect(await modelControls(streamed)).toBe(true);
    expect(await modelControls(whole)).toBe(false);
  });

  it("the demo request: right cart and total, the UI's events, no previews, every tool after the response ended", async () => {
    const { id, token } = await whole.session();
    const events = await send(whole, id, token, DEMO);
    expectWholeTurn(events);
    const mine = own(events);
    expect(mine.every((e) => e.agent === "shopper")).toBe(true);

    const round1 = ofRound(mine, 1);
    const calls = round1.filter((e): e is Of<"tool-call"> => e.type === "tool-call");
    expect(calls.map((c) => [c.name, c.dispatch])).toEqual([
      ["add_to_cart", "started"],
      ["add_to_cart", "started"],
      ["cart_total", "started"],
    ]);
    const results = round1.filter((e): e is Of<"tool-result"> => e.type === "tool-result");
    expect(results.every((r) => r.status === "ok")).toBe(true);
    expect(round1.filter((e) => e.type === "ui").length).toBeGreaterThan(0); // cart-updated
    const end1 = round1.at(-1) as Of<"round-end">;
    expect(end1.stopReason).toBe("tool_use");
    expect(end1.timings.tools.map((t) => t.callId)).toEqual(calls.map((c) => c.callId));

    // The browser's reducer builds the same state from them: each call a card with its result.
    const state = events.reduce(reduceAgentEvent, initialAgentState());
    expect(calls.map((c) => state.calls[c.callId]?.phase)).toEqual(["done", "done", "done"]);
    expect(state.resultOrder).toEqual(calls.map((c) => c.callId));
    expect(cartInState(state)).toMatchObject({ total: "$103.50" });

    // The SDK's CLI asked for calls while the model still wrote; they waited for the end.
    const held = whole.logs.filter(
      (l) => l.includes("held until it ends") && calls.some((c) => l.includes(c.callId)),
    );
    expect(held.length).toBeGreaterThan(0);

    const rounds = mine.filter((e) => e.type === "round-start").length;
    expect(rounds).toBe(2);
    expect(text(ofRound(mine, 2))).toContain("$103.50");
    expect(mine.at(-1)).toMatchObject({ type: "done", roundCount: 2, stopReason: "end_turn" });
    expect(mine.some((e) => e.type === "error")).toBe(false);

    expect(await cartOf(whole, id, token)).toEqual({
      lines: [
        ["Aero Trail Runner", 1],
        ["Merino Wool Socks", 1],
      ],
      total: "$103.50",
    });
    // Stored as the streamed path stores it: tool names without the SDK's MCP prefix.
    const messages = await conversationOf(whole, id, token);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(validateConversation(messages)).toEqual([]);
    expect(messages[0]).toEqual({ role: "user", content: DEMO });
    const assistant = messages[1] as Message & { role: "assistant" };
    const names = assistant.content.flatMap((b) => (b.type === "tool_use" ? [b.name] : []));
    expect(names).toEqual(["add_to_cart", "add_to_cart", "cart_total"]);
  });

  it("the next turn continues the conversation, on either path", async () => {
    const { id, token } = await whole.session();
    await send(whole, id, token, DEMO);

    // The streamed path continues what the whole path stored...
    const second = await send(streamed, id, token, "remove the wool socks");
    expect(own(second).at(-1)).toMatchObject({ type: "done", stopReason: "end_turn" });
    expect((await cartOf(whole, id, token)).lines).toEqual([["Aero Trail Runner", 1]]);

    // ...and the whole path what the streamed one stored: the model sees all of it.
    const third = await send(whole, id, token, "remove the Aero trail runner");
    expectWholeTurn(third);
    const calls = own(third).filter((e): e is Of<"tool-call"> => e.type === "tool-call");
    expect(calls.map((c) => c.name)).toContain("remove_from_cart");
    expect(own(third).at(-1)).toMatchObject({ type: "done", stopReason: "end_turn" });
    expect((await cartOf(whole, id, token)).lines).toEqual([]);

    const messages = await conversationOf(whole, id, token);
    expect(validateConversation(messages)).toEqual([]);
    const users = messages.filter(
      (m): m is Message & { role: "user" } => m.role === "user" && typeof m.content === "string",
    );
    expect(users.map((m) => m.content)).toEqual([
      DEMO,
      "remove the wool socks",
      "remove the Aero trail runner",
    ]);
  });
});

// Each turn spawns the SDK's CLI: more time than the default on a busy machine.
describe("OVERLAP_PATH=whole: checkout (a deferred tool) and the ledger", {
  timeout: 60_000,
}, () => {
  let t: TestShop;
  beforeAll(async () => {
    t = await createTestShop({ path: "whole", pacing: { fast: true } });
  });
  afterAll(() => t.close());

  it("check out runs once the response ended asking for tools and the shopper confirmed, and is recorded in the ledger", async () => {
    const { id, token } = await t.session();
    await send(t, id, token, DEMO);
    const events = await checkOutConfirmed(t, id, token);
    expectWholeTurn(events);
    const mine = own(events);
    const call = mine.find((e): e is Of<"tool-call"> => e.type === "tool-call");
    expect(call).toMatchObject({ name: "checkout", dispatch: "started" });
    expect(mine.filter((e) => e.type === "approval-resolved")).toMatchObject([
      { callId: call!.callId, decision: "approved" },
    ]);
    expect(
      mine.some(
        (e) => e.type === "ui" && e.callId === call!.callId && e.ui.type === "order-placed",
      ),
    ).toBe(true);
    expect(mine.at(-1)).toMatchObject({ type: "done", stopReason: "end_turn" });
    expect((await cartOf(t, id, token)).lines).toEqual([]);
    const orders = await t.store.listOrders({ sessionId: id, limit: 5 });
    expect(orders.map((o) => o.totalCents)).toEqual([10_350]);
    // Exactly once by call id: the ledger holds the checkout's outcome.
    expect(await t.store.ledger(id).lookup(call!.callId)).toMatchObject({
      callId: call!.callId,
      status: "ok",
    });
  });
});

// Each turn spawns the SDK's CLI: more time than the default on a busy machine.
describe("OVERLAP_PATH=whole: cancel", { timeout: 60_000 }, () => {
  let t: TestShop;
  beforeAll(async () => {
    // Slow: the first response takes most of a second, so the cancel lands inside it.
    t = await createTestShop({ path: "whole", pacing: { tokensPerSecond: 40, firstTokenMs: 20 } });
  });
  afterAll(() => t.close());

  it("cancel while the model writes: nothing ran, the conversation stays valid, the next message works", async () => {
    const { id, token } = await t.session();
    const response = await t.call("POST", `/api/sessions/${id}/messages`, {
      token,
      json: { text: DEMO },
    });
    let started!: () => void;
    const roundStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const reading = readEvents(response, {
      until: (so) => {
        if (so.some((e) => e.event.type === "round-start")) started();
        return false;
      },
    });
    await roundStarted;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const cancel = await t.call("POST", `/api/sessions/${id}/cancel`, { token });
    expect(await cancel.json()).toEqual({ cancelled: true });
    const events = await reading;
    for (const { event } of events) expect(parseAgentEvent(JSON.stringify(event))).toEqual(event);
    expect(events.at(-2)!.event).toMatchObject({ type: "error", code: "aborted" });
    expect(events.at(-1)!.event).toMatchObject({ type: "done", stopReason: "error" });
    expect(events.some((e) => e.event.type === "tool-status")).toBe(false);
    expect((await t.store.getCart(id)).lines).toEqual([]);
    expect(validateConversation(await t.store.conversations.load(id))).toEqual([]);

    const next = await send(t, id, token, "what is in my cart?");
    expectWholeTurn(next);
    expect(own(next).at(-1)).toMatchObject({ type: "done", stopReason: "end_turn" });
    expect(validateConversation(await t.store.conversations.load(id))).toEqual([]);
  });
});

describe("OVERLAP_PATH", () => {
  it("is streamed by default, whole when asked, and refuses anything else", () => {
    expect(overlapPathFromEnv({})).toBe("streamed");
    expect(overlapPathFromEnv({ OVERLAP_PATH: "" })).toBe("streamed");
    expect(overlapPathFromEnv({ OVERLAP_PATH: "streamed" })).toBe("streamed");
    expect(overlapPathFromEnv({ OVERLAP_PATH: "whole" })).toBe("whole");
    expect(() => overlapPathFromEnv({ OVERLAP_PATH: "batch" })).toThrow(
      'OVERLAP_PATH must be "streamed" or "whole", not "batch".',
    );
  });

  it("the whole path needs a Messages API endpoint", () => {
    const endpoint = { baseUrl: "http://127.0.0.1:1", apiKey: "k", model: "m" };
    expect(wholePathEndpoint({ label: "x", messagesApi: endpoint })).toBe(endpoint);
    expect(turnBodyFor("streamed", { label: "gpt-4o-mini" })).toBe(streamedShopTurn);
    expect(() => turnBodyFor("whole", { label: "gpt-4o-mini" })).toThrow(/Messages API/);
  });
});
