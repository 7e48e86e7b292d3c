/**
 * The behaviour every durable store must have, registered by the SQLite and PostgreSQL tests with
 * their own harness (and, for the parts an in-memory store has, by the in-memory one): messages
 * rewritten from a position, a writer that lost (a stale version, a lease taken over) changes
 * nothing, the ledger's first record wins per chat, the journal lives until the round is stored,
 * an effect commits with its record or not at all, one claim of many wins, an expired lease is
 * taken over, and a turn's event log is read whole, resumed exactly, followed live from another
 * store, and ended for its readers when its instance died.
 */

import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ConversationStore } from "../agent/conversation-store.js";
import type { ToolLedger } from "../dispatch/tool-ledger.js";
import { isOverlapError } from "../errors.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import type { Message } from "../stream/message.js";
import { type ToolCall, toolCallOf } from "../stream/tool-call.js";
import type { ToolContext } from "../tools/define-tool.js";
import type { ToolOutcome } from "../tools/tool-outcome.js";
import { collect, type DurableHarness, testPrefix } from "./durable-harness.testkit.js";
import { durableHolderId } from "./durable-identity.js";
import { registerRetentionTests } from "./durable-retention-suite.testkit.js";
import type { DurableStore } from "./durable-store.js";
import { TurnLeaseLostError } from "./durable-turn-leases.js";
import type { SqlExecutor } from "./sql-driver.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (role: "user" | "assistant", content: string): Message =>
  ({ role, content }) as Message;

/** A call of round `round` at `index`, as the assembler makes it. */
export function callOf(id: string, name: string, round = 1, index = 0, input = {}): ToolCall {
  return toolCallOf({ type: "tool_use", id, name, input }, { round, index });
}

function outcomeOf(callId: string, resultText: string): ToolOutcome {
  return { callId, name: "t", status: "ok", resultText, events: [], isError: false };
}

/** The interface behaviour every ConversationStore and ToolLedger has, in memory or durable. */
export function registerConversationConformance(
  name: string,
  make: () => Promise<{
    conversations: ConversationStore;
    ledger(chatId: string): ToolLedger;
    dispose(): Promise<void>;
  }>,
): void {
  describe(name, () => {
    let stores: Awaited<ReturnType<typeof make>>;
    beforeEach(async () => {
      stores = await make();
    });
    afterEach(async () => {
      await stores.dispose();
    });

    it("stores every message in order and rewrites from `from`", async () => {
      const { conversations } = stores;
      expect(await conversations.load("c1")).toEqual([]);
      await conversations.write("c1", 0, [text("user", "a"), text("assistant", "b")]);
      await conversations.write("c1", 2, [text("user", "c")]);
      await conversations.write("c1", 1, [text("assistant", "B"), text("user", "C")]);
      expect(await conversations.load("c1")).toEqual([
        text("user", "a"),
        text("assistant", "B"),
        text("user", "C"),
      ]);
      expect(await conversations.load("c2")).toEqual([]);
      await expect(conversations.write("c1", 5, [text("user", "x")])).rejects.toThrow(RangeError);
    });

    it("refuses a write whose expected length is stale, changing nothing", async () => {
      const { conversations } = stores;
      await conversations.write("c1", 0, [text("user", "a")]);
      await conversations.write("c1", 1, [text("assistant", "winner")], { expectedLength: 1 });
      const lost = await conversations
        .write("c1", 1, [text("assistant", "loser")], { expectedLength: 1 })
        .catch((error: unknown) => error);
      expect(isOverlapError(lost, "conversation_conflict")).toBe(true);
      expect(await conversations.load("c1")).toEqual([
        text("user", "a"),
        text("assistant", "winner"),
      ]);
    });

    it("keeps the first ledger record of a call, per chat", async () => {
      const a = stores.ledger("chat-a");
      const b = stores.ledger("chat-b");
      await a.record(outcomeOf("call_0", "first"), callOf("call_0", "t"));
      await a.record(outcomeOf("call_0", "second"), callOf("call_0", "t"));
      expect((await a.lookup("call_0"))?.resultText).toBe("first");
      // Some servers number calls call_0, call_1... in every chat: one chat never sees another's.
      expect(await b.lookup("call_0")).toBeUndefined();
      await b.record({ ...outcomeOf("call_0", "b's"), replayed: true });
      expect((await b.lookup("call_0"))?.resultText).toBe("b's");
    });
  });
}

