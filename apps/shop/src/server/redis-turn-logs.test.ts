/**
 * RedisTurnLogs against a real Redis: two "instances" (a TurnRegistry each, on a connection each)
 * share turns. A turn running on A is found and read live on B from a Last-Event-ID with the
 * in-memory log's ids and replay rules; a reader that leaves, an instance that dies and a Redis
 * that goes away mid-turn.
 */

import type { AgentEvent, LoggedEvent, TurnEventLog } from "overlap-runtime";
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TURN_CRASHED_MESSAGE } from "./crashed-turn.js";
import { connectRedis, RedisUnreachableError } from "./redis-connection.js";
import {
  deleteKeys,
  redisProxy,
  skipWithoutRedis,
  TEST_REDIS_URL,
  uniqueKeyPrefix,
} from "./redis-test-support.testkit.js";
import { RedisTurnLogs, type RedisTurnLogsOptions } from "./redis-turn-logs.js";
import { TurnRegistry, type TurnView } from "./turn-registry.js";

const skip = await skipWithoutRedis("Redis turn log tests");
const silent = pino({ level: "silent" });
const prefix = uniqueKeyPrefix();

const text = (n: number): AgentEvent => ({ type: "text-delta", round: 1, index: 0, text: `t${n}` });
const done: AgentEvent = { type: "done", roundCount: 1, stopReason: "end_turn" };

type Redis = Awaited<ReturnType<typeof connectRedis>>;

/** One shop instance's turn machinery: its own connection, shared turns, registry. */
interface Instance {
  redis: Redis;
  logs: RedisTurnLogs;
  turns: TurnRegistry;
}

const opened: Instance[] = [];

async function instance(
  options: Partial<RedisTurnLogsOptions> = {},
  url = TEST_REDIS_URL,
): Promise<Instance> {
  const redis = await connectRedis({ url, logger: options.logger ?? silent });
  const logs = new RedisTurnLogs(redis, { keyPrefix: prefix, logger: silent, ...options });
  const created = { redis, logs, turns: new TurnRegistry({ shared: logs }) };
  opened.push(created);
  return created;
}

/** A turn body that emits `before` events, waits for `release()`, then emits `after` and done. */
function gatedTurn(before: number, after: number) {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const body = async (t: { emit(e: AgentEvent): void }) => {
    for (let i = 1; i <= before; i++) t.emit(text(i));
    await gate;
    for (let i = before + 1; i <= before + after; i++) t.emit(text(i));
    t.emit(done);
  };
  return { body, release: () => release() };
}

async function collect(
  source: AsyncIterable<LoggedEvent>,
  limit = Number.POSITIVE_INFINITY,
): Promise<LoggedEvent[]> {
  const out: LoggedEvent[] = [];
  for await (const entry of source) {
    out.push(entry);
    if (out.length >= limit) break;
  }
  return out;
}

