import { describe, expect, it } from "vitest";
import { z } from "zod";
import { restoreRound } from "../agent/restore-round.js";
import { runAgentTurn } from "../agent/run-agent-turn.js";
import { validateConversation } from "../agent/validate-conversation.js";
import { InMemoryToolLedger, type ToolLedger } from "../dispatch/tool-ledger.js";
import type { Message } from "../stream/message.js";
import type { ToolCall } from "../stream/tool-call.js";
import { buildStreamEvents, fakeModel } from "../testing/stream-builder.js";
import { defineTool, type ToolContext } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import type { ToolOutcome } from "../tools/tool-outcome.js";
import { InMemoryRoundJournal, type RoundJournal } from "./round-journal.js";
import { StreamedRound } from "./streamed-round.js";

const round = buildStreamEvents([
  { type: "text", text: "Adding both." },
  { type: "tool_use", id: "toolu_1", name: "add", input: { sku: "AERO" } },
  { type: "tool_use", id: "toolu_bad", name: "add", input: '{"sku": ' },
  { type: "tool_use", id: "toolu_2", name: "add", input: { sku: "SOCK" } },
]);
const final = buildStreamEvents([{ type: "text", text: "Done." }]);
const streamOf = (events: ReturnType<typeof buildStreamEvents>) =>
  fakeModel([events]).stream({ messages: [], tools: [] }, { signal: new AbortController().signal });

/** A tool whose effect and record are one unit, as a database transaction would make them. */
function shop(ledger?: ToolLedger) {
  const log: string[] = [];
  const contexts: ToolContext[] = [];
  const add = defineTool({
    name: "add",
    description: "Adds an item.",
    input: z.object({ sku: z.string() }),
    run: async ({ sku }, ctx) => {
      contexts.push(ctx);
      log.push(`run ${ctx.callId}`);
      const reply = { text: `added ${sku}`, events: [{ type: "cart-updated" }] };
      await ledger?.record(ctx.outcome(reply), ctx.call);
      return reply;
    },
  });
  return { log, contexts, executor: new ToolExecutor([add]) };
}

function recordingJournal(log: string[], delayMs = 0): RoundJournal & { entries: ToolCall[] } {
  const entries: ToolCall[] = [];
  return {
    entries,
    async callComplete(call) {
      log.push(`journal ${call.id}`);
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      entries.push(call);
      log.push(`journaled ${call.id}`);
    },
  };
}

