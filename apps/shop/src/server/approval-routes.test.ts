/**
 * Checkout asks first: over HTTP against the embedded model, "check out" shows an
 * approval request with the order's lines and total and places nothing until the shopper answers
 * on `POST /api/sessions/:id/approvals/:callId`; Confirm places exactly one order, Cancel none
 * (and the assistant says so); a reload while it waits replays the request; cancel and the timeout
 * leave the conversation valid; clear JSON errors for the wrong answers.
 */

import {
  type AgentEvent,
  type LoggedEvent,
  type Message,
  validateConversation,
} from "overlap-runtime";
import { decodeSseStream } from "overlap-runtime/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestShop, readEvents, type TestShop } from "./test-shop.testkit.js";

type Of<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;

/**
 * Reads a turn's stream to its end; `onEvent` sees each event as it arrives (and may answer an
 * approval request meanwhile: the stream waits for that answer).
 */
async function follow(
  response: Response,
  onEvent: (event: AgentEvent) => Promise<void> | void = () => {},
): Promise<LoggedEvent[]> {
  if (!response.body) throw new Error(`no body (status ${response.status})`);
  const events: LoggedEvent[] = [];
  for await (const frame of decodeSseStream(response.body)) {
    if (frame.id === undefined || frame.event === undefined) continue;
    const event = JSON.parse(frame.data) as AgentEvent;
    events.push({ id: frame.id, event });
    await onEvent(event);
  }
  return events;
}

const own = (events: readonly LoggedEvent[]) =>
  events.map((e) => e.event).filter((e) => e.parentCallId === undefined);

function ofType<T extends AgentEvent["type"]>(events: readonly LoggedEvent[], type: T): Of<T>[] {
  return own(events).filter((e): e is Of<T> => e.type === type);
}

function finalText(events: readonly LoggedEvent[]): string {
  const mine = own(events);
  const rounds = mine.filter((e) => e.type === "round-start").length;
  return mine
    .filter((e): e is Of<"text-delta"> => e.type === "text-delta" && e.round === rounds)
    .map((e) => e.text)
    .join("");
}

