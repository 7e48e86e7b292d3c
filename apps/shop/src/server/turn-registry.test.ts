import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import type { AgentEvent } from "overlap-runtime";
import { durableHolderId, TurnLeaseLostError } from "overlap-runtime/durable";
import { describe, expect, it } from "vitest";
import { openStore } from "../db/open-store.js";
import { TurnRegistry } from "./turn-registry.js";

const done: AgentEvent = { type: "done", roundCount: 1, stopReason: "end_turn" };

describe("TurnRegistry", () => {
  it("runs one turn per session: a second start while running is refused", async () => {
    const turns = new TurnRegistry();
    let finish: () => void = () => {};
    const log = turns.start(
      "s1",
      (t) =>
        new Promise<void>((resolve) => {
          finish = () => {
            t.emit(done);
            resolve();
          };
        }),
    );
    expect(log).toBeDefined();
    expect(turns.start("s1", async () => {})).toBeUndefined();
    expect(turns.start("s2", async (t) => t.emit(done))).toBeDefined();
    finish();
    const events = [];
    for await (const e of log!.read()) events.push(e.event.type);
    expect(events).toEqual(["done"]);
    expect(turns.running("s1")).toBe(false);
    expect(turns.start("s1", async (t) => t.emit(done))).toBeDefined();
  });

  it("cancel aborts the turn's signal and waits for it to end; the log keeps the last turn", async () => {
    const turns = new TurnRegistry();
    turns.start("s", async (t) => {
      await new Promise<void>((resolve) => t.signal.addEventListener("abort", () => resolve()));
      t.emit({ type: "error", code: "aborted", message: "The request was cancelled." });
      t.emit({ type: "done", roundCount: 0, stopReason: "error" });
    });
    expect(await turns.cancel("s")).toBe(true);
    expect(turns.running("s")).toBe(false);
    expect(turns.log("s")?.size).toBe(2);
    expect(await turns.cancel("s")).toBe(false);
  });

  it("a turn body that throws still ends its log with a masked error and done", async () => {
    const errors: unknown[] = [];
    const turns = new TurnRegistry({ onError: (e) => errors.push(e) });
    const log = turns.start("s", async () => {
      throw new Error("database password wrong: hunter2");
    });
    const events = [];
    for await (const e of log!.read()) events.push(e.event);
    expect(events.map((e) => e.type)).toEqual(["error", "done"]);
    expect(JSON.stringify(events)).not.toContain("hunter2");
    expect(errors).toHaveLength(1);
  });

  it("forgets a finished turn's log after the retention time, never a running or newer one", async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const turns = new TurnRegistry({ retainMs: 100 });
    turns.start("s", async (t) => t.emit(done));
    await sleep(10);
    expect(turns.log("s")).toBeDefined();
    await sleep(150);
    expect(turns.log("s")).toBeUndefined();

    let release: () => void = () => {};
    const running = turns.start(
      "s",
      (t) =>
        new Promise<void>((resolve) => {
          release = () => {
            t.emit(done);
            resolve();
          };
        }),
    );
    await sleep(150);
    expect(turns.log("s")).toBe(running); // still running: kept
    release(); // its timer fires 100 ms from now
    await sleep(50);
    const newer = turns.start("s", async (t) => t.emit(done)); // its timer: 100 ms from now
    await sleep(75);
    expect(turns.log("s")).toBe(newer); // the older turn's timer fired and left the newer log
  });
});

