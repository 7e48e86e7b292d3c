import {
  type AgentEvent,
  type LoggedEvent,
  type Message,
  validateConversation,
} from "overlap-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServer, startHttpServer } from "./start-http-server.js";
import { createTestShop, readEvents, seqOf, type TestShop } from "./test-shop.testkit.js";

const DEMO =
  "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart and tell me the total";

type Of<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;

/** The events of the turn itself (not forwarded from a delegate) of one round. */
function roundEvents(events: readonly LoggedEvent[], round: number): AgentEvent[] {
  return events
    .map((e) => e.event)
    .filter((e) => "round" in e && e.round === round && e.parentCallId === undefined);
}

function finalText(events: readonly LoggedEvent[]): string {
  const rounds = events.map((e) => e.event).filter((e) => e.type === "round-start").length;
  return roundEvents(events, rounds)
    .filter((e): e is Of<"text-delta"> => e.type === "text-delta")
    .map((e) => e.text)
    .join("");
}

function expectConsecutiveIds(events: readonly LoggedEvent[]): void {
  const turnIds = new Set(events.map((e) => e.id.slice(0, e.id.lastIndexOf(":"))));
  expect(turnIds.size).toBe(1);
  expect(events.map((e) => seqOf(e.id))).toEqual(events.map((_, i) => i + 1));
}

