import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestShop, TEST_MERCHANT_TOKEN, type TestShop } from "./test-shop.testkit.js";

let t: TestShop;
beforeAll(async () => {
  t = await createTestShop();
});
afterAll(() => t.close());

async function errorOf(response: Response) {
  expect(response.headers.get("content-type")).toContain("application/json");
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

describe("health and home page", () => {
  it("GET /healthz names the database and the model", async () => {
    const response = await t.call("GET", "/healthz");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      ok: true,
      db: "sqlite",
      model: "scripted-shop",
      scripted: true,
    });
  });

  it("GET / says the UI is coming, lists the API, names the model and that it is scripted", async () => {
    const response = await t.call("GET", "/");
    expect(response.headers.get("content-type")).toContain("text/html");
    const html = await response.text();
    expect(html).toContain("coming soon");
    expect(html).toContain("/api/sessions/:id/messages");
    expect(html).toContain("scripted-shop");
    expect(html).toContain("Scripted model.");
  });

  it("every answer carries a request id; a sane caller id is kept", async () => {
    const response = await t.call("GET", "/healthz", { headers: { "x-request-id": "abc-123" } });
    expect(response.headers.get("x-request-id")).toBe("abc-123");
    const other = await t.call("GET", "/healthz", { headers: { "x-request-id": "bad id\u0001" } });
    expect(other.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("sessions and isolation", () => {
  it("POST /api/sessions returns an id and a token; the session reads back with it", async () => {
    const response = await t.call("POST", "/api/sessions");
    expect(response.status).toBe(201);
    const session = (await response.json()) as { id: string; token: string; kind: string };
    expect(session.kind).toBe("shopper");
    expect(session.token.length).toBeGreaterThanOrEqual(32);
    const read = await t.call("GET", `/api/sessions/${session.id}`, { token: session.token });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({
      session: { id: session.id, kind: "shopper" },
      messages: [],
      turn: { running: false, lastTurnId: null },
    });
  });

  it("no token is 401 (with WWW-Authenticate), an unknown token 401", async () => {
    const { id } = await t.session();
    const none = await t.call("GET", `/api/sessions/${id}/cart`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect((await errorOf(none)).code).toBe("unauthorized");
    const wrong = await t.call("GET", `/api/sessions/${id}/cart`, { token: "nope" });
    expect(wrong.status).toBe(401);
  });

  it("another session's valid token never reads or changes this session: 404 everywhere", async () => {
    const alice = await t.session();
    const bob = await t.session();
    const added = await t.call("POST", `/api/sessions/${alice.id}/cart/items`, {
      token: alice.token,
      json: { productId: "p-0001", quantity: 2, size: "US 10", color: "Volt" },
    });
    expect(added.status).toBe(200);
    const routes: Array<[string, string, unknown?]> = [
      ["GET", ""],
      ["GET", "/cart"],
      ["GET", "/stream"],
      ["POST", "/messages", { text: "hi" }],
      ["POST", "/cancel"],
      ["POST", "/cart/items", { productId: "p-0002", quantity: 1, size: "M", color: "Charcoal" }],
      ["PATCH", "/cart/items/p-0001", { quantity: 5 }],
      ["DELETE", "/cart/items/p-0001"],
    ];
    for (const [method, suffix, json] of routes) {
      const response = await t.call(method, `/api/sessions/${alice.id}${suffix}`, {
        token: bob.token,
        ...(json === undefined ? {} : { json }),
      });
      expect([403, 404], `${method} ${suffix}`).toContain(response.status);
      const text = await response.text();
      expect(text).not.toContain("p-0001");
      expect(text).not.toContain("Aero");
    }
    const cart = await t.store.getCart(alice.id);
    expect(cart.lines.map((l) => [l.productId, l.quantity])).toEqual([["p-0001", 2]]);
    expect(t.shop.turns.log(alice.id)).toBeUndefined();
  });

  it("an unknown session id is 404 even with a valid token", async () => {
    const { token } = await t.session();
    const response = await t.call("GET", "/api/sessions/s-0000000000000000", { token });
    expect(response.status).toBe(404);
  });
});

describe("merchant side", () => {
  it("POST /api/merchant/sessions needs the merchant token", async () => {
    expect((await t.call("POST", "/api/merchant/sessions")).status).toBe(401);
    const wrong = await t.call("POST", "/api/merchant/sessions", { token: "x".repeat(40) });
    expect(wrong.status).toBe(403);
    const shopper = await t.session();
    const withShopper = await t.call("POST", "/api/merchant/sessions", { token: shopper.token });
    expect(withShopper.status).toBe(403);
    const ok = await t.call("POST", "/api/merchant/sessions", { token: TEST_MERCHANT_TOKEN });
    expect(ok.status).toBe(201);
    expect(await ok.json()).toMatchObject({ kind: "merchant", token: expect.any(String) });
  });

  it("shopper tokens get 403 on merchant routes, merchant tokens 403 on shopper routes", async () => {
    const shopper = await t.session();
    const merchant = await t.session("merchant");
    for (const [method, suffix] of [
      ["GET", ""],
      ["GET", "/stream"],
      ["POST", "/messages"],
      ["POST", "/cancel"],
    ] as const) {
      const json = method === "POST" ? { json: { text: "what is low on stock?" } } : {};
      const own = await t.call(method, `/api/merchant/sessions/${shopper.id}${suffix}`, {
        token: shopper.token,
        ...json,
      });
      expect(own.status, `shopper on merchant ${suffix}`).toBe(403);
      const reverse = await t.call(method, `/api/sessions/${merchant.id}${suffix}`, {
        token: merchant.token,
        ...json,
      });
      expect(reverse.status, `merchant on shopper ${suffix}`).toBe(403);
    }
    const cart = await t.call("GET", `/api/sessions/${merchant.id}/cart`, {
      token: merchant.token,
    });
    expect(cart.status).toBe(403);
    const read = await t.call("GET", `/api/merchant/sessions/${merchant.id}`, {
      token: merchant.token,
    });
    expect(read.status).toBe(200);
  });
});

describe("request checks", () => {
  it("a body over the limit is 413", async () => {
    const { id, token } = await t.session();
    const response = await t.call("POST", `/api/sessions/${id}/messages`, {
      token,
      body: JSON.stringify({ text: "x".repeat(20_000) }),
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(413);
    expect((await errorOf(response)).code).toBe("payload_too_large");
  });

  it("a body over the limit without content-length (chunked) is 413 too", async () => {
    const { id, token } = await t.session();
    const big = new TextEncoder().encode(JSON.stringify({ text: "y".repeat(20_000) }));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < big.length; i += 1024) controller.enqueue(big.slice(i, i + 1024));
        controller.close();
      },
    });
    const response = await t.shop.app.request(`/api/sessions/${id}/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "transfer-encoding": "chunked" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
  });

  it("malformed JSON is 400 invalid_json; a schema-invalid body 400 with the reason", async () => {
    const { id, token } = await t.session();
    const malformed = await t.call("POST", `/api/sessions/${id}/messages`, {
      token,
      body: '{"text": "hi",',
      // A string body is text/plain by default, which is refused (415) before it is read.
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    expect((await errorOf(malformed)).code).toBe("invalid_json");

    const cases: Array<[unknown, string]> = [
      [{}, "text"],
      [{ text: 42 }, "text"],
      [{ text: "z".repeat(4_001) }, "at most 4000 characters"],
      [{ text: "🛒".repeat(4_001) }, "at most 4000 characters"],
    ];
    for (const [json, reason] of cases) {
      const response = await t.call("POST", `/api/sessions/${id}/messages`, { token, json });
      expect(response.status).toBe(400);
      const error = await errorOf(response);
      expect(error.code).toBe("invalid_request");
      expect(error.message).toContain(reason);
    }
    expect(t.shop.turns.log(id)).toBeUndefined();
  });

  it("an empty message, blank or of invisible characters only, is 400 empty_message and starts no turn", async () => {
    const { id, token } = await t.session();
    for (const text of [
      "",
      "   \n ",
      "\u200b",
      "\u200d\u200c \ufeff",
      "\u2060\u00ad\u200e\t\u202e",
    ]) {
      const response = await t.call("POST", `/api/sessions/${id}/messages`, {
        token,
        json: { text },
      });
      expect(response.status, JSON.stringify(text)).toBe(400);
      const error = await errorOf(response);
      expect(error.code).toBe("empty_message");
      expect(error.message).toContain("The message is empty");
    }
    expect(t.shop.turns.log(id)).toBeUndefined();
    expect(await t.store.conversations.load(id)).toEqual([]);
    // An emoji ZWJ sequence is something to say.
    const family = await t.call("POST", `/api/sessions/${id}/messages`, {
      token,
      json: { text: "\u200b👩‍👩‍👧\u200b" },
    });
    expect(family.status).toBe(200);
    await family.text();
  });

  it("a message of exactly 4,000 characters is accepted (an emoji counts as one)", async () => {
    const { id, token } = await t.session();
    const response = await t.call("POST", `/api/sessions/${id}/messages`, {
      token,
      json: { text: "🛒".repeat(4_000) },
    });
    expect(response.status).toBe(200);
    await response.body?.cancel();
  });

  it("unknown routes answer 404 JSON", async () => {
    const response = await t.call("GET", "/api/nothing-here");
    expect(response.status).toBe(404);
    expect(await errorOf(response)).toEqual({
      code: "not_found",
      message: "There is no route GET /api/nothing-here.",
    });
  });

  it("GET /stream before any turn is 204", async () => {
    const { id, token } = await t.session();
    const response = await t.call("GET", `/api/sessions/${id}/stream`, { token });
    expect(response.status).toBe(204);
  });

  it("cancel without a running turn says so", async () => {
    const { id, token } = await t.session();
    const response = await t.call("POST", `/api/sessions/${id}/cancel`, { token });
    expect(await response.json()).toEqual({ cancelled: false });
  });
});

describe("cart over REST", () => {
  it("adds, reads, changes and removes lines with names, prices, totals and the limit", async () => {
    const { id, token } = await t.session();
    const base = `/api/sessions/${id}/cart`;
    expect(
      (
        await t.call("POST", `${base}/items`, {
          token,
          json: { productId: "p-0001", quantity: 2, size: "US 10", color: "Volt" },
        })
      ).status,
    ).toBe(200);
    await t.call("POST", `${base}/items`, {
      token,
      json: { productId: "p-0002", quantity: 1, size: "M", color: "Charcoal" },
    });
    const cart = (await (await t.call("GET", base, { token })).json()) as { cart: unknown };
    expect(cart.cart).toEqual({
      lines: [
        {
          productId: "p-0001",
          name: "Aero Trail Runner",
          quantity: 2,
          unitPriceCents: 8_900,
          unitPrice: "$89.00",
          lineTotalCents: 17_800,
          lineTotal: "$178.00",
          size: "US 10",
          color: "Volt",
        },
        {
          productId: "p-0002",
          name: "Merino Wool Socks",
          quantity: 1,
          unitPriceCents: 1_450,
          unitPrice: "$14.50",
          lineTotalCents: 1_450,
          lineTotal: "$14.50",
          size: "M",
          color: "Charcoal",
        },
      ],
      itemCount: 3,
      totalCents: 19_250,
      total: "$192.50",
      limitCents: 500_000,
      limit: "$5,000.00",
      maxQuantityPerLine: 10,
    });
    const patched = await t.call("PATCH", `${base}/items/p-0001`, { token, json: { quantity: 5 } });
    expect(((await patched.json()) as { cart: { itemCount: number } }).cart.itemCount).toBe(6);
    const removed = await t.call("DELETE", `${base}/items/p-0002`, { token });
    expect(((await removed.json()) as { cart: { lines: unknown[] } }).cart.lines).toHaveLength(1);
    const zero = await t.call("PATCH", `${base}/items/p-0001`, { token, json: { quantity: 0 } });
    expect(((await zero.json()) as { cart: { lines: unknown[] } }).cart.lines).toEqual([]);
  });

  it("a broken rule is 409 with the rule's own message; an unknown product 404", async () => {
    const { id, token } = await t.session();
    const base = `/api/sessions/${id}/cart`;
    const tooMany = await t.call("POST", `${base}/items`, {
      token,
      json: { productId: "p-0001", quantity: 11, size: "US 10", color: "Volt" },
    });
    expect(tooMany.status).toBe(409);
    expect(await errorOf(tooMany)).toEqual({
      code: "quantity_out_of_range",
      message: "Quantity must be a whole number from 1 to 10 (got 11).",
      // The facts the page writes its own words from.
      params: { productId: "p-0001", name: "Aero Trail Runner", quantity: 11, max: 10 },
    });
    const notInCart = await t.call("PATCH", `${base}/items/p-0003`, {
      token,
      json: { quantity: 2 },
    });
    expect(notInCart.status).toBe(409);
    expect((await errorOf(notInCart)).code).toBe("not_in_cart");
    const unknown = await t.call("POST", `${base}/items`, {
      token,
      json: { productId: "p-9999", quantity: 1 },
    });
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).code).toBe("unknown_product");
    const unknownDelete = await t.call("DELETE", `${base}/items/nope`, { token });
    expect(unknownDelete.status).toBe(404);
    const badQuantity = await t.call("POST", `${base}/items`, {
      token,
      json: { productId: "p-0001", quantity: "two" },
    });
    expect(badQuantity.status).toBe(400);
    expect((await errorOf(badQuantity)).message).toContain("quantity");
  });

  it("refuses a product without its size or colour (409 variant_required, the choices as params), adds it with them, and completes a line over PATCH", async () => {
    const { id, token } = await t.session();
    const base = `/api/sessions/${id}/cart`;
    const refused = await t.call("POST", `${base}/items`, {
      token,
      json: { productId: "p-0001", quantity: 1 },
    });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      error: {
        code: "variant_required",
        message:
          "Choose a size (US 6, US 7, US 8, US 9, US 10, US 11, US 12, US 13) and a colour (Slate, Volt) for Aero Trail Runner; nothing was added.",
        params: {
          choices: [
            {
              productId: "p-0001",
              name: "Aero Trail Runner",
              missing: ["size", "color"],
              sizes: ["US 6", "US 7", "US 8", "US 9", "US 10", "US 11", "US 12", "US 13"],
              colors: ["Slate", "Volt"],
            },
          ],
        },
      },
    });
    expect((await t.store.getCart(id)).lines).toEqual([]);
    const bad = await t.call("POST", `${base}/items`, {
      token,
      json: { productId: "p-0001", quantity: 1, size: "15", color: "Volt" },
    });
    expect(bad.status).toBe(409);
    expect((await errorOf(bad)).code).toBe("invalid_variant");
    // Two sizes of one product are two lines; PATCH and DELETE name the line.
    for (const size of ["9", "10"]) {
      const added = await t.call("POST", `${base}/items`, {
        token,
        json: { productId: "p-0001", quantity: 1, size, color: "Volt" },
      });
      expect(added.status).toBe(200);
    }
    const ambiguous = await t.call("PATCH", `${base}/items/p-0001`, {
      token,
      json: { quantity: 3 },
    });
    expect(ambiguous.status).toBe(409);
    expect((await errorOf(ambiguous)).code).toBe("ambiguous_line");
    const patched = await t.call("PATCH", `${base}/items/p-0001`, {
      token,
      json: { quantity: 3, line: { size: "US 9", color: "Volt" } },
    });
    const lines = ((await patched.json()) as { cart: { lines: object[] } }).cart.lines;
    expect(lines).toMatchObject([
      { size: "US 9", quantity: 3 },
      { size: "US 10", quantity: 1 },
    ]);
    const removed = await t.call("DELETE", `${base}/items/p-0001?size=US%2010`, { token });
    expect(((await removed.json()) as { cart: { lines: object[] } }).cart.lines).toMatchObject([
      { size: "US 9" },
    ]);
    // A line from before sizes were required: marked in the view, completed over PATCH.
    await t.store.withCart(id, () => ({
      ok: true,
      cart: { lines: [{ productId: "p-0001", quantity: 1, unitPriceCents: 8_900 }] },
    }));
    const view = (await (await t.call("GET", base, { token })).json()) as {
      cart: { lines: { needs?: { missing: string[] } }[] };
    };
    expect(view.cart.lines[0]?.needs?.missing).toEqual(["size", "color"]);
    const fixed = await t.call("PATCH", `${base}/items/p-0001`, {
      token,
      json: { size: "10", color: "slate" },
    });
    expect(((await fixed.json()) as { cart: { lines: object[] } }).cart.lines).toEqual([
      expect.objectContaining({ size: "US 10", color: "Slate", quantity: 1 }),
    ]);
    const empty = await t.call("PATCH", `${base}/items/p-0001`, { token, json: {} });
    expect(empty.status).toBe(400);
  });

  it("the total limit holds over REST: the rule's message says what would fit", async () => {
    const { id, token } = await t.session();
    const base = `/api/sessions/${id}/cart`;
    const pricey = (await t.store.listProducts())
      .filter((p) => p.stock >= 10)
      .sort((a, b) => b.priceCents - a.priceCents);
    let lastError: { code: string; message: string } | undefined;
    for (const product of pricey.slice(0, 40)) {
      const response = await t.call("POST", `${base}/items`, {
        token,
        json: {
          productId: product.id,
          quantity: 2,
          size: product.sizes[0],
          color: product.colors[0],
        },
      });
      if (response.status === 409) {
        lastError = await errorOf(response);
        break;
      }
    }
    expect(lastError?.code).toBe("over_limit");
    expect(lastError?.message).toMatch(/over the \$5,000\.00 limit/);
    expect((await t.store.getCart(id)).lines.length).toBeGreaterThan(0);
  });
});

describe("errors toward the browser are masked, logs are complete and token-free", () => {
  it("an unexpected failure is a generic 500 and is logged in full with the request id", async () => {
    const broken = await createTestShop();
    const { id, token } = await broken.session();
    broken.store.getCart = async () => {
      throw new Error("SQLITE_CORRUPT: database disk image is malformed at /var/secret/path");
    };
    const response = await broken.call("GET", `/api/sessions/${id}/cart`, { token });
    expect(response.status).toBe(500);
    const body = await response.text();
    expect(body).not.toContain("SQLITE");
    expect(JSON.parse(body)).toEqual({
      error: { code: "internal", message: "Something went wrong on our side. Please try again." },
    });
    const requestId = response.headers.get("x-request-id")!;
    const logged = broken.logs.find((line) => line.includes("SQLITE_CORRUPT"));
    expect(logged).toContain(requestId);
    expect(broken.logs.join("\n")).not.toContain(token);
    await broken.close();
  });

  it("tokens never appear in the logs", async () => {
    const { id, token } = await t.session();
    await t.call("GET", `/api/sessions/${id}/cart`, { token });
    await t.call("POST", "/api/merchant/sessions", { token: TEST_MERCHANT_TOKEN });
    const all = t.logs.join("\n");
    expect(all).toContain(`/api/sessions/${id}/cart`);
    expect(all).not.toContain(token);
    expect(all).not.toContain(TEST_MERCHANT_TOKEN);
  });
});

describe("rate limits", () => {
  it("refuses a burst of new sessions from one address with 429 and retry-after", async () => {
    const limited = await createTestShop({ sessionsPerMinute: 3 });
    try {
      const statuses = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await limited.call("POST", "/api/sessions")).status);
      expect(statuses).toEqual([201, 201, 201, 429, 429]);
      const refused = await limited.call("POST", "/api/sessions");
      expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
        "rate_limited",
      );
    } finally {
      await limited.close();
    }
  });

  it("limits the turns one session starts per minute, not other sessions", async () => {
    const limited = await createTestShop({ turnsPerMinute: 1 });
    try {
      const a = await limited.session();
      const b = await limited.session();
      const send = (s: { id: string; token: string }) =>
        limited.call("POST", `/api/sessions/${s.id}/messages`, {
          token: s.token,
          json: { text: "hello" },
        });
      const first = await send(a);
      expect(first.status).toBe(200);
      await first.text(); // let the turn finish
      // refused requests cost nothing: a blank message (400) does not use the budget...
      expect(
        (
          await limited.call("POST", `/api/sessions/${b.id}/messages`, {
            token: b.token,
            json: { text: " " },
          })
        ).status,
      ).toBe(400);
      expect((await send(a)).status).toBe(429);
      const other = await send(b);
      expect(other.status).toBe(200);
      await other.text();
    } finally {
      await limited.close();
    }
  });
});
