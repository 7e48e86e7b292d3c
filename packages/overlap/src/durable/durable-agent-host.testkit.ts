/**
 * The behaviour of {@link DurableAgentHost} with two hosts on one database (two instances in one
 * process), registered by the SQLite and PostgreSQL tests: one turn per chat (a second message on
 * the other host is refused with a retry-after, also while a turn outlives its lease's time by
 * renewing it), a cancel asked on the other host reaches the turn within its bound, stops its
 * tools and ends its stream, and a takeover after an instance died restores its round honestly:
 * calls that ran keep their real results, a call with an external effect is answered "unknown"
 * with the idempotency key its tool saw, a call recorded in the ledger's transaction as not run.
 */

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ModelClient, ModelRequest } from "../agent/model-client.js";
import { validateConversation } from "../agent/validate-conversation.js";
import type { Message } from "../stream/message.js";
import { buildStreamEvents, replayEvents, type ScriptBlock } from "../testing/stream-builder.js";
import { type AnyTool, defineTool } from "../tools/define-tool.js";
import { DurableAgentHost, type DurableTurnInfo, TurnRunningError } from "./durable-agent-host.js";
import { idempotencyKeyOf } from "./durable-identity.js";
import { DurableStore } from "./durable-store.js";
import { collect, type DurableHarness } from "./durable-store-suite.testkit.js";
import type { SqlDriver } from "./sql-driver.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A model that answers a user's text with the tool calls `plan` gives for it (then, once the
 * results are in, with a text), in one round each.
 */
export function plannedModel(plan: (userText: string) => ScriptBlock[]): ModelClient {
  return {
    label: "planned-test-model",
    stream(request: ModelRequest, { signal }) {
      const last = request.messages.at(-1);
      const answered = last?.role === "user" && typeof last.content !== "string";
      const userText = [...request.messages]
        .reverse()
        .find(
          (m): m is Message & { content: string } =>
            m.role === "user" && typeof m.content === "string",
        )?.content;
      const calls = answered ? [] : plan(userText ?? "");
      const blocks: ScriptBlock[] =
        calls.length > 0 ? calls : [{ type: "text", text: `Done: ${userText}` }];
      const events = buildStreamEvents(blocks, {
        stopReason: calls.length > 0 ? "tool_use" : "end_turn",
      });
      return replayEvents(events, { signal, delayMs: 1 });
    },
  };
}

/** A driver that can be killed like a process: from then on every statement hangs forever. */
function killable(driver: SqlDriver): SqlDriver & { kill(): void } {
  let dead = false;
  const never = new Promise<never>(() => {});
  return {
    dialect: driver.dialect,
    query: (sql, params) => (dead ? never : driver.query(sql, params)),
    transaction: (fn, lock) => (dead ? never : driver.transaction(fn, lock)),
    kill: () => {
      dead = true;
    },
  };
}