describe("the demo flow over HTTP against the embedded model", () => {
  let t: TestShop;
  beforeAll(async () => {
    t = await createTestShop({ pacing: { tokensPerSecond: 400, firstTokenMs: 20 } });
  });
  afterAll(() => t.close());

  it("streams the turn: tools start while the model generates, results in call order, right total", async () => {
    const { id, token } = await t.session();
    const started = performance.now();
    const response = await t.call("POST", `/api/sessions/${id}/messages`, {
      token,
      json: { text: DEMO },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    const events = await readEvents(response);
    expect(performance.now() - started).toBeLessThan(3_000);
    expectConsecutiveIds(events);
    expect(response.headers.get("x-turn-id")).toBe(events[0]!.id.split(":")[0]);

    const round1 = roundEvents(events, 1);
    const calls = round1.filter((e): e is Of<"tool-call"> => e.type === "tool-call");
    expect(calls.map((c) => c.name)).toEqual(["add_to_cart", "add_to_cart", "cart_total"]);
    // Eager dispatch: a tool was running before the model finished the round's last call block.
    const firstRunning = round1.findIndex(
      (e) => e.type === "tool-status" && e.status === "running",
    );
    const lastCallStart = round1.findLastIndex((e) => e.type === "tool-call-start");
    const roundEnd = round1.findIndex((e) => e.type === "round-end");
    expect(firstRunning).toBeGreaterThan(-1);
    expect(firstRunning).toBeLessThan(lastCallStart);
    expect(firstRunning).toBeLessThan(roundEnd);
    // Results in call order, whatever order the tools finished in.
    const results = round1.filter((e): e is Of<"tool-result"> => e.type === "tool-result");
    expect(results.map((r) => r.callId)).toEqual(calls.map((c) => c.callId));
    expect(results.every((r) => r.status === "ok")).toBe(true);

    const last = events.at(-1)!.event;
    expect(last).toMatchObject({ type: "done", stopReason: "end_turn" });
    expect(events.some((e) => e.event.type === "error")).toBe(false);
    expect(finalText(events)).toContain("$103.50");

    const cart = (await (await t.call("GET", `/api/sessions/${id}/cart`, { token })).json()) as {
      cart: { lines: Array<{ name: string; quantity: number }>; total: string };
    };
    expect(cart.cart.lines.map((l) => [l.name, l.quantity])).toEqual([
      ["Aero Trail Runner", 1],
      ["Merino Wool Socks", 1],
    ]);
    expect(cart.cart.total).toBe("$103.50");

    const session = (await (await t.call("GET", `/api/sessions/${id}`, { token })).json()) as {
      messages: Message[];
      turn: { running: boolean; lastTurnId: string };
    };
    expect(session.turn.running).toBe(false);
    expect(session.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(validateConversation(session.messages)).toEqual([]);
  });

  it("a second message while a turn runs is 409; the first turn is unaffected", async () => {
    const { id, token } = await t.session();
    const first = await t.call("POST", `/api/sessions/${id}/messages`, {
      token,
      json: { text: DEMO },
    });
    const second = await t.call("POST", `/api/sessions/${id}/messages`, {
      token,
      json: { text: "add the charcoal wool socks in size M" },
    });
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ error: { code: "turn_running" } });
    const events = await readEvents(first);
    expect(events.at(-1)!.event).toMatchObject({ type: "done", stopReason: "end_turn" });
    const again = await t.call("POST", `/api/sessions/${id}/messages`, {
      token,
      json: { text: "what is in my cart?" },
    });
    expect(again.status).toBe(200);
    await readEvents(again);
  });

  it("the merchant agent runs under /api/merchant/sessions", async () => {
    const { id, token } = await t.session("merchant");
    const response = await t.call("POST", `/api/merchant/sessions/${id}/messages`, {
      token,
      json: { text: "what is low on stock?" },
    });
    expect(response.status).toBe(200);
    const events = await readEvents(response);
    expect(events.every((e) => e.event.agent === "merchant")).toBe(true);
    expect(events.some((e) => e.event.type === "tool-call")).toBe(true);
    expect(events.at(-1)!.event).toMatchObject({ type: "done", stopReason: "end_turn" });
  });
});

describe("resuming a turn's stream over a real connection", () => {
  let t: TestShop;
  let server: HttpServer;
  beforeAll(async () => {
    // Slower pacing: the reconnection happens while the turn is still generating.
    t = await createTestShop({ pacing: { tokensPerSecond: 150, firstTokenMs: 20 } });
    server = await startHttpServer(t.shop.app.fetch, { port: 0, hostname: "127.0.0.1" });
  });
  afterAll(async () => {
    await server.close({ graceMs: 100 });
    await t.close();
  });

  const post = (path: string, token: string, json?: unknown) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
  const get = (path: string, token: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });

  it("disconnect halfway, reconnect with Last-Event-ID: nothing lost, nothing twice; the turn went on", async () => {
    const { id, token } = await t.session();
    const head = await readEvents(
      await post(`/api/sessions/${id}/messages`, token, { text: DEMO }),
      {
        until: (events) => events.length === 12,
      },
    );
    expect(head).toHaveLength(12);
    const state = (await (await get(`/api/sessions/${id}`, token)).json()) as {
      turn: { running: boolean };
    };
    expect(state.turn.running).toBe(true); // the dropped connection did not stop it

    const resumed = await get(`/api/sessions/${id}/stream`, token, {
      "last-event-id": head.at(-1)!.id,
    });
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get("content-type")).toBe("text/event-stream");
    const tail = await readEvents(resumed);

    const whole = await readEvents(await get(`/api/sessions/${id}/stream`, token));
    const joined = [...head, ...tail];
    expect(joined).toEqual(whole);
    expectConsecutiveIds(joined);
    expect(joined.at(-1)!.event).toMatchObject({ type: "done", stopReason: "end_turn" });
    expect((await t.store.getCart(id)).lines).toHaveLength(2);
  });

  it("?lastEventId= works for EventSource fallbacks, twice in a row", async () => {
    const { id, token } = await t.session();
    const first = await readEvents(
      await post(`/api/sessions/${id}/messages`, token, { text: DEMO }),
      {
        until: (events) => events.length === 5,
      },
    );
    const second = await readEvents(
      await get(
        `/api/sessions/${id}/stream?lastEventId=${encodeURIComponent(first.at(-1)!.id)}`,
        token,
      ),
      { until: (events) => events.length === 7 },
    );
    const third = await readEvents(
      await get(`/api/sessions/${id}/stream`, token, { "last-event-id": second.at(-1)!.id }),
    );
    const joined = [...first, ...second, ...third];
    expectConsecutiveIds(joined);
    expect(joined).toEqual(await readEvents(await get(`/api/sessions/${id}/stream`, token)));
  });

  it("an id of another (older) turn replays the current turn from its start", async () => {
    const { id, token } = await t.session();
    const older = await readEvents(
      await post(`/api/sessions/${id}/messages`, token, { text: "hello" }),
    );
    const newer = await readEvents(
      await post(`/api/sessions/${id}/messages`, token, {
        text: "add the charcoal wool socks in size M",
      }),
    );
    const replay = await readEvents(
      await get(`/api/sessions/${id}/stream`, token, { "last-event-id": older.at(-1)!.id }),
    );
    expect(replay).toEqual(newer);
  });
});