describe("TurnRegistry with the database's turn leases", () => {
  const withLeases = async (ttlMs = 60_000) => {
    const store = await openStore({ sqliteFile: ":memory:" });
    const chat = await store.createSession("shopper");
    const turns = new TurnRegistry({
      durable: { store: store.durable, holder: durableHolderId(), ttlMs },
    });
    return { store, chat: chat.id, turns };
  };

  it("a claimed chat refuses a second claim; done is logged once the lease is released", async () => {
    const { store, chat, turns } = await withLeases();
    const claimed = await turns.claim(chat);
    if (!claimed.ok) throw new Error("the free chat was refused");
    expect(claimed.claim.tookOver).toBeUndefined();
    // Refused here (in memory) and in the database alike, before the turn started.
    expect(await turns.claim(chat)).toMatchObject({ ok: false });
    let finish: () => void = () => {};
    const log = turns.start(
      chat,
      (t) =>
        new Promise<void>((resolve) => {
          finish = () => {
            t.emit(done);
            resolve();
          };
        }),
      claimed.claim,
    )!;
    expect((await store.durable.leases.current(chat))?.turnId).toBe(log.turnId);
    expect(await turns.claim(chat)).toMatchObject({ ok: false });
    finish();
    const leaseWhenDone: unknown[] = [];
    for await (const e of log.read()) {
      if (e.event.type === "done") leaseWhenDone.push(await store.durable.leases.current(chat));
    }
    expect(leaseWhenDone).toEqual([undefined]);
    expect(await turns.claim(chat)).toMatchObject({ ok: true });
    await store.close();
  });

  it("a start without a claim is a programming error; a released claim frees the chat", async () => {
    const { store, chat, turns } = await withLeases();
    expect(() => turns.start(chat, async () => {})).toThrow(/must claim its chat/);
    const claimed = await turns.claim(chat);
    if (!claimed.ok) throw new Error("refused");
    await claimed.claim.release();
    expect(await store.durable.leases.current(chat)).toBeUndefined();
    expect(await turns.claim(chat)).toMatchObject({ ok: true });
    await store.close();
  });

  it("a turn whose lease another instance took over is aborted", async () => {
    const { store, chat, turns } = await withLeases(300);
    const claimed = await turns.claim(chat);
    if (!claimed.ok) throw new Error("refused");
    let reason: unknown;
    const log = turns.start(
      chat,
      async (t) => {
        await new Promise<void>((resolve) => t.signal.addEventListener("abort", () => resolve()));
        reason = t.signal.reason;
        t.emit({ type: "done", roundCount: 0, stopReason: "error" });
      },
      claimed.claim,
    )!;
    // Another instance finds the lease expired (as after a pause longer than its time).
    await store.durable.leases.release(chat, log.turnId);
    await store.durable.leases.claim(chat, {
      turnId: "other",
      holder: "elsewhere/1/x",
      ttlMs: 60_000,
    });
    for await (const _ of log.read()) {
      // until the turn ended
    }
    expect(reason).toBeInstanceOf(TurnLeaseLostError);
    // Its end released nothing of the new holder's.
    expect((await store.durable.leases.current(chat))?.turnId).toBe("other");
    await store.close();
  });

  it("takes over at once a lease of a process of this machine that is gone; waits out another machine's", async () => {
    const { store, chat, turns } = await withLeases();
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    await store.durable.leases.claim(chat, {
      turnId: "crashed",
      holder: `${hostname()}/${gone}/abcd1234`,
      ttlMs: 60_000,
    });
    const taken = await turns.claim(chat);
    expect(taken).toMatchObject({ ok: true, claim: { tookOver: { turnId: "crashed" } } });
    if (taken.ok) await taken.claim.release();

    const other = await store.createSession("shopper");
    await store.durable.leases.claim(other.id, {
      turnId: "far",
      holder: `another-machine/${gone}/abcd1234`,
      ttlMs: 60_000,
    });
    const refused = await turns.claim(other.id);
    expect(refused).toMatchObject({ ok: false });
    if (!refused.ok) expect(refused.retryAfterMs).toBeGreaterThan(0);
    // And never a lease of a live process here (this one's own, under another turn).
    const third = await store.createSession("shopper");
    await store.durable.leases.claim(third.id, {
      turnId: "live",
      holder: `${hostname()}/${process.ppid}/abcd1234`,
      ttlMs: 60_000,
    });
    expect(await turns.claim(third.id)).toMatchObject({ ok: false });
    await store.close();
  });

  it("a turn whose instance died is found in the database: its readers are told it crashed", async () => {
    const { store, chat, turns } = await withLeases();
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    expect(await turns.find(chat)).toBeUndefined();
    const holder = `${hostname()}/${gone}/abcd1234`;
    await store.durable.leases.claim(chat, { turnId: "dead-turn", holder, ttlMs: 60_000 });
    const writer = await store.durable.events.start(chat, "dead-turn", holder);
    writer.append({ type: "text-delta", round: 1, index: 0, text: "half" });
    await writer.flush();
    const view = await turns.find(chat);
    expect(view).toMatchObject({ turnId: "dead-turn", running: false });
    const read = async (lastEventId?: string) => {
      const out: Array<{ id: string; type: string }> = [];
      for await (const e of view!.read(lastEventId)) out.push({ id: e.id, type: e.event.type });
      return out;
    };
    expect(await read("dead-turn:1")).toEqual([
      { id: "dead-turn:2", type: "error" },
      { id: "dead-turn:3", type: "done" },
    ]);
    expect((await read())[0]?.id).toBe("dead-turn:1");
    // A live lease of another machine is not a crash (its turn runs there).
    const other = await store.createSession("shopper");
    await store.durable.leases.claim(other.id, {
      turnId: "far",
      holder: "elsewhere/1/x",
      ttlMs: 60_000,
    });
    await store.durable.events.start(other.id, "far", "elsewhere/1/x");
    expect(await turns.find(other.id)).toMatchObject({ turnId: "far", running: true });
    await store.close();
  });
});
