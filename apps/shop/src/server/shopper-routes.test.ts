import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../db/open-store.js";
import { addToCart } from "../domain/cart.js";
import { addInFirstVariant } from "../domain/test-products.testkit.js";
import {
  createTestShop,
  readEvents,
  TEST_MERCHANT_TOKEN,
  type TestShop,
} from "./test-shop.testkit.js";

let t: TestShop;
beforeAll(async () => {
  t = await createTestShop({ sessionsPerMinute: 1_000 });
});
afterAll(() => t.close());

interface Created {
  id: string;
  token: string;
  kind: string;
  shopperId: string;
  shopperToken?: string;
}

async function start(token?: string): Promise<Created> {
  const response = await t.call("POST", "/api/sessions", token === undefined ? {} : { token });
  expect(response.status).toBe(201);
  return (await response.json()) as Created;
}

async function errorOf(response: Response) {
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

const cartOf = async (id: string, token: string) =>
  (
    (await (await t.call("GET", `/api/sessions/${id}/cart`, { token })).json()) as {
      cart: { lines: { productId: string; quantity: number }[] };
    }
  ).cart.lines;

async function say(id: string, token: string, text: string): Promise<string> {
  const events = await readEvents(
    await t.call("POST", `/api/sessions/${id}/messages`, { token, json: { text } }),
  );
  return events.flatMap((e) => (e.event.type === "text-delta" ? [e.event.text] : [])).join("");
}

describe("POST /api/sessions: a new shopper, or a new chat of the token's shopper", () => {
  it("without a token starts a new shopper (its token shown once); with one, a chat of that shopper", async () => {
    const first = await start();
    expect(first).toMatchObject({ kind: "shopper", shopperId: expect.stringMatching(/^u-/) });
    expect(first.shopperToken?.length).toBeGreaterThanOrEqual(40);
    const byShopper = await start(first.shopperToken);
    const byChat = await start(first.token);
    for (const chat of [byShopper, byChat]) {
      expect(chat.shopperId).toBe(first.shopperId);
      expect(chat.shopperToken).toBeUndefined();
      expect(chat.id).not.toBe(first.id);
    }
    expect((await start()).shopperId).not.toBe(first.shopperId);
  });

  it("refuses wrong tokens clearly: 401 for an unknown or malformed one, 403 for a merchant's", async () => {
    const unknown = await t.call("POST", "/api/sessions", { token: "x".repeat(43) });
    expect(unknown.status).toBe(401);
    expect((await errorOf(unknown)).code).toBe("unauthorized");
    const malformed = await t.call("POST", "/api/sessions", {
      headers: { authorization: "Basic abc" },
    });
    expect(malformed.status).toBe(401);
    expect((await errorOf(malformed)).message).toContain("no Authorization header");
    const merchant = await t.session("merchant");
    for (const token of [merchant.token, TEST_MERCHANT_TOKEN]) {
      const response = await t.call("POST", "/api/sessions", { token });
      expect([401, 403]).toContain(response.status);
    }
    expect((await t.call("POST", "/api/sessions", { token: merchant.token })).status).toBe(403);
  });
});

describe("the cart belongs to the shopper", () => {
  it("a new chat keeps the cart: both chats see and change the same one", async () => {
    const first = await start();
    const second = await start(first.token);
    const added = await t.call("POST", `/api/sessions/${first.id}/cart/items`, {
      token: first.token,
      json: { productId: "p-0001", quantity: 2, size: "US 10", color: "Volt" },
    });
    expect(added.status).toBe(200);
    expect(await cartOf(second.id, second.token)).toMatchObject([
      { productId: "p-0001", quantity: 2, size: "US 10", color: "Volt" },
    ]);
    // Any token of the shopper opens any of their chats' routes.
    expect(await cartOf(second.id, first.shopperToken!)).toHaveLength(1);
    expect(await cartOf(first.id, second.token)).toHaveLength(1);
    const stranger = await start();
    expect(await cartOf(stranger.id, stranger.token)).toEqual([]);
  });

  it("two chats adding at once keep the per-line cap: exactly 10 of 14 adds succeed", async () => {
    const first = await start();
    const second = await start(first.shopperToken);
    const adds = Array.from({ length: 14 }, (_, i) =>
      t.call("POST", `/api/sessions/${(i % 2 === 0 ? first : second).id}/cart/items`, {
        token: (i % 2 === 0 ? first : second).token,
        json: { productId: "p-0002", quantity: 1, size: "M", color: "Charcoal" },
      }),
    );
    const statuses = (await Promise.all(adds)).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 409)).toHaveLength(4);
    expect(await cartOf(first.id, first.token)).toEqual([
      expect.objectContaining({ productId: "p-0002", quantity: 10, size: "M", color: "Charcoal" }),
    ]);
  });

  it("the assistant in a new chat finds the cart filled in the first one", async () => {
    const first = await start();
    await say(first.id, first.token, "add the Volt Aero trail runner in size 10 to my cart");
    expect(await cartOf(first.id, first.token)).toMatchObject([{ productId: "p-0001" }]);
    const second = await start(first.token);
    const reply = await say(second.id, second.token, "what's in my cart?");
    expect(reply).toContain("Aero Trail Runner");
    // A third chat knows nothing of the cart yet: it looks at the cart first, then acts on it.
    const third = await start(first.shopperToken);
    await say(third.id, third.token, "remove the aero trail runner");
    expect(await cartOf(first.id, first.token)).toEqual([]);
  });
});

