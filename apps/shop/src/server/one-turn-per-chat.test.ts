/**
 * One turn per chat on every instance, with real OS processes (`npm start`'s entry point) on one
 * PostgreSQL and one Redis, and a slow cart (each effect's transaction held open) so that turns
 * would overlap if two could start:
 * - two and then three processes, 50 trials each, the same chat given a message on every
 *   process at the same moment: exactly one turn runs, the others are refused with 409 before
 *   anything is read or written; the cart equals what the conversation records; no call is there
 *   twice, none without its result; the refused messages left no trace;
 * - kill -9 of the process holding a chat's lease mid-turn, then a message on another: it takes
 *   the chat over (at once here: the dead holder was a process of this machine), repairs the
 *   conversation and answers; a Last-Event-ID resume of the dead turn says it ended by a crash;
 *   the cart equals the record. (The store suites test a lease waited out until it expires.)
 */

import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { type Message, validateConversation } from "overlap-runtime";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withDefaultUser } from "../db/postgres-store.js";
import { generateCatalog } from "../domain/catalog.js";
import {
  type ScriptedModelProcess,
  spawnScriptedModel,
  stopScriptedModel,
} from "../model/spawn-scripted-model.js";
import {
  deleteKeys,
  redisProblem,
  TEST_REDIS_URL,
  uniqueKeyPrefix,
} from "./redis-test-support.testkit.js";
import { callsOf, postgresProblem } from "./services.testkit.js";
import { type ShopProcess, spawnShop, stopShop } from "./spawn-shop.testkit.js";
import { readEvents } from "./test-shop.testkit.js";

const DATABASE_URL = withDefaultUser(process.env.DATABASE_URL || "postgres://127.0.0.1:5432/test");

const problems = [await postgresProblem(), await redisProblem()].filter((p) => p !== null);
const skip = problems.length > 0 && process.env.CI !== "true";
if (skip) {
  console.warn(
    `\n!!! One-turn-per-chat test SKIPPED: ${problems.join("; ")} ` +
      "(needs PostgreSQL and Redis; CI=true makes this a failure).\n",
  );
}

/** Products without sizes or colour choices: a message names one exactly, nothing to ask. */
const PRODUCTS = generateCatalog()
  .filter((p) => p.sizes.length === 0 && p.colors.length <= 1 && p.stock >= 60)
  .slice(0, 3);
const nameOf = (id: string) => PRODUCTS.find((p) => p.id === id)?.name ?? id;
/** The lease time the processes run with (short, so the crash test waits little). */
const LEASE_MS = 3_000;

interface Chat {
  id: string;
  token: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(skip)("one turn per chat on several instances (PostgreSQL and Redis)", () => {
  const schema = `shop_lease_${randomBytes(4).toString("hex")}`;
  const keyPrefix = uniqueKeyPrefix();
  const servers: ShopProcess[] = [];
  let model: ScriptedModelProcess | undefined;
  let env: Record<string, string> = {};

  const auth = (chat: Chat) => ({
    authorization: `Bearer ${chat.token}`,
    "content-type": "application/json",
  });
  const newChat = async (server: ShopProcess): Promise<Chat> => {
    const response = await fetch(`${server.url}/api/sessions`, { method: "POST" });
    expect(response.status).toBe(201);
    return (await response.json()) as Chat;
  };
  const send = (server: ShopProcess, chat: Chat, text: string) =>
    fetch(`${server.url}/api/sessions/${chat.id}/messages`, {
      method: "POST",
      headers: auth(chat),
      body: JSON.stringify({ text }),
    });
  const conversation = async (server: ShopProcess, chat: Chat) =>
    (
      (await (
        await fetch(`${server.url}/api/sessions/${chat.id}`, { headers: auth(chat) })
      ).json()) as { messages: Message[] }
    ).messages;
  const cart = async (server: ShopProcess, chat: Chat) =>
    (
      (await (
        await fetch(`${server.url}/api/sessions/${chat.id}/cart`, { headers: auth(chat) })
      ).json()) as { cart: { lines: Array<{ productId: string; quantity: number }> } }
    ).cart.lines.map((l): [string, number] => [l.productId, l.quantity]);

  beforeAll(async () => {
    expect(PRODUCTS).toHaveLength(3);
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    model = await spawnScriptedModel({
      args: ["--port", "0", "--tps", "2000", "--first-token-ms", "5"],
    });
    const url = new URL(DATABASE_URL);
    url.searchParams.set("options", `-c search_path=${schema}`);
    env = {
      DATABASE_URL: url.toString(),
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: keyPrefix,
      MERCHANT_TOKEN: "one-turn-per-chat-test",
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: "any-key",
      MODEL: "scripted-shop",
      RATE_LIMIT_TURNS_PER_MINUTE: "1000000",
      RATE_LIMIT_SESSIONS_PER_MINUTE: "1000000",
      // The cart is slow: each effect holds its transaction open, so turns would overlap.
      SHOP_TOOL_DELAY_MS: "150",
      TURN_LEASE_MS: String(LEASE_MS),
    };
    // One after the other: the first migrates the fresh schema, the others find it ready.
    for (let i = 0; i < 3; i++) servers.push(await spawnShop(env));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => stopShop(server)));
    if (model) await stopScriptedModel(model);
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
    const redis = new Redis(TEST_REDIS_URL);
    await deleteKeys(redis, keyPrefix);
    redis.disconnect();
  });