describe("checkout waits for the shopper's approval", () => {
  let t: TestShop;
  beforeAll(async () => {
    t = await createTestShop({ pacing: { tokensPerSecond: 400, firstTokenMs: 10 } });
  });
  afterAll(() => t.close());

  async function shopperWithCart() {
    const { id, token } = await t.session();
    const added = await t.call("POST", `/api/sessions/${id}/messages`, {
      token,
      json: {
        text: "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart",
      },
    });
    await readEvents(added);
    expect((await t.store.getCart(id)).lines).toHaveLength(2);
    return { id, token };
  }

  const decide = (id: string, token: string, callId: string, body: unknown) =>
    t.call("POST", `/api/sessions/${id}/approvals/${encodeURIComponent(callId)}`, {
      token,
      json: body,
    });

  const checkOut = (id: string, token: string) =>
    t.call("POST", `/api/sessions/${id}/messages`, { token, json: { text: "check out" } });

  it("Confirm: the request shows the order's lines and total, nothing is ordered before it, exactly one order after", async () => {
    const { id, token } = await shopperWithCart();
    let ordersWhileAsking = -1;
    let answer: Response | undefined;
    const events = await follow(await checkOut(id, token), async (event) => {
      if (event.type !== "approval-request") return;
      ordersWhileAsking = (await t.store.listOrders({ sessionId: id })).length;
      answer = await decide(id, token, event.callId, { approve: true });
    });
    expect(ordersWhileAsking).toBe(0);
    expect(answer?.status).toBe(200);
    const [request] = ofType(events, "approval-request");
    expect(request).toMatchObject({ name: "checkout", round: 1, timeoutMs: 300_000 });
    expect(await answer?.json()).toEqual({ callId: request?.callId, decision: "approved" });
    expect(request?.summary).toBe(
      "Place an order for 2 items, total $103.50: 1 × Aero Trail Runner (size US 10, Volt) ($89.00), 1 × Merino Wool Socks (size M, Charcoal) ($14.50).",
    );
    const cart = request?.details?.cart as { total: string; lines: { name: string }[] };
    expect(request?.details?.type).toBe("order-summary");
    expect(cart.total).toBe("$103.50");
    expect(cart.lines.map((l) => l.name)).toEqual(["Aero Trail Runner", "Merino Wool Socks"]);
    expect(ofType(events, "approval-resolved")).toMatchObject([
      { callId: request?.callId, decision: "approved" },
    ]);
    expect(ofType(events, "ui").some((e) => e.ui.type === "order-placed")).toBe(true);
    expect(await t.store.listOrders({ sessionId: id })).toHaveLength(1);
    expect(finalText(events)).toMatch(/Order o-\S+ is placed/);
    // The turn is over: nothing waits for an answer any more.
    expect((await decide(id, token, request!.callId, { approve: true })).status).toBe(404);
  });

  it("Cancel: no order, the cart is unchanged, and the assistant says the order was not placed", async () => {
    const { id, token } = await shopperWithCart();
    let second: Response | undefined;
    const events = await follow(await checkOut(id, token), async (event) => {
      if (event.type !== "approval-request") return;
      expect((await decide(id, token, event.callId, { approve: false })).status).toBe(200);
      second = await decide(id, token, event.callId, { approve: true });
    });
    expect(second?.status).toBe(409);
    expect(await second?.json()).toEqual({
      error: { code: "approval_decided", message: "This action was already declined." },
    });
    expect(await t.store.listOrders({ sessionId: id })).toEqual([]);
    expect((await t.store.getCart(id)).lines).toHaveLength(2);
    expect(ofType(events, "approval-resolved")).toMatchObject([{ decision: "declined" }]);
    expect(ofType(events, "tool-result").find((e) => e.name === "checkout")).toMatchObject({
      status: "declined",
      isError: true,
      resultText: "The user declined this action.",
    });
    expect(finalText(events)).toBe(
      'OK, I did not place the order. Your cart is unchanged; say "check out" whenever you are ready.',
    );
    const messages = (await (await t.call("GET", `/api/sessions/${id}`, { token })).json()) as {
      messages: Message[];
    };
    expect(validateConversation(messages.messages)).toEqual([]);
  });

  it("a reload while it waits: the resumed stream replays the request, which can still be answered", async () => {
    const { id, token } = await shopperWithCart();
    const first = await checkOut(id, token);
    // The first page reads until the request, then goes away (a reload).
    const seen = await readEvents(first, {
      until: (events) => events.some((e) => e.event.type === "approval-request"),
    });
    const callId = (seen.at(-1)!.event as Of<"approval-request">).callId;
    const state = (await (await t.call("GET", `/api/sessions/${id}`, { token })).json()) as {
      turn: { running: boolean };
    };
    expect(state.turn.running).toBe(true);

    const resumed = await t.call("GET", `/api/sessions/${id}/stream`, { token });
    const events = await follow(resumed, async (event) => {
      if (event.type === "approval-request") {
        expect(event.callId).toBe(callId);
        expect((await decide(id, token, callId, { approve: true })).status).toBe(200);
      }
    });
    expect(ofType(events, "approval-request").map((e) => e.callId)).toEqual([callId]);
    expect(await t.store.listOrders({ sessionId: id })).toHaveLength(1);
  });

  it("Stop while it waits: nothing is ordered, the call is answered, the conversation stays valid", async () => {
    const { id, token } = await shopperWithCart();
    const events = await follow(await checkOut(id, token), async (event) => {
      if (event.type !== "approval-request") return;
      expect(await (await t.call("POST", `/api/sessions/${id}/cancel`, { token })).json()).toEqual({
        cancelled: true,
      });
    });
    expect(ofType(events, "approval-resolved")).toMatchObject([{ decision: "cancelled" }]);
    expect(ofType(events, "tool-result").find((e) => e.name === "checkout")?.status).toBe(
      "not_executed",
    );
    expect(await t.store.listOrders({ sessionId: id })).toEqual([]);
    const stored = await t.store.conversations.load(id);
    expect(validateConversation(stored)).toEqual([]);
  });

  it("answers clear JSON errors: bad body 400, no token 401, unknown call 404, another session 404", async () => {
    const { id, token } = await t.session();
    const other = await t.session();
    const bad = await decide(id, token, "toolu_x", { approve: "yes" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
    expect((await decide(id, token, "toolu_x", {})).status).toBe(400);
    const noToken = await t.call("POST", `/api/sessions/${id}/approvals/toolu_x`, {
      json: { approve: true },
    });
    expect(noToken.status).toBe(401);
    const unknown = await decide(id, token, "toolu_x", { approve: true });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: {
        code: "approval_not_found",
        message:
          "Nothing in this conversation is waiting for approval under that id (the reply may have ended).",
      },
    });
    expect((await decide(id, other.token, "toolu_x", { approve: true })).status).toBe(404);
    expect((await decide(id, token, "x".repeat(300), { approve: true })).status).toBe(404);
  });
});

describe("an unanswered approval times out (APPROVAL_TIMEOUT_MS)", () => {
  let t: TestShop;
  beforeAll(async () => {
    t = await createTestShop({ approvalTimeoutMs: 150 });
  });
  afterAll(() => t.close());

  it("the order is not placed, the assistant says so, and a late answer is a conflict", async () => {
    const { id, token } = await t.session();
    await readEvents(
      await t.call("POST", `/api/sessions/${id}/messages`, {
        token,
        json: { text: "add the charcoal wool socks in size M to my cart" },
      }),
    );
    let callId = "";
    const response = await t.call("POST", `/api/sessions/${id}/messages`, {
      token,
      json: { text: "check out" },
    });
    const events = await follow(response, (event) => {
      if (event.type === "approval-request") callId = event.callId;
    });
    expect(ofType(events, "approval-request")[0]?.timeoutMs).toBe(150);
    expect(ofType(events, "approval-resolved")).toMatchObject([{ decision: "timeout" }]);
    expect(finalText(events)).toMatch(/I did not place the order: it was not confirmed in time/);
    expect(await t.store.listOrders({ sessionId: id })).toEqual([]);
    // The turn is over: nothing waits any more.
    const late = await t.call("POST", `/api/sessions/${id}/approvals/${callId}`, {
      token,
      json: { approve: true },
    });
    expect(late.status).toBe(404);
  });
});