describe("the scripted model's cart knowledge comes from the cart", () => {
  it("a chat whose cart changed in another chat is told the cart as it is now", async () => {
    const first = await start();
    await say(first.id, first.token, "add the charcoal wool socks in size M to my cart");
    await say(first.id, first.token, "empty my cart");
    // The first chat now believes the cart is empty; the second chat fills it.
    const second = await start(first.token);
    await say(second.id, second.token, "add the Volt Aero trail runner in size 10 to my cart");
    expect(await cartOf(first.id, first.token)).toMatchObject([{ productId: "p-0001" }]);
    // Back in the first chat, "check out" goes to the order summary instead of "empty".
    const events = await readEvents(
      await t.call("POST", `/api/sessions/${first.id}/messages`, {
        token: first.token,
        json: { text: "check out" },
      }),
      { until: (seen) => seen.some((e) => e.event.type === "approval-request") },
    );
    const asked = events.find((e) => e.event.type === "approval-request")?.event;
    expect(asked).toMatchObject({ name: "checkout" });
    expect(JSON.stringify(asked)).toContain("Aero Trail Runner");
    await t.call("POST", `/api/sessions/${first.id}/cancel`, { token: first.token });
    // The note is for the model; the shopper's words are kept after it.
    const stored = await t.store.conversations.load(first.id);
    const request = JSON.stringify(
      stored.filter((m) => m.role === "user" && JSON.stringify(m).includes("check out")).at(-1),
    );
    expect(request).toContain("The cart changed outside this chat");
    expect(request).toContain("check out");
    // A chat whose knowledge is right gets no note.
    await say(second.id, second.token, "what's my total?");
    const again = await t.store.conversations.load(second.id);
    expect(JSON.stringify(again)).not.toContain("system-reminder");
  });
});