/** Registers the host tests under `name`. */
export function registerDurableHostSuite(
  name: string,
  harnessOf: () => Promise<DurableHarness>,
): void {
  describe(name, () => {
    let harness: DurableHarness;
    let storeA: DurableStore;
    let storeB: DurableStore;
    beforeEach(async () => {
      harness = await harnessOf();
      storeA = await harness.open({ events: { pollMs: 20 } });
      storeB = await harness.open({ events: { pollMs: 20 } });
    });
    afterEach(async () => {
      await harness.dispose();
    });

    it("runs one turn per chat across hosts: a second message is refused with a retry-after", async () => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const runs: string[] = [];
      const tools = [
        defineTool({
          name: "wait",
          description: "waits",
          input: z.object({}),
          effects: "none",
          run: async (_input, ctx) => {
            runs.push(ctx.idempotencyKey);
            await released;
            return "waited";
          },
        }),
      ];
      const model = plannedModel((t) =>
        t === "go" ? [{ type: "tool_use", id: "call_0", name: "wait", input: {} }] : [],
      );
      // A short lease, renewed often, with room for a busy machine's stalls (a renewal late by
      // more than the lease would let the other host take the chat and fail the test).
      const ttl = 600;
      const hostA = new DurableAgentHost({
        store: storeA,
        model,
        tools,
        leaseTtlMs: ttl,
        controlIntervalMs: 60,
      });
      const hostB = new DurableAgentHost({
        store: storeB,
        model,
        tools,
        leaseTtlMs: ttl,
        controlIntervalMs: 60,
      });
      const turn = await hostA.start({ chatId: "chat", message: "go" });
      // Refused on both hosts, also after the lease's first term passed (it is renewed).
      for (let i = 0; i < 4; i++) {
        for (const host of [hostB, hostA]) {
          const refused = await host
            .start({ chatId: "chat", message: "second" })
            .catch((e: unknown) => e);
          expect(refused).toBeInstanceOf(TurnRunningError);
          expect((refused as TurnRunningError).retryAfterMs).toBeGreaterThan(0);
          expect((refused as TurnRunningError).retryAfterMs).toBeLessThanOrEqual(2_000);
        }
        await sleep(ttl / 2);
      }
      // Another chat is free meanwhile.
      const other = await hostB.run({ chatId: "other", message: "hello" });
      expect(other.result?.stopReason).toBe("end_turn");
      release();
      const result = await turn.done;
      expect(result.result?.stopReason).toBe("end_turn");
      expect(runs).toEqual([idempotencyKeyOf("chat", turn.turnId, { round: 1, index: 0 })]);
      // Released with the turn's done: the next message is taken at once, on the other host.
      const next = await hostB.run({ chatId: "chat", message: "thanks" });
      expect(next.result?.stopReason).toBe("end_turn");
      const { messages, version } = await storeB.conversations.loadVersioned("chat");
      expect(validateConversation(messages)).toEqual([]);
      expect(messages.map((m) => m.role)).toEqual([
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
      ]);
      expect(version).toBe(5);
      const events = await collect(hostB.read("chat", `${turn.turnId}:0`));
      expect(events.at(-1)?.event).toMatchObject({ type: "done", stopReason: "end_turn" });
      expect(await storeA.leases.current("chat")).toBeUndefined();
    });

    it("a cancel asked on the other host stops the turn within the bound, its tools and its stream", async () => {
      let started!: () => void;
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      let abortedAt = 0;
      const tools = [
        defineTool({
          name: "slow",
          description: "runs until stopped",
          input: z.object({}),
          run: async (_input, ctx) => {
            started();
            await new Promise<void>((resolve) =>
              ctx.signal.addEventListener("abort", () => resolve()),
            );
            abortedAt = performance.now();
            throw ctx.signal.reason;
          },
        }),
      ];
      const model = plannedModel(() => [
        { type: "tool_use", id: "call_0", name: "slow", input: {} },
      ]);
      const interval = 50;
      const hostA = new DurableAgentHost({
        store: storeA,
        model,
        tools,
        controlIntervalMs: interval,
      });
      const hostB = new DurableAgentHost({
        store: storeB,
        model,
        tools,
        controlIntervalMs: interval,
      });
      const turn = await hostA.start({ chatId: "chat", message: "go" });
      const reader = collect(hostB.read("chat"));
      await running;
      const askedAt = performance.now();
      expect(await hostB.cancel("chat", "revoked", { waitMs: 2_000 })).toBe(true);
      const result = await turn.done;
      expect(result.stoppedBy).toBe("revoked");
      // Bounded by the control interval, with room for a busy machine: without the lease row's
      // cancel the turn would run until its tool ended (never, here).
      expect(abortedAt - askedAt).toBeLessThan(interval * 3 + 1_500);
      const events = await reader;
      expect(events.at(-1)?.event.type).toBe("done");
      expect(await storeB.leases.current("chat")).toBeUndefined();
      const messages = await storeB.conversations.load("chat");
      expect(validateConversation(messages)).toEqual([]);
    });

    it("a cancel asked elsewhere reaches the turn at once where the database can notify", async (context) => {
      if (!storeA.driver.listen) return context.skip();
      let started!: () => void;
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      let abortedAt = 0;
      const tools = [
        defineTool({
          name: "slow",
          description: "runs until stopped",
          input: z.object({}),
          run: async (_input, ctx) => {
            started();
            await new Promise<void>((resolve) =>
              ctx.signal.addEventListener("abort", () => resolve()),
            );
            abortedAt = performance.now();
            return "stopped";
          },
        }),
      ];
      const model = plannedModel(() => [
        { type: "tool_use", id: "call_0", name: "slow", input: {} },
      ]);
      // Renewals every 10 s: only the notification can bring the cancel in time.
      const options = { model, tools, leaseTtlMs: 30_000, controlIntervalMs: 10_000 };
      const hostA = new DurableAgentHost({ store: storeA, ...options });
      const hostB = new DurableAgentHost({ store: storeB, ...options });
      const turn = await hostA.start({ chatId: "chat", message: "go" });
      await running;
      const askedAt = performance.now();
      expect(await hostB.cancel("chat", "forget me")).toBe(true);
      expect((await turn.done).stoppedBy).toBe("forget me");
      // Far under the 10 s the next renewal would take, with room for a busy machine.
      expect(abortedAt - askedAt).toBeLessThan(4_000);
      await hostA.close();
      await hostB.close();
    });

    it("takes over a dead host's chat after its lease expired and restores its round honestly", async () => {
      const driverA = killable(storeA.driver);
      const dying = new DurableStore(driverA, { prefix: harness.prefix, migrate: false });
      const keys = new Map<string, string>();
      let shipGo!: () => void;
      const shipGate = new Promise<void>((resolve) => {
        shipGo = resolve;
      });
      const tools: AnyTool<DurableTurnInfo>[] = [
        defineTool({
          name: "lookup",
          description: "reads",
          input: z.object({}),
          effects: "none",
          run: () => "in stock",
        }),
        defineTool({
          name: "charge",
          description: "charges a card through a payment API",
          input: z.object({}),
          effects: "external",
          run: async (_input, ctx) => {
            keys.set(ctx.callId, ctx.idempotencyKey);
            return new Promise<never>(() => {}); // the payment API never answers before the crash
          },
        }),
        defineTool({
          name: "ship",
          description: "books a shipment in the database",
          input: z.object({}),
          effects: "ledger",
          run: async (_input, ctx) => {
            await shipGate;
            return ctx.context.effects.record(ctx, async () => "booked");
          },
        }),
      ];
      // One provider id for every call, as some servers send.
      const model = plannedModel((t) =>
        t === "buy"
          ? [
              { type: "tool_use", id: "call_0", name: "lookup", input: {} },
              { type: "tool_use", id: "call_0", name: "charge", input: {} },
              { type: "tool_use", id: "call_0", name: "ship", input: {} },
            ]
          : [],
      );
      const ttl = 300;
      const context = (turn: DurableTurnInfo) => turn;
      const hostA = new DurableAgentHost({
        store: dying,
        model,
        tools,
        context,
        leaseTtlMs: ttl,
        controlIntervalMs: 50,
      });
      const hostB = new DurableAgentHost({
        store: storeB,
        model,
        tools,
        context,
        leaseTtlMs: ttl,
        controlIntervalMs: 50,
      });
      const turnA = await hostA.start({ chatId: "chat", message: "buy" });
      // Wait until every call is journaled and the lookup's outcome recorded; then A dies.
      for (let i = 0; i < 200; i++) {
        const journaled = await storeB.journaled("chat");
        const recorded = await storeB.records("chat", journaled);
        if (journaled.length === 3 && recorded.length === 1 && keys.size === 1) break;
        await sleep(10);
      }
      driverA.kill();
      shipGo();
      const journaled = await storeB.journaled("chat");
      expect(journaled).toHaveLength(3);
      // Keys differ per call though the provider sent one id, and are what the tools saw.
      const journalKeys = journaled.map((call) => call.idempotencyKey);
      expect(new Set(journalKeys).size).toBe(3);
      expect(journalKeys).toEqual(
        journaled.map((call) => idempotencyKeyOf("chat", turnA.turnId, call)),
      );
      const chargeCall = journaled.find((call) => call.block.name === "charge")!;
      expect(keys.get(chargeCall.block.id)).toBe(chargeCall.idempotencyKey);

      // While A's lease lives, B is refused; once it expired, B takes the chat over.
      await expect(hostB.start({ chatId: "chat", message: "hello?" })).rejects.toBeInstanceOf(
        TurnRunningError,
      );
      await sleep(ttl + 50);
      const result = await hostB.run({ chatId: "chat", message: "hello?" });
      expect(result.tookOver?.turnId).toBe(turnA.turnId);
      expect(result.restored).toEqual(journaled.map((call) => call.block.id));
      expect(result.error).toBeUndefined();
      expect(result.result?.stopReason).toBe("end_turn");

      const messages = await storeB.conversations.load("chat");
      expect(validateConversation(messages)).toEqual([]);
      const results = messages.flatMap((m) =>
        m.role === "user" && typeof m.content !== "string"
          ? m.content.flatMap((b) => (b.type === "tool_result" ? [b] : []))
          : [],
      );
      const byName = new Map(
        journaled.map((call) => [
          call.block.name,
          results.find((r) => r.tool_use_id === call.block.id),
        ]),
      );
      expect(byName.get("lookup")).toMatchObject({ content: "in stock" });
      expect(byName.get("lookup")?.is_error).toBeUndefined();
      expect(byName.get("charge")).toMatchObject({ is_error: true });
      expect(String(byName.get("charge")?.content)).toContain("outcome is unknown");
      expect(String(byName.get("charge")?.content)).toContain(chargeCall.idempotencyKey);
      expect(String(byName.get("ship")?.content)).toContain("was not run");
      // The dead turn's readers learn how it ended (the takeover ended its log).
      const eventsOfA = await collect(hostB.read("chat", `${turnA.turnId}:0`));
      expect(eventsOfA.at(-2)?.event).toMatchObject({ type: "error", code: "turn_crashed" });
      expect(eventsOfA.at(-1)?.event.type).toBe("done");
      // Restoring again adds nothing: the journal was cleared with the restored round.
      expect(await storeB.journaled("chat")).toEqual([]);
      void turnA;
    });
  });
}