/** Polls `find` until `accept` holds (a copy to Redis is asynchronous). */
async function findWhen(
  turns: TurnRegistry,
  sessionId: string,
  accept: (view: TurnView | undefined) => boolean,
): Promise<TurnView | undefined> {
  for (;;) {
    const view = await turns.find(sessionId);
    if (accept(view)) return view;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

async function ended(log: TurnEventLog): Promise<LoggedEvent[]> {
  return collect(log.read());
}

describe.skipIf(skip)("RedisTurnLogs: turns shared by several instances", () => {
  let admin: Redis;
  beforeAll(async () => {
    admin = await connectRedis({ url: TEST_REDIS_URL, logger: silent });
  });
  afterEach(async () => {
    for (const one of opened.splice(0)) {
      await one.turns.close();
      await one.logs.close();
      one.redis.disconnect();
    }
  });
  afterAll(async () => {
    await deleteKeys(admin, prefix);
    admin.disconnect();
  });

  it("a turn running on A resumes on B from a Last-Event-ID, live: ids continue, nothing twice or missing", async () => {
    const a = await instance();
    const b = await instance();
    const turn = gatedTurn(3, 4);
    const log = a.turns.start("s-live", turn.body)!;
    // B learns of the turn from Redis (it runs nothing itself).
    const view = (await findWhen(b.turns, "s-live", (v) => v?.turnId === log.turnId))!;
    expect(view.running).toBe(true);
    expect(b.turns.running("s-live")).toBe(false);

    const reading = view.read(`${log.turnId}:2`)[Symbol.asyncIterator]();
    const first = await reading.next(); // event 3, logged before the gate
    expect(first.value).toEqual({ id: `${log.turnId}:3`, event: text(3) });
    turn.release(); // the rest is logged now, while B reads
    const rest: LoggedEvent[] = [first.value as LoggedEvent];
    for (let next = await reading.next(); !next.done; next = await reading.next()) {
      rest.push(next.value);
    }
    const all = await ended(log);
    expect(rest).toEqual(all.slice(2));
    expect(rest.map((e) => e.id)).toEqual([3, 4, 5, 6, 7, 8].map((n) => `${log.turnId}:${n}`));
    expect(rest.at(-1)?.event).toEqual(done);

    const after = await findWhen(b.turns, "s-live", (v) => v?.running === false);
    expect(after?.turnId).toBe(log.turnId);
  });

  it("replays as the in-memory log does, for any Last-Event-ID", async () => {
    const a = await instance();
    const b = await instance();
    const log = a.turns.start("s-replay", async (t) => {
      for (let i = 1; i <= 4; i++) t.emit(text(i));
      t.emit(done);
    })!;
    await ended(log);
    const view = (await findWhen(b.turns, "s-replay", (v) => v?.running === false))!;
    const ids = [
      undefined,
      null,
      "",
      `${log.turnId}:0`,
      `${log.turnId}:2`,
      `${log.turnId}:5`,
      `${log.turnId}:99`,
      `${log.turnId}:-1`,
      `${log.turnId}:x`,
      "another-turn:3",
      "garbage",
    ];
    for (const id of ids) {
      expect(await collect(view.read(id)), String(id)).toEqual(await collect(log.read(id)));
    }
  });

  it("a newer turn of the session on B is the one A finds, not A's own older one", async () => {
    const a = await instance();
    const b = await instance();
    const older = a.turns.start("s-newer", async (t) => t.emit(done))!;
    await ended(older);
    await findWhen(b.turns, "s-newer", (v) => v?.turnId === older.turnId && !v.running);
    const turn = gatedTurn(1, 1);
    const newer = b.turns.start("s-newer", turn.body)!;
    const seen = await findWhen(a.turns, "s-newer", (v) => v?.turnId === newer.turnId);
    expect(seen?.running).toBe(true);
    turn.release();
    await ended(newer);
  });

  it("a reader that leaves stops at once, even while Redis has nothing to say", async () => {
    const a = await instance();
    const b = await instance({ blockMs: 60_000 }); // only leaving can end its wait in time
    const turn = gatedTurn(1, 0);
    const log = a.turns.start("s-leave", turn.body)!;
    const view = (await findWhen(b.turns, "s-leave", (v) => v?.turnId === log.turnId))!;
    const leave = new AbortController();
    const reading = view.read(undefined, leave.signal)[Symbol.asyncIterator]();
    expect((await reading.next()).value?.event).toEqual(text(1));
    const next = reading.next(); // waits in XREAD BLOCK: nothing more is logged
    await new Promise((resolve) => setTimeout(resolve, 50));
    leave.abort();
    expect(await next).toEqual({ done: true, value: undefined });
    turn.release();
  });

  it("when the instance running a turn dies, readers elsewhere are told so once its lease ran out", async () => {
    const a = await instance({ leaseMs: 300 });
    const b = await instance({ blockMs: 100 });
    const turn = gatedTurn(2, 0);
    const log = a.turns.start("s-dead", turn.body)!;
    const view = (await findWhen(b.turns, "s-dead", (v) => v?.turnId === log.turnId))!;
    await collect(view.read(undefined), 2);
    await a.logs.close(); // A "dies": no more copies, no more lease renewals
    const read = await collect(view.read(undefined));
    expect(read.map((e) => e.event)).toEqual([
      text(1),
      text(2),
      { type: "error", code: "turn_crashed", message: TURN_CRASHED_MESSAGE },
      { type: "done", roundCount: 0, stopReason: "error" },
    ]);
    // The ids go on from the last one logged, and a resume from any of them ends the same way.
    expect(read.map((e) => e.id)).toEqual([1, 2, 3, 4].map((n) => `${log.turnId}:${n}`));
    expect((await collect(view.read(`${log.turnId}:2`))).map((e) => e.id)).toEqual([
      `${log.turnId}:3`,
      `${log.turnId}:4`,
    ]);
    expect((await b.turns.find("s-dead"))?.running).toBe(false);
    turn.release();
  });

  it("Redis away mid-turn: the turn goes on and is served here; its events reach Redis once it is back", async () => {
    const proxy = await redisProxy();
    const lines: Array<{ level: number; msg: string }> = [];
    const logger = pino(
      { level: "info" },
      { write: (line: string) => lines.push(JSON.parse(line)) },
    );
    try {
      const a = await instance({ logger }, proxy.url);
      const b = await instance();
      const turn = gatedTurn(2, 3);
      const log = a.turns.start("s-outage", turn.body)!;
      const view = (await findWhen(b.turns, "s-outage", (v) => v?.turnId === log.turnId))!;
      const onB = view.read(`${log.turnId}:1`)[Symbol.asyncIterator]();
      expect((await onB.next()).value).toEqual({ id: `${log.turnId}:2`, event: text(2) });

      await proxy.cut(); // Redis goes away for A
      turn.release();
      const local = await ended(log); // A's own readers are not affected
      expect(local.map((e) => e.event)).toEqual([1, 2, 3, 4, 5].map(text).concat(done));
      expect((await a.turns.find("s-outage"))?.turnId).toBe(log.turnId); // from memory now
      await until(() => lines.some((l) => l.level === 50 && /Redis unreachable/.test(l.msg)));

      await proxy.restore(); // back: the copy resumes after the last event Redis acknowledged
      const rest: LoggedEvent[] = [];
      for (let next = await onB.next(); !next.done; next = await onB.next()) rest.push(next.value);
      expect(rest).toEqual(local.slice(2));
      await until(() => lines.some((l) => l.level === 30 && /Redis reachable again/.test(l.msg)));
    } finally {
      await proxy.close();
    }
  });

  it("an approval and a cancel sent to B reach the turn running on A", async () => {
    const a = await instance();
    const b = await instance();
    const request = { callId: "call-1", name: "checkout", input: {}, summary: "Place the order" };
    const log = a.turns.start("s-control", async (t) => {
      t.emit(text(1));
      const decision = await t.approvals.wait("call-1", t.signal, request);
      t.emit(text(decision.approve ? 2 : 3));
      // Then waits until cancelled.
      await new Promise<void>((resolve) => t.signal.addEventListener("abort", () => resolve()));
      t.emit(done);
    })!;
    await findWhen(b.turns, "s-control", (v) => v?.turnId === log.turnId);
    expect(await b.turns.decide("s-control", "nope", { approve: true })).toEqual({
      status: "unknown",
    });
    await until(() => log.size === 1); // the call waits
    expect(await b.turns.decide("s-control", "call-1", { approve: true })).toEqual({
      status: "resolved",
    });
    expect(await b.turns.decide("s-control", "call-1", { approve: false })).toEqual({
      status: "ended",
      decision: "approved",
    });
    expect(await b.turns.cancel("s-control")).toBe(true); // resolves once A's turn ended
    expect(log.closed).toBe(true);
    expect((await ended(log)).map((e) => e.event.type)).toEqual([
      "text-delta",
      "text-delta",
      "done",
    ]);
    expect((await ended(log))[1]?.event).toEqual(text(2));
    // Nothing runs any more: nothing to pass on.
    expect(await b.turns.cancel("s-control")).toBe(false);
    expect(await b.turns.decide("s-control", "call-1", { approve: true })).toEqual({
      status: "unknown",
    });
  });

  it("a finished turn's keys expire after the retention time", async () => {
    const a = await instance({ retainMs: 60_000 });
    const log = a.turns.start("s-retain", async (t) => t.emit(done))!;
    await ended(log);
    await findWhen(a.turns, "s-retain", (v) => v?.running === false);
    const keys = [`${prefix}turn:${log.turnId}`, `${prefix}session:s-retain:turn`];
    for (const key of keys) {
      const ttl = await admin.pttl(key);
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(60_000);
    }
    expect(await admin.exists(`${prefix}turn:${log.turnId}:alive`)).toBe(0);
  });
});

describe("connectRedis", () => {
  it("refuses to start with a sentence naming REDIS_URL when Redis does not answer", async () => {
    const attempt = connectRedis({
      url: "redis://:s3cret@127.0.0.1:1",
      logger: silent,
      connectTimeoutMs: 2_000,
    });
    await expect(attempt).rejects.toThrow(RedisUnreachableError);
    await expect(attempt).rejects.toThrow(
      /cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1 \(REDIS_URL\).*unset REDIS_URL/,
    );
  });
});