describe("GET /api/shopper/chats and reopening a chat", () => {
  it("lists the shopper's chats newest first; any chat of the shopper reopens, another shopper's never", async () => {
    const first = await start();
    await say(first.id, first.token, "show me running shoes under 100");
    const second = await start(first.token);
    await say(second.id, second.token, "hello");
    const empty = await start(first.token);
    const response = await t.call("GET", "/api/shopper/chats", { token: empty.token });
    expect(response.status).toBe(200);
    const { chats } = (await response.json()) as {
      chats: { id: string; title: string; lastActivity: string; messageCount: number }[];
    };
    expect(chats.map((c) => c.id)).toEqual([second.id, first.id]);
    expect(chats[1]).toMatchObject({ title: "show me running shoes under 100" });
    expect(chats[1]!.messageCount).toBeGreaterThanOrEqual(2);
    expect(Date.parse(chats[0]!.lastActivity)).toBeGreaterThanOrEqual(
      Date.parse(chats[1]!.lastActivity),
    );
    // Reopen: the first chat's transcript with the newest chat's token, or the shopper's.
    for (const token of [empty.token, first.shopperToken!]) {
      const read = await t.call("GET", `/api/sessions/${first.id}`, { token });
      expect(read.status).toBe(200);
      const body = (await read.json()) as { session: { id: string }; messages: unknown[] };
      expect(body.session.id).toBe(first.id);
      expect(JSON.stringify(body.messages)).toContain("running shoes under 100");
    }
    // Another shopper: not their chat (404, nothing shown), not in their list.
    const stranger = await start();
    for (const token of [stranger.token, stranger.shopperToken!]) {
      const read = await t.call("GET", `/api/sessions/${first.id}`, { token });
      expect(read.status).toBe(404);
      expect(await read.text()).not.toContain("running shoes");
      const post = await t.call("POST", `/api/sessions/${first.id}/messages`, {
        token,
        json: { text: "hi" },
      });
      expect(post.status).toBe(404);
    }
    const theirs = await t.call("GET", "/api/shopper/chats", { token: stranger.token });
    expect(await theirs.json()).toEqual({ chats: [] });
  });

  it("wants a shopper's token: 401 without or with a wrong one, 403 with a merchant's", async () => {
    for (const path of ["/api/shopper/chats", "/api/shopper/orders"]) {
      const none = await t.call("GET", path);
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toContain("Bearer");
      expect((await t.call("GET", path, { token: "nope" })).status).toBe(401);
      const merchant = await t.session("merchant");
      expect((await t.call("GET", path, { token: merchant.token })).status).toBe(403);
      const { token } = await start();
      const bad = await t.call("GET", `${path}?limit=0`, { token });
      expect(bad.status).toBe(400);
      expect((await errorOf(bad)).message).toContain("limit");
    }
  });
});

describe("GET /api/shopper/orders", () => {
  it("lists the shopper's orders from every chat with lines, variants, totals, status and time", async () => {
    const first = await start();
    const second = await start(first.token);
    const shoe = await t.store.getProduct("p-0001");
    const size = shoe!.sizes[1]!;
    const color = shoe!.colors[0]!;
    await t.store.withCart(second.id, async (cart, tx) =>
      addToCart(cart, await tx.getProduct("p-0001"), 1, tx.rules, { size, color }),
    );
    await t.store.withCart(first.id, async (cart, tx) =>
      addInFirstVariant(cart, await tx.getProduct("p-0002"), 2, tx.rules),
    );
    const placed = await t.store.checkout(first.id, "call_orders_1");
    expect(placed.ok).toBe(true);
    const response = await t.call("GET", "/api/shopper/orders", { token: second.token });
    expect(response.status).toBe(200);
    const { orders } = (await response.json()) as { orders: Record<string, unknown>[] };
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({
      chatId: first.id,
      status: "placed",
      itemCount: 3,
      total: expect.stringMatching(/^\$\d/),
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      lines: [
        { productId: "p-0001", name: shoe!.name, quantity: 1, size, color },
        { productId: "p-0002", quantity: 2, size: "S", color: "Charcoal" },
      ],
    });
    const stranger = await start();
    const theirs = await t.call("GET", "/api/shopper/orders", { token: stranger.token });
    expect(await theirs.json()).toEqual({ orders: [] });
  });
});