/** Registers the durable store tests under `name`. */
export function registerDurableStoreSuite(
  name: string,
  harnessOf: () => Promise<DurableHarness>,
): void {
  describe(name, () => {
    let harness: DurableHarness;
    let store: DurableStore;
    beforeEach(async () => {
      harness = await harnessOf();
      store = await harness.open();
    });
    afterEach(async () => {
      await harness.dispose();
    });

    it("migrates idempotently, also when several instances start at once", async () => {
      expect(await store.migrate()).toEqual([]);
      const prefix = `${harness.prefix}m_`;
      const peers = await Promise.all(
        [1, 2, 3].map(() => harness.open({ prefix, migrate: false })),
      );
      const applied = await Promise.all(peers.map((peer) => peer.migrate()));
      expect(applied.flat()).toEqual([1, 2]);
      await peers[0]!.conversations.write("c", 0, [text("user", "hi")]);
      expect(await peers[2]!.conversations.load("c")).toEqual([text("user", "hi")]);
      await expect(harness.open({ prefix: "bad-prefix; drop" })).rejects.toThrow(TypeError);
    });

    it("a writer that read an older version changes nothing; of two racing writers one wins", async () => {
      const peer = await harness.open();
      const v1 = await store.conversations.writeVersioned("c", 0, [text("user", "a")]);
      expect(v1).toBe(1);
      const read = await peer.conversations.loadVersioned("c");
      expect(read).toEqual({ messages: [text("user", "a")], version: 1 });
      await store.conversations.write("c", 1, [text("assistant", "winner")], {
        expectedVersion: 1,
      });
      // The loser rewrites from 0: it must neither overwrite nor merge.
      const lost = await peer.conversations
        .write("c", 0, [text("user", "other")], { expectedVersion: read.version })
        .catch((error: unknown) => error);
      expect(isOverlapError(lost, "conversation_conflict")).toBe(true);
      expect(await store.conversations.loadVersioned("c")).toEqual({
        messages: [text("user", "a"), text("assistant", "winner")],
        version: 2,
      });
      for (let trial = 0; trial < 5; trial++) {
        const chat = `race-${trial}`;
        const results = await Promise.allSettled(
          [store, peer, store, peer].map((s, i) =>
            s.conversations.writeVersioned(chat, 0, [text("user", `w${i}`)], {
              expectedVersion: 0,
            }),
          ),
        );
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        const won = results.findIndex((r) => r.status === "fulfilled");
        expect(await peer.conversations.load(chat)).toEqual([text("user", `w${won}`)]);
      }
    });

    it("a writer whose lease was taken over writes nothing", async () => {
      const peer = await harness.open();
      expect(await store.leases.claim("c", { turnId: "t1", holder: "a", ttlMs: 30 })).toEqual({
        ok: true,
      });
      await store.conversations.write("c", 0, [text("user", "a")], { lease: "t1" });
      await sleep(60);
      const taken = await peer.leases.claim("c", { turnId: "t2", holder: "b", ttlMs: 60_000 });
      expect(taken).toMatchObject({ ok: true, tookOver: { turnId: "t1", holder: "a" } });
      const late = await store.conversations
        .write("c", 1, [text("assistant", "late")], { lease: "t1" })
        .catch((error: unknown) => error);
      expect(late).toBeInstanceOf(TurnLeaseLostError);
      const effect = await store
        .effects("c", "t1")
        .record(fakeCtx(callOf("x", "t"), "k"), async (tx) => {
          await tx.query(
            `INSERT INTO ${store.tables.ledger} (conversation_id, call_id, name, status, outcome, created_at) VALUES ('c', 'effect-row', 't', 'ok', '{}', 0)`,
          );
          return "done";
        })
        .catch((error: unknown) => error);
      expect(effect).toBeInstanceOf(TurnLeaseLostError);
      expect(await peer.conversations.load("c")).toEqual([text("user", "a")]);
      expect(await peer.ledger("c").lookup("effect-row")).toBeUndefined();
    });

    it("keeps the round journal, with each call's key, until a write that stores the round clears it", async () => {
      const keyOf = (call: ToolCall) => `key-${call.round}-${call.index}`;
      const journal = store.journal("c", "t1", keyOf);
      await journal.callComplete(callOf("b", "t", 1, 1));
      await journal.callComplete(callOf("a", "t", 1, 0));
      await journal.callComplete(callOf("a", "t", 1, 0));
      await store.journal("other", "t9", keyOf).callComplete(callOf("a", "t", 1, 0));
      const entries = await store.journaled("c");
      expect(entries.map((e) => [e.block.id, e.idempotencyKey, e.turnId])).toEqual([
        ["a", "key-1-0", "t1"],
        ["b", "key-1-1", "t1"],
      ]);
      await store.conversations.write("c", 0, [text("user", "x")]);
      expect(await store.journaled("c")).toHaveLength(2);
      await store.conversations.write("c", 1, [text("assistant", "y")], { clearJournal: true });
      expect(await store.journaled("c")).toEqual([]);
      expect(await store.journaled("other")).toHaveLength(1);
    });

    it("commits an effect with its journal row and ledger record, or none of them", async () => {
      const effects = store.effects("c", undefined);
      const effectRows = async () =>
        (
          await store.driver.query(
            `SELECT call_id FROM ${store.tables.ledger} WHERE conversation_id = 'effect'`,
          )
        ).rows.length;
      const effect = (tx: SqlExecutor, id: string) =>
        tx.query(
          `INSERT INTO ${store.tables.ledger} (conversation_id, call_id, name, status, outcome, created_at) VALUES ('effect', ?, 't', 'ok', '{}', 0)`,
          [id],
        );
      const ok = await effects.record(fakeCtx(callOf("c1", "t", 1, 0), "key-1"), async (tx) => {
        await effect(tx, "e1");
        return { text: "paid" };
      });
      expect(ok).toEqual({ text: "paid" });
      const failed = await effects
        .record(fakeCtx(callOf("c2", "t", 1, 1), "key-2"), async (tx) => {
          await effect(tx, "e2");
          throw new Error("the card was declined");
        })
        .catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(Error);
      expect(await effectRows()).toBe(1);
      const ledger = store.ledger("c");
      expect((await ledger.lookup("c1"))?.resultText).toBe("paid");
      expect(await ledger.lookup("c2")).toBeUndefined();
      expect((await store.journaled("c")).map((e) => [e.block.id, e.idempotencyKey])).toEqual([
        ["c1", "key-1"],
      ]);
      const records = await ledger.records(await store.journaled("c"));
      expect(records.map((r) => r.outcome.resultText)).toEqual(["paid"]);
    });

    it("records an effect in a transaction the host opened: both commit, or neither; refused once the lease is lost", async () => {
      const effectRows = async () =>
        (
          await store.driver.query(
            `SELECT call_id FROM ${store.tables.ledger} WHERE conversation_id = 'host-effect'`,
          )
        ).rows.map((row) => row.call_id);
      const effect = (tx: SqlExecutor, id: string) =>
        tx.query(
          `INSERT INTO ${store.tables.ledger} (conversation_id, call_id, name, status, outcome, created_at) VALUES ('host-effect', ?, 't', 'ok', '{}', 0)`,
          [id],
        );
      expect(await store.leases.claim("c", { turnId: "t1", holder: "a", ttlMs: 60_000 })).toEqual({
        ok: true,
      });
      const effects = store.effects("c", "t1");
      await store.driver.transaction(async (tx) => {
        await effect(tx, "e1");
        await effects.recordIn(tx, recordOf(callOf("c1", "t", 1, 0), "key-1", "paid"));
      });
      const rolledBack = await store.driver
        .transaction(async (tx) => {
          await effect(tx, "e2");
          await effects.recordIn(tx, recordOf(callOf("c2", "t", 1, 1), "key-2", "no"));
          throw new Error("the host's own check failed after the record");
        })
        .catch((error: unknown) => error);
      expect(rolledBack).toBeInstanceOf(Error);
      await store.leases.release("c", "t1");
      const late = await store.driver
        .transaction(async (tx) => {
          await effect(tx, "e3");
          await effects.recordIn(tx, recordOf(callOf("c3", "t", 1, 2), "key-3", "late"));
        })
        .catch((error: unknown) => error);
      expect(late).toBeInstanceOf(TurnLeaseLostError);
      const fenced = await store.driver
        .transaction(async (tx) => {
          await effect(tx, "e4");
          await store.assertLeaseIn(tx, "c", "t1");
        })
        .catch((error: unknown) => error);
      expect(fenced).toBeInstanceOf(TurnLeaseLostError);
      expect(await effectRows()).toEqual(["e1"]);
      const ledger = store.ledger("c");
      expect((await ledger.lookup("c1"))?.resultText).toBe("paid");
      expect(await ledger.lookup("c2")).toBeUndefined();
      expect(await ledger.lookup("c3")).toBeUndefined();
      expect(
        (await store.journaled("c")).map((e) => [e.block.id, e.turnId, e.idempotencyKey]),
      ).toEqual([["c1", "t1", "key-1"]]);
    });

    it("of many claims at the same moment, from two instances, exactly one wins", async () => {
      const peer = await harness.open();
      for (let trial = 0; trial < 8; trial++) {
        const chat = `chat-${trial}`;
        const results = await Promise.all(
          [store, peer, store, peer, peer].map((s, i) =>
            s.leases.claim(chat, { turnId: `t${i}`, holder: `h${i}`, ttlMs: 60_000 }),
          ),
        );
        expect(results.filter((r) => r.ok)).toHaveLength(1);
        const winner = results.findIndex((r) => r.ok);
        for (const r of results) if (!r.ok) expect(r.heldBy.turnId).toBe(`t${winner}`);
      }
    });

    it("renews, releases and takes over only as the lease's holder allows; carries a cancel", async () => {
      const peer = await harness.open();
      await store.leases.claim("c", { turnId: "t1", holder: "a", ttlMs: 80 });
      for (let i = 0; i < 4; i++) {
        await sleep(30);
        expect(await store.leases.renew("c", "t1", 80)).toEqual({ held: true });
      }
      expect(await peer.leases.claim("c", { turnId: "t2", holder: "b", ttlMs: 80 })).toMatchObject({
        ok: false,
      });
      expect(await peer.leases.renew("c", "t2", 80)).toEqual({ held: false });
      await peer.leases.release("c", "t2");
      expect((await peer.leases.current("c"))?.turnId).toBe("t1");
      // A cancel asked on another instance reaches the holder through its next renewal.
      expect(await peer.leases.requestCancel("c", "revoked")).toBe(true);
      expect(await store.leases.renew("c", "t1", 80)).toEqual({
        held: true,
        cancelReason: "revoked",
      });
      expect(await peer.leases.requestCancel("free-chat", "revoked")).toBe(false);
      // A lease that is not renewed expires and is taken over; the old holder learns it.
      await sleep(120);
      const taken = await peer.leases.claim("c", { turnId: "t3", holder: "b", ttlMs: 60_000 });
      expect(taken).toMatchObject({ ok: true, tookOver: { turnId: "t1" } });
      expect(await store.leases.renew("c", "t1", 80)).toEqual({ held: false });
      // A lease a claimer knows dead (its process is gone) is taken over at once.
      const early = await store.leases.claim("c", {
        turnId: "t4",
        holder: "a",
        ttlMs: 60_000,
        presumedDead: "t3",
      });
      expect(early).toMatchObject({ ok: true, tookOver: { turnId: "t3" } });
      await store.leases.release("c", "t4");
      expect(await peer.leases.current("c")).toBeUndefined();
    });

    it("logs a turn's events for readers on any instance: whole, resumed exactly, live", async () => {
      const peer = await harness.open({ events: { pollMs: 20 } });
      await store.leases.claim("c", { turnId: "turn-1", holder: "a", ttlMs: 60_000 });
      const writer = await store.events.start("c", "turn-1", "a");
      const live = collect(peer.events.read("c"));
      const ids: string[] = [];
      for (let i = 1; i <= 5; i++) {
        ids.push(writer.append({ type: "text-delta", text: `${i}` } as AgentEvent));
        await sleep(5);
      }
      await writer.flush();
      await store.events.finish("c", "turn-1", writer, [
        { type: "done", roundCount: 1, stopReason: "end_turn" },
      ]);
      expect(ids).toEqual(["turn-1:1", "turn-1:2", "turn-1:3", "turn-1:4", "turn-1:5"]);
      const all = await live;
      expect(all.map((e) => e.id)).toEqual([...ids, "turn-1:6"]);
      expect(all.at(-1)?.event.type).toBe("done");
      // Finishing released the lease in the same transaction.
      expect(await store.leases.current("c")).toBeUndefined();
      const resumed = await collect(peer.events.read("c", "turn-1:3"));
      expect(resumed.map((e) => e.id)).toEqual(["turn-1:4", "turn-1:5", "turn-1:6"]);
      // An id of another chat's turn, or none, reads the chat's latest turn from its start.
      expect((await collect(peer.events.read("c", "nope:2"))).map((e) => e.id)).toEqual(
        all.map((e) => e.id),
      );
      expect(await collect(peer.events.read("empty-chat"))).toEqual([]);
    });

    it("ends a turn whose instance died for its readers: turn_crashed, then done", async () => {
      const peer = await harness.open({ events: { pollMs: 20 } });
      await store.leases.claim("c", { turnId: "turn-d", holder: "a", ttlMs: 100 });
      const writer = await store.events.start("c", "turn-d", "a");
      writer.append({ type: "text-delta", text: "half" } as AgentEvent);
      await writer.flush();
      // The instance dies: no renewal, no finish. A reader on another instance waits out the lease.
      const read = await collect(peer.events.read("c", "turn-d:0"));
      expect(read.map((e) => [e.id, e.event.type])).toEqual([
        ["turn-d:1", "text-delta"],
        ["turn-d:2", "error"],
        ["turn-d:3", "done"],
      ]);
      expect(read[1]?.event).toMatchObject({ code: "turn_crashed" });
      // Every later reader sees the same end, and the chat is free.
      expect((await collect(store.events.read("c"))).map((e) => e.id)).toEqual(
        read.map((e) => e.id),
      );
      expect(await store.leases.current("c")).toBeUndefined();
      // The dead writer's late events change nothing.
      writer.append({ type: "text-delta", text: "late" } as AgentEvent);
      await writer.flush();
      expect((await collect(store.events.read("c"))).map((e) => e.event.type)).toEqual([
        "text-delta",
        "error",
        "done",
      ]);
    });

    it("ends at once the turn of a process of this machine that is gone, its lease still running", async () => {
      const gone = spawnSync(process.execPath, ["-e", ""]).pid;
      const holder = `${hostname()}/${gone}/abcd1234`;
      await store.leases.claim("c", { turnId: "turn-g", holder, ttlMs: 60_000 });
      const writer = await store.events.start("c", "turn-g", holder);
      writer.append({ type: "text-delta", text: "half" } as AgentEvent);
      await writer.flush();
      const read = await collect(store.events.read("c", "turn-g:1"));
      expect(read.map((e) => [e.id, e.event.type])).toEqual([
        ["turn-g:2", "error"],
        ["turn-g:3", "done"],
      ]);
      // A reader ahead of the log (it saw events the dead writer never wrote) learns the end too.
      const ahead = await collect(store.events.read("c", "turn-g:9"));
      expect(ahead.map((e) => [e.id, e.event.type])).toEqual([
        ["turn-g:10", "error"],
        ["turn-g:11", "done"],
      ]);
      expect(ahead[0]?.event).toMatchObject({ code: "turn_crashed" });
      // A live process's turn (this one's) is not ended by a reader.
      await store.leases.claim("d", { turnId: "turn-l", holder: durableHolderId(), ttlMs: 60_000 });
      await store.events.start("d", "turn-l", "here");
      expect(await store.events.endCrashed("d", "turn-l")).toBe(false);
    });

    registerRetentionTests(harnessOf);
  });
}

/** A call's record as a host writes it in its own transaction. */
function recordOf(call: ToolCall, idempotencyKey: string, resultText: string) {
  const ctx = fakeCtx(call, idempotencyKey);
  return { outcome: ctx.outcome({ text: resultText }), call, idempotencyKey };
}

/** A tool context for a call, as the executor makes it. */
export function fakeCtx(call: ToolCall, idempotencyKey: string): ToolContext<unknown> {
  return {
    callId: call.id,
    idempotencyKey,
    call,
    outcome: (value) => ({
      callId: call.id,
      name: call.name,
      status: "ok",
      resultText:
        typeof value === "string" ? value : ((value as { text?: string }).text ?? "Done."),
      events: [],
      isError: false,
    }),
    signal: new AbortController().signal,
    context: undefined,
    emit: () => {},
  };
}

export { collect, type DurableHarness, testPrefix };