  for (const count of [2, 3]) {
    it(`${count} processes, 50 trials of simultaneous messages on one chat: exactly one turn runs each time`, async () => {
      const on = servers.slice(0, count);
      let chat = await newChat(on[0]!);
      let userCount = 0;
      for (let trial = 0; trial < 50; trial++) {
        // A new chat (and shopper) every 10 trials: long and fresh conversations both.
        if (trial > 0 && trial % 10 === 0) {
          chat = await newChat(on[trial % count]!);
          userCount = 0;
        }
        const texts = on.map((_, i) => `add the ${nameOf(PRODUCTS[i]!.id)} to my cart`);
        const responses = await Promise.all(on.map((server, i) => send(server, chat, texts[i]!)));
        const what = `trial ${trial}: ${responses.map((r) => r.status).join(", ")}`;
        const accepted = responses.flatMap((r, i) => (r.status === 200 ? [i] : []));
        expect(accepted, what).toHaveLength(1);
        for (const [i, response] of responses.entries()) {
          if (i === accepted[0]) continue;
          expect(response.status, what).toBe(409);
          expect(await response.json(), what).toMatchObject({ error: { code: "turn_running" } });
          expect(response.headers.get("retry-after"), what).toMatch(/^\d+$/);
        }
        const winner = accepted[0]!;
        const events = await readEvents(responses[winner]!);
        expect(events.at(-1)?.event.type, what).toBe("done");
        expect(
          events.filter((e) => e.event.type === "error").map((e) => e.event),
          what,
        ).toEqual([]);
        expect(
          events.some((e) => e.event.type === "tool-call" && e.event.name === "add_to_cart"),
          `${what}: the turn added to the cart`,
        ).toBe(true);

        // Read back on another process than the one that ran the turn.
        const reader = on[(winner + 1) % count]!;
        const messages = await conversation(reader, chat);
        expectRecordedCart(messages, await cart(reader, chat), what);
        // The accepted message is the chat's one new user message; the refused ones left no trace.
        const said = userTexts(messages);
        expect(said.length, `${what}: one new user message`).toBe(userCount + 1);
        expect(said.at(-1), what).toContain(texts[winner]!);
        for (const [i, text] of texts.entries()) {
          if (i !== winner) expect(said.at(-1)?.includes(text), `${what}: "${text}"`).toBe(false);
        }
        userCount = said.length;
      }
    }, 300_000);
  }

