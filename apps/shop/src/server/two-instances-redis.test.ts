/**
 * Several instances through Redis, with real OS processes (`npm start`'s entry point)
 * on one PostgreSQL and one Redis: a turn started on A and left mid-way resumes on B from its
 * Last-Event-ID, live, ids continuous, nothing twice or missing; B refuses a second message while
 * A runs the turn; the rate limits count across both. A key prefix of the run's own, removed after.
 */

import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withDefaultUser } from "../db/postgres-store.js";
import {
  deleteKeys,
  redisProblem,
  TEST_REDIS_URL,
  uniqueKeyPrefix,
} from "./redis-test-support.testkit.js";
import { postgresProblem } from "./services.testkit.js";
import { type ShopProcess, spawnShop, stopShop } from "./spawn-shop.testkit.js";
import { readEvents, seqOf } from "./test-shop.testkit.js";

const DATABASE_URL = withDefaultUser(process.env.DATABASE_URL || "postgres://127.0.0.1:5432/test");
const DEMO =
  "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart and tell me the total";

const problems = [await postgresProblem(), await redisProblem()].filter((p) => p !== null);
const skip = problems.length > 0 && process.env.CI !== "true";
if (skip) {
  console.warn(
    `\n!!! Two instances through Redis test SKIPPED: ${problems.join("; ")} ` +
      "(needs PostgreSQL and Redis; CI=true makes this a failure).\n",
  );
}

interface Session {
  id: string;
  token: string;
}

describe.skipIf(skip)("two shop processes sharing turns and limits through Redis", () => {
  const schema = `shop_redis_${randomBytes(4).toString("hex")}`;
  const keyPrefix = uniqueKeyPrefix();
  const servers: ShopProcess[] = [];
  let sessionsCreated = 0;

  const newSession = async (server: ShopProcess): Promise<Response> => {
    const response = await fetch(`${server.url}/api/sessions`, { method: "POST" });
    if (response.status === 201) sessionsCreated++;
    return response;
  };
  const auth = (s: Session) => ({ authorization: `Bearer ${s.token}` });
  const send = (server: ShopProcess, s: Session, text: string, signal?: AbortSignal) =>
    fetch(`${server.url}/api/sessions/${s.id}/messages`, {
      method: "POST",
      headers: { ...auth(s), "content-type": "application/json" },
      body: JSON.stringify({ text }),
      ...(signal ? { signal } : {}),
    });
  const state = async (server: ShopProcess, s: Session) =>
    (await (await fetch(`${server.url}/api/sessions/${s.id}`, { headers: auth(s) })).json()) as {
      turn: { running: boolean; lastTurnId: string | null };
    };

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const url = new URL(DATABASE_URL);
    url.searchParams.set("options", `-c search_path=${schema}`);
    const env = {
      DATABASE_URL: url.toString(),
      MERCHANT_TOKEN: "two-instances-redis-test",
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: keyPrefix,
      RATE_LIMIT_SESSIONS_PER_MINUTE: "3",
      RATE_LIMIT_TURNS_PER_MINUTE: "1",
      // Each cart change holds its transaction 1.5 s: the turn is still running when B joins.
      SHOP_TOOL_DELAY_MS: "1500",
    };
    // One after the other: the first migrates the fresh schema, the second finds it ready.
    servers.push(await spawnShop(env));
    servers.push(await spawnShop(env));
  }, 90_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => stopShop(server)));
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
    const redis = new Redis(TEST_REDIS_URL);
    await deleteKeys(redis, keyPrefix);
    redis.disconnect();
  });

  it("a turn started on A resumes on B from its Last-Event-ID, live: ids continue, nothing twice or missing", async () => {
    const [a, b] = servers as [ShopProcess, ShopProcess];
    const session = (await (await newSession(a)).json()) as Session;

    // The shopper reads the first events from A, then loses the connection.
    const leave = new AbortController();
    const head = await readEvents(await send(a, session, DEMO, leave.signal), {
      until: (events) => events.length === 5,
    });
    leave.abort();
    const turnId = head[0]!.id.slice(0, head[0]!.id.lastIndexOf(":"));

    // B knows the turn runs on A, and refuses a second message meanwhile.
    expect((await state(b, session)).turn).toEqual({ running: true, lastTurnId: turnId });
    const second = await send(b, session, "and a hat");
    expect(second.status).toBe(409);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe("turn_running");

    // It reconnects to B, which follows A's turn until its end.
    const resumed = await fetch(`${b.url}/api/sessions/${session.id}/stream`, {
      headers: { ...auth(session), "last-event-id": head.at(-1)!.id },
    });
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get("x-turn-id")).toBe(turnId);
    const tail = await readEvents(resumed);

    const joined = [...head, ...tail];
    expect(joined.map((e) => e.id)).toEqual(joined.map((_, i) => `${turnId}:${i + 1}`));
    expect(tail.length).toBeGreaterThan(0);
    expect(joined.at(-1)!.event).toMatchObject({ type: "done", stopReason: "end_turn" });
    // Exactly what A logged: A replays its own memory, B read Redis.
    const onA = await readEvents(
      await fetch(`${a.url}/api/sessions/${session.id}/stream`, { headers: auth(session) }),
    );
    expect(joined).toEqual(onA);
    expect(tail.every((e) => seqOf(e.id) > seqOf(head.at(-1)!.id))).toBe(true);
    const cart = (await (
      await fetch(`${b.url}/api/sessions/${session.id}/cart`, { headers: auth(session) })
    ).json()) as { cart: { lines: unknown[] } };
    expect(cart.cart.lines).toHaveLength(2);

    // Both instances now see the turn ended; the session's one turn a minute was A's.
    expect((await state(b, session)).turn).toEqual({ running: false, lastTurnId: turnId });
    const third = await send(b, session, "and a hat");
    expect(third.status).toBe(429);
    expect(((await third.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
  }, 60_000);

  it("new sessions from one address count on both instances against one limit", async () => {
    const [a, b] = servers as [ShopProcess, ShopProcess];
    const statuses: number[] = [];
    for (const server of [b, a, b, a]) statuses.push((await newSession(server)).status);
    // The limit is 3 a minute, one session was created by the test before.
    expect(sessionsCreated).toBe(3);
    expect(statuses).toEqual([201, 201, 429, 429]);
  }, 30_000);
});