describe("cancel", () => {
  let t: TestShop;
  beforeAll(async () => {
    t = await createTestShop({ pacing: { tokensPerSecond: 80, firstTokenMs: 20 } });
  });
  afterAll(() => t.close());

  it("cancel mid-turn stops it, the conversation is repaired, and the next message works", async () => {
    const { id, token } = await t.session();
    const response = await t.call("POST", `/api/sessions/${id}/messages`, {
      token,
      json: { text: DEMO },
    });
    const events: LoggedEvent[] = [];
    let running!: () => void;
    const toolRunning = new Promise<void>((resolve) => {
      running = resolve;
    });
    const reading = readEvents(response, {
      until: (so) => {
        events.splice(0, events.length, ...so);
        if (so.at(-1)?.event.type === "tool-status") running();
        return false;
      },
    });
    await toolRunning; // a tool started; the model is still generating the round
    const cancel = await t.call("POST", `/api/sessions/${id}/cancel`, { token });
    expect(await cancel.json()).toEqual({ cancelled: true });
    const all = await reading;
    expect(all.at(-2)!.event).toMatchObject({ type: "error", code: "aborted" });
    expect(all.at(-1)!.event).toMatchObject({ type: "done", stopReason: "error" });
    expect(all.some((e) => e.event.type === "round-start" && e.event.round === 2)).toBe(false);

    const stored = await t.store.conversations.load(id);
    expect(validateConversation(stored)).toEqual([]);
    const calls = stored.flatMap((m) =>
      m.role === "assistant" ? m.content.filter((b) => b.type === "tool_use") : [],
    );
    expect(calls.length).toBeGreaterThan(0); // the interrupted round was kept, every call answered

    // The embedded model validates requests like the real API: a broken conversation would fail.
    const next = await t.call("POST", `/api/sessions/${id}/messages`, {
      token,
      json: { text: "what is in my cart?" },
    });
    expect(next.status).toBe(200);
    const after = await readEvents(next);
    expect(after.some((e) => e.event.type === "error")).toBe(false);
    expect(after.at(-1)!.event).toMatchObject({ type: "done", stopReason: "end_turn" });
  });

  it("a browser that disconnects does not cancel the turn", async () => {
    const { id, token } = await t.session();
    const controller = new AbortController();
    const response = await t.call("POST", `/api/sessions/${id}/messages`, {
      token,
      json: { text: "add the charcoal wool socks in size M to my cart" },
      signal: controller.signal,
    });
    await readEvents(response, { until: (so) => so.length === 3 });
    controller.abort();
    const rest = await readEvents(await t.call("GET", `/api/sessions/${id}/stream`, { token }));
    expect(rest.at(-1)!.event).toMatchObject({ type: "done", stopReason: "end_turn" });
    expect((await t.store.getCart(id)).lines.map((l) => l.productId)).toEqual(["p-0002"]);
  });
});

describe("heartbeats", () => {
  it("a quiet stream carries SSE comment heartbeats", async () => {
    const t = await createTestShop({
      pacing: { tokensPerSecond: 400, firstTokenMs: 250 },
      heartbeatMs: 40,
    });
    const { id, token } = await t.session();
    const response = await t.call("POST", `/api/sessions/${id}/messages`, {
      token,
      json: { text: "hello" },
    });
    const raw = await response.text();
    expect(raw).toMatch(/^: heartbeat$/m);
    expect(raw).toContain("event: done");
    await t.close();
  });
});