  it("kill -9 of the lease holder mid-turn: another process takes the chat over, repairs it and answers", async () => {
    const slowEnv = { ...env, SHOP_TOOL_DELAY_MS: "800" };
    const a = await spawnShop(slowEnv);
    const b = await spawnShop(slowEnv);
    servers.push(a, b);
    const chat = await newChat(a);
    const [first, second] = PRODUCTS;
    const response = await send(
      a,
      chat,
      `add the ${first!.name} and the ${second!.name} to my cart and tell me the total`,
    );
    expect(response.status).toBe(200);
    // Until the first add runs (its effect is held open), then A dies.
    const seen = await readEvents(response, {
      until: (events) =>
        events.some((e) => e.event.type === "tool-status" && e.event.status === "running"),
    });
    await stopShop(a, "SIGKILL");
    const lastSeen = seen.at(-1)!.id;

    // A resume of the dead turn on B says the turn ended by a crash.
    const resumed = await fetch(`${b.url}/api/sessions/${chat.id}/stream`, {
      headers: { ...auth(chat), "last-event-id": lastSeen },
    });
    expect(resumed.status).toBe(200);
    const rest = (await readEvents(resumed)).map((e) => e.event);
    expect(rest.at(-2)).toMatchObject({ type: "error", code: "turn_crashed" });
    expect(rest.at(-1)).toMatchObject({ type: "done", stopReason: "error" });

    // B takes the chat over: at once, as A was a process of this machine that is gone (a lease
    // of another machine's would be waited out: 409 with Retry-After until it expires).
    let answer: Response | undefined;
    const deadline = Date.now() + LEASE_MS * 4;
    while (Date.now() < deadline) {
      const attempt = await send(b, chat, "what is in my cart?");
      if (attempt.status === 200) {
        answer = attempt;
        break;
      }
      expect(attempt.status).toBe(409);
      expect(Number(attempt.headers.get("retry-after"))).toBeGreaterThan(0);
      await attempt.body?.cancel();
      await sleep(200);
    }
    expect(answer, "B took the chat over").toBeDefined();
    const events = (await readEvents(answer!)).map((e) => e.event);
    expect(events.at(-1)).toMatchObject({ type: "done" });
    expect(events.filter((e) => e.type === "error")).toEqual([]);

    const messages = await conversation(b, chat);
    const lines = await cart(b, chat);
    expectRecordedCart(messages, lines, "after the takeover");
    // The dead turn's calls are in the conversation, each answered once.
    const { uses } = callsOf(messages);
    expect(uses.filter((u) => u.name === "add_to_cart").length).toBeGreaterThanOrEqual(1);
    expect(userTexts(messages).at(-1)).toContain("what is in my cart?");
  }, 120_000);
});

/** The user's own words, one entry per user message with text. */
function userTexts(messages: readonly Message[]): string[] {
  return messages.flatMap((m) => {
    if (m.role !== "user") return [];
    if (typeof m.content === "string") return [m.content];
    const text = m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
    return text ? [text] : [];
  });
}

/**
 * The conversation is valid, every call is there once with exactly one result, and the cart is
 * what its successful cart calls made of an empty cart (this test's chats change the cart only
 * through turns).
 */
function expectRecordedCart(
  messages: readonly Message[],
  lines: ReadonlyArray<[string, number]>,
  what: string,
): void {
  expect(validateConversation(messages), what).toEqual([]);
  const { uses, results } = callsOf(messages);
  const ids = uses.map((u) => u.id);
  expect(new Set(ids).size, `${what}: no call twice`).toBe(ids.length);
  const expected = new Map<string, number>();
  for (const use of uses) {
    const answers = results.filter((r) => r.tool_use_id === use.id);
    expect(answers, `${what}: ${use.name} answered once`).toHaveLength(1);
    if (answers[0]?.is_error) continue;
    const input = use.input as { productId?: string; quantity?: number };
    if (!input.productId) continue;
    if (use.name === "add_to_cart") {
      expected.set(input.productId, (expected.get(input.productId) ?? 0) + (input.quantity ?? 1));
    } else if (use.name === "update_cart_item") {
      expected.set(input.productId, input.quantity ?? 0);
    } else if (use.name === "remove_from_cart") {
      expected.delete(input.productId);
    }
  }
  const sorted = (pairs: Iterable<[string, number]>) =>
    [...pairs].filter(([, q]) => q > 0).sort(([x], [y]) => x.localeCompare(y));
  expect(sorted(lines), `${what}: the cart is what the conversation records`).toEqual(
    sorted(expected),
  );
}