describe("the round journal", () => {
  it("receives each valid call at its block stop, before the tool runs, as the message holds it", async () => {
    const { log, executor } = shop();
    const journal = recordingJournal(log);
    const relay = new StreamedRound({ executor, sink: () => {}, journal, round: 3 });
    const result = await relay.relay(streamOf(round));
    expect(log.indexOf("journal toolu_1")).toBeLessThan(log.indexOf("run toolu_1"));
    expect(log.indexOf("journal toolu_2")).toBeLessThan(log.indexOf("run toolu_2"));
    // The invalid call never runs and is not journaled.
    expect(journal.entries.map((e) => e.block.id)).toEqual(["toolu_1", "toolu_2"]);
    const blocks = result.assistant.content.filter((b) => b.type === "tool_use");
    expect(journal.entries).toEqual([
      {
        id: "toolu_1",
        name: "add",
        round: 3,
        index: 1,
        raw: '{"sku":"AERO"}',
        input: { ok: true, value: { sku: "AERO" } },
        block: blocks[0],
      },
      {
        id: "toolu_2",
        name: "add",
        round: 3,
        index: 3,
        raw: '{"sku":"SOCK"}',
        input: { ok: true, value: { sku: "SOCK" } },
        block: blocks[2],
      },
    ]);
    expect(result.calls).toEqual(journal.entries);
  });

  it("ends the round only after every journal write settled, without delaying the tools", async () => {
    const { log, executor } = shop();
    const journal = recordingJournal(log, 30);
    const relay = new StreamedRound({ executor, sink: () => {}, journal });
    await relay.relay(streamOf(round));
    // The tools ran while the writes were in flight; the round waited for both.
    expect(log.indexOf("run toolu_1")).toBeLessThan(log.indexOf("journaled toolu_1"));
    expect(log).toContain("journaled toolu_2");
  });

  it("reports a failed journal write and still runs the call", async () => {
    const { log, executor } = shop();
    const failures: string[] = [];
    const relay = new StreamedRound({
      executor,
      sink: () => {},
      journal: {
        callComplete: (call) => {
          if (call.block.id === "toolu_1") throw new Error("disk full");
          return Promise.reject(new Error("db down"));
        },
      },
      onJournalError: (error, call) => failures.push(`${call.block.id}: ${String(error)}`),
    });
    const result = await relay.relay(streamOf(round));
    expect(failures).toEqual(["toolu_1: Error: disk full", "toolu_2: Error: db down"]);
    expect(log).toEqual(["run toolu_1", "run toolu_2"]);
    expect(result.outcomes.map((o) => o.status)).toEqual(["ok", "invalid_input", "ok"]);
  });

  it("gives the tool its call and the outcome it will be reported with", async () => {
    const ledger = new InMemoryToolLedger();
    const records: Array<{ outcome: ToolOutcome; call: ToolCall | undefined }> = [];
    const record = ledger.record.bind(ledger);
    ledger.record = async (outcome, call) => {
      records.push({ outcome, call });
      await record(outcome, call);
    };
    const { contexts, executor } = shop(ledger);
    const relay = new StreamedRound({ executor, sink: () => {}, ledger });
    const result = await relay.relay(streamOf(round));
    expect(contexts.map((c) => c.call.block.id)).toEqual(["toolu_1", "toolu_2"]);
    // The tool's own record and the runtime's later one are the same; the first is kept.
    expect(records).toHaveLength(4);
    expect(records[0]?.outcome).toEqual(result.outcomes[0]);
    expect(records.map((r) => r.call?.index)).toEqual([1, 1, 3, 3]);
    expect(await ledger.lookup("toolu_2")).toEqual(result.outcomes[2]);
  });

  it("a turn clears each stored round; a round whose write failed is restored from journal and ledger", async () => {
    const ledger = new InMemoryToolLedger();
    const journal = new InMemoryRoundJournal();
    const { executor } = shop(ledger);
    const ends: number[][] = [];
    const roundEnd = journal.roundEnd.bind(journal);
    journal.roundEnd = (n, calls) => {
      ends.push(calls.map((c) => c.index));
      roundEnd(n, calls);
    };
    const user: Message = { role: "user", content: "add both" };
    const stored = await runAgentTurn({
      model: fakeModel([round, final]),
      executor,
      messages: [user],
      sink: () => {},
      ledger,
      journal,
      onMessages: () => {},
    });
    expect(stored.error).toBeUndefined();
    expect(ends).toEqual([[1, 3]]); // the final round had no calls
    expect(journal.entries).toEqual([]);

    // The same round again, but its messages cannot be stored (as after a crash).
    const lostRound = buildStreamEvents([
      { type: "tool_use", id: "toolu_3", name: "add", input: { sku: "CAP" } },
    ]);
    const failed = await runAgentTurn({
      model: fakeModel([lostRound]),
      executor,
      messages: stored.messages,
      sink: () => {},
      ledger,
      journal,
      onMessages: () => {
        throw new Error("db down");
      },
    });
    expect(failed.error?.code).toBe("storage_error");
    expect(journal.entries.map((e) => e.block.id)).toEqual(["toolu_3"]);
    const outcome = await ledger.lookup("toolu_3");
    const restored = restoreRound(stored.messages, {
      journaled: journal.entries,
      recorded: outcome ? [{ call: journal.entries[0]!, outcome }] : [],
    });
    expect(restored.restored).toEqual(["toolu_3"]);
    expect(restored.messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_3", content: "added CAP" }],
    });
    expect(validateConversation(restored.messages)).toEqual([]);
  });

  it("reports a recorded outcome for a tool that committed its effect just before an abort", async () => {
    const ledger = new InMemoryToolLedger();
    const controller = new AbortController();
    const slow = defineTool({
      name: "add",
      description: "Adds an item.",
      input: z.object({ sku: z.string() }),
      run: async ({ sku }, ctx) => {
        await ledger.record(ctx.outcome(`added ${sku}`), ctx.call); // the commit
        controller.abort(); // the round is cancelled right after it
        await new Promise((resolve) => setTimeout(resolve, 200)); // slow to return
        return `added ${sku}`;
      },
    });
    const relay = new StreamedRound({
      executor: new ToolExecutor([slow], { abortGraceMs: 5 }),
      sink: () => {},
      ledger,
      signal: controller.signal,
    });
    const one = buildStreamEvents([
      { type: "tool_use", id: "toolu_1", name: "add", input: { sku: "AERO" } },
    ]);
    const result = await relay.relay(streamOf(one));
    expect(result.outcomes[0]).toMatchObject({ status: "ok", resultText: "added AERO" });
  });
});