describe("POST /api/shopper/forget", () => {
  /** What every request with `token` answers: the status of each of the shopper's routes. */
  const statuses = async (token: string, chatId: string) => ({
    chat: (await t.call("GET", `/api/sessions/${chatId}`, { token })).status,
    cart: (await t.call("GET", `/api/sessions/${chatId}/cart`, { token })).status,
    newChat: (await t.call("POST", "/api/sessions", { token })).status,
    chats: (await t.call("GET", "/api/shopper/chats", { token })).status,
    orders: (await t.call("GET", "/api/shopper/orders", { token })).status,
    forget: (await t.call("POST", "/api/shopper/forget", { token })).status,
  });
  const all = (status: number) => ({
    chat: status,
    cart: status,
    newChat: status,
    chats: status,
    orders: status,
    forget: status,
  });

  it("revokes the shopper's token and every chat token: each then gets the 401 of an unknown token", async () => {
    const first = await start();
    const second = await start(first.shopperToken);
    const other = await start();
    const tokens = [first.shopperToken!, first.token, second.token];
    expect((await t.call("GET", `/api/sessions/${second.id}`, { token: first.token })).status).toBe(
      200,
    );

    const forgot = await t.call("POST", "/api/shopper/forget", { token: second.token });
    expect(forgot.status).toBe(200);
    expect(await forgot.json()).toEqual({ forgotten: true, revokedChats: 2 });

    const unknown = await t.call("GET", `/api/sessions/${first.id}`, { token: "x".repeat(43) });
    const unknownBody = await unknown.json();
    for (const token of tokens) {
      const response = await t.call("GET", `/api/sessions/${first.id}`, { token });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe(
        unknown.headers.get("www-authenticate"),
      );
      expect(await response.json()).toEqual(unknownBody);
      expect(await statuses(token, second.id)).toEqual(all(401));
    }
    // Another shopper is untouched; a request without a token starts a new shopper.
    expect((await statuses(other.token, other.id)).chat).toBe(200);
    expect((await start()).shopperId).not.toBe(first.shopperId);
  });

  it("wants a shopper's token: 401 without or with an unknown one, 403 with a merchant's", async () => {
    const none = await t.call("POST", "/api/shopper/forget");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect((await t.call("POST", "/api/shopper/forget", { token: "nope" })).status).toBe(401);
    const merchant = await t.session("merchant");
    expect((await t.call("POST", "/api/shopper/forget", { token: merchant.token })).status).toBe(
      403,
    );
    // The merchant's session still works.
    expect(
      (await t.call("GET", `/api/merchant/sessions/${merchant.id}`, { token: merchant.token }))
        .status,
    ).toBe(200);
  });

  it("stops a turn of the forgotten chats that is still running (a checkout waiting for Confirm)", async () => {
    const chat = await start();
    await say(chat.id, chat.token, "add the charcoal wool socks in size M to my cart");
    await readEvents(
      await t.call("POST", `/api/sessions/${chat.id}/messages`, {
        token: chat.token,
        json: { text: "check out" },
      }),
      { until: (events) => events.some((e) => e.event.type === "approval-request") },
    );
    expect(t.shop.turns.running(chat.id)).toBe(true);
    const forgot = await t.call("POST", "/api/shopper/forget", { token: chat.shopperToken! });
    expect(await forgot.json()).toEqual({ forgotten: true, revokedChats: 1 });
    expect(t.shop.turns.running(chat.id)).toBe(false);
    // No order was placed: the cart's shopper has none.
    expect(await t.store.listOrders({ shopperId: chat.shopperId })).toEqual([]);
  });
});

describe("using a token never extends its lifetime", () => {
  it("with a 1-minute lifetime, a chat made at 45 s from a chat token opens nothing at 65 s", async () => {
    let now = Date.parse("2026-03-01T12:00:00.000Z");
    const store = await openStore({ sqliteFile: ":memory:", tokenTtlMs: 60_000, clock: () => now });
    const shop = await createTestShop({ store, sessionsPerMinute: 1_000 });
    try {
      const post = async (token?: string) => {
        const r = await shop.call("POST", "/api/sessions", token === undefined ? {} : { token });
        return { status: r.status, body: (await r.json()) as Created & { expiresAt: string } };
      };
      const first = (await post()).body;
      now += 45_000;
      const fresh = await post(first.token);
      expect(fresh.status).toBe(201);
      // The new chat says when it ends: with the chat that made it, not a minute from now.
      expect(fresh.body.expiresAt).toBe("2026-03-01T12:01:00.000Z");
      const uses = async (token: string) => [
        (await shop.call("GET", `/api/sessions/${first.id}`, { token })).status,
        (await shop.call("GET", `/api/sessions/${fresh.body.id}/cart`, { token })).status,
        (await shop.call("GET", "/api/shopper/orders", { token })).status,
        (await shop.call("GET", "/api/shopper/chats", { token })).status,
        (await post(token)).status,
      ];
      now += 14_999; // 59.999 s: everything still opens.
      expect(await uses(fresh.body.token)).toEqual([200, 200, 200, 200, 201]);
      now += 5_001; // 65 s.
      for (const token of [fresh.body.token, first.token, first.shopperToken!]) {
        expect(await uses(token)).toEqual([401, 401, 401, 401, 401]);
      }
    } finally {
      await shop.close();
      await store.close();
    }
  });
});
