import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InMemoryToolLedger } from "../dispatch/tool-ledger.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import type { Message } from "../stream/message.js";
import { buildStreamEvents, fakeModel } from "../testing/stream-builder.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { InMemoryConversationStore } from "./conversation-store.js";
import { appendUserText } from "./repair-conversation.js";
import { runAgentTurn } from "./run-agent-turn.js";
import { validateConversation } from "./validate-conversation.js";

function cartTools() {
  const cart: string[] = [];
  const runs: string[] = [];
  const add = defineTool({
    name: "add_to_cart",
    description: "Adds an item.",
    input: z.object({ sku: z.string(), ms: z.number().default(1) }),
    run: async ({ sku, ms }, ctx) => {
      runs.push(sku);
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, ms);
        ctx.signal.addEventListener("abort", () => {
          clearTimeout(t);
          reject(ctx.signal.reason);
        });
      });
      cart.push(sku);
      return { text: `added ${sku}`, events: [{ type: "cart-updated", lines: [...cart] }] };
    },
  });
  const total = defineTool({
    name: "cart_total",
    description: "Totals the cart.",
    input: z.object({}),
    run: () => `${cart.length} items`,
  });
  return { cart, runs, executor: new ToolExecutor([add, total], { abortGraceMs: 5 }) };
}

const user = (text: string): Message => ({ role: "user", content: text });

const toolRound = buildStreamEvents([
  { type: "text", text: "Adding both." },
  { type: "tool_use", id: "toolu_1", name: "add_to_cart", input: { sku: "AERO" } },
  { type: "tool_use", id: "toolu_2", name: "add_to_cart", input: { sku: "SOCK" } },
  { type: "tool_use", id: "toolu_3", name: "cart_total", input: {} },
]);
const finalRound = buildStreamEvents([{ type: "text", text: "Your cart has 2 items." }]);
/** A provider-side search that paused the turn (stop reason pause_turn). */
const pausedRound = buildStreamEvents(
  [
    { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "shoes" } },
    { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
  ],
  { stopReason: "pause_turn" },
);

describe("runAgentTurn", () => {
  it("runs rounds while the model asks for tools, then answers; every request is valid", async () => {
    const tools = cartTools();
    const model = fakeModel([toolRound, finalRound], { delayMs: 1 });
    const seen: AgentEvent[] = [];
    const persisted: Message[][] = [];
    const turn = await runAgentTurn({
      model,
      executor: tools.executor,
      messages: [user("add the aero and the socks and tell me the total")],
      sink: (e) => seen.push(e),
      system: "You are a shop assistant.",
      agent: "shopper",
      onMessages: ({ from, messages }) => {
        persisted.push([...messages]);
        expect(from).toBe(persisted.length === 1 ? 1 : 3);
      },
    });
    expect(turn.error).toBeUndefined();
    expect(turn.stopReason).toBe("end_turn");
    expect(turn.rounds).toHaveLength(2);
    expect(tools.cart).toEqual(["AERO", "SOCK"]);
    expect(turn.added.map((m) => m.role)).toEqual(["assistant", "user", "assistant"]);
    expect(persisted.map((p) => p.length)).toEqual([2, 1]);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]?.system).toBe("You are a shop assistant.");
    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual(["add_to_cart", "cart_total"]);
    for (const request of model.requests)
      expect(validateConversation(request.messages)).toEqual([]);
    const second = model.requests[1]?.messages ?? [];
    expect(second.at(-1)?.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: "added AERO" },
      { type: "tool_result", tool_use_id: "toolu_2", content: "added SOCK" },
      { type: "tool_result", tool_use_id: "toolu_3", content: "2 items" },
    ]);
    expect(seen.at(-1)).toEqual({
      type: "done",
      roundCount: 2,
      stopReason: "end_turn",
      agent: "shopper",
    });
    expect(seen.every((e) => e.agent === "shopper")).toBe(true);
    expect(seen.filter((e) => e.type === "round-start").length).toBe(2);
  });

  it("refuses to send a conversation the API would reject, naming the violation", async () => {
    const tools = cartTools();
    const model = fakeModel([finalRound]);
    const seen: AgentEvent[] = [];
    const turn = await runAgentTurn({
      model,
      executor: tools.executor,
      messages: [
        user("hi"),
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "x", name: "cart_total", input: {} }],
        },
        user("again"),
      ],
      sink: (e) => seen.push(e),
    });
    expect(model.requests).toHaveLength(0);
    expect(turn.error?.code).toBe("invalid_conversation");
    expect(turn.error?.message).toContain("x");
    expect(seen.map((e) => e.type)).toEqual(["error", "done"]);
  });

  it("stops after maxRounds with a valid conversation ending in tool results", async () => {
    const tools = cartTools();
    const again = (n: number) =>
      buildStreamEvents([{ type: "tool_use", id: `toolu_r${n}`, name: "cart_total", input: {} }]);
    const model = fakeModel([again(1), again(2), again(3)]);
    const seen: AgentEvent[] = [];
    const turn = await runAgentTurn({
      model,
      executor: tools.executor,
      messages: [user("loop")],
      sink: (e) => seen.push(e),
      maxRounds: 2,
    });
    expect(model.requests).toHaveLength(2);
    expect(turn.error?.code).toBe("max_rounds");
    expect(turn.messages.at(-1)?.role).toBe("user");
    expect(validateConversation(turn.messages)).toEqual([]);
    expect(seen.slice(-2).map((e) => e.type)).toEqual(["error", "done"]);
  });

  it("a cancelled turn leaves a repaired conversation the next turn continues", async () => {
    const tools = cartTools();
    const slow = buildStreamEvents([
      { type: "text", text: "Adding." },
      { type: "tool_use", id: "toolu_s", name: "add_to_cart", input: { sku: "SLOW", ms: 10_000 } },
      { type: "text", text: "This part never arrives in time." },
    ]);
    const model = fakeModel([slow, finalRound], { delayMs: 3 });
    const controller = new AbortController();
    const seen: AgentEvent[] = [];
    const store = new InMemoryConversationStore();
    await store.write("c1", 0, [user("add the slow thing")]);
    const stored = await store.load("c1");
    const first = runAgentTurn({
      model,
      executor: tools.executor,
      messages: stored,
      sink: (e) => {
        seen.push(e);
        if (e.type === "tool-status" && e.status === "running")
          setTimeout(() => controller.abort(), 5);
      },
      signal: controller.signal,
      onMessages: ({ from, messages }) => store.write("c1", from, messages),
    });
    const turn = await first;
    expect(turn.error?.code).toBe("aborted");
    expect(seen.find((e) => e.type === "error")).toEqual({
      type: "error",
      code: "aborted",
      message: "The request was cancelled.",
    });
    expect(turn.rounds[0]?.outcomes.map((o) => o.status)).toEqual(["interrupted"]);
    expect(validateConversation(await store.load("c1"))).toEqual([]);

    // The next user message merges into the trailing tool results; the model accepts it.
    const next = appendUserText(await store.load("c1"), "never mind, just say hi");
    await store.write("c1", next.from, next.messages.slice(next.from));
    const second = await runAgentTurn({
      model,
      executor: tools.executor,
      messages: await store.load("c1"),
      sink: () => {},
    });
    expect(second.error).toBeUndefined();
    expect(validateConversation(model.requests[1]?.messages ?? [])).toEqual([]);
    expect(tools.cart).toEqual([]);
  });

  it("a provider error before the stream ends the turn with a masked error and nothing appended", async () => {
    const tools = cartTools();
    const model = {
      label: "broken",
      stream: () => {
        throw new Error("401 invalid x-api-key sk-ant-secret");
      },
    };
    const seen: AgentEvent[] = [];
    const turn = await runAgentTurn({
      model,
      executor: tools.executor,
      messages: [user("hi")],
      sink: (e) => seen.push(e),
    });
    expect(turn.added).toEqual([]);
    expect(turn.error?.code).toBe("stream_interrupted");
    const error = seen.find((e) => e.type === "error");
    expect(JSON.stringify(error)).not.toContain("sk-ant-secret");
    expect(seen.at(-1)?.type).toBe("done");
  });

  it("a mid-stream error keeps what was generated and answers every call", async () => {
    const tools = cartTools();
    const broken = [
      ...toolRound.slice(0, -5),
      { type: "error" as const, error: { type: "overloaded_error", message: "Overloaded" } },
    ];
    const model = fakeModel([broken], { delayMs: 1 });
    const turn = await runAgentTurn({
      model,
      executor: tools.executor,
      messages: [user("add")],
      sink: () => {},
    });
    expect(turn.error?.code).toBe("stream_error");
    expect(turn.added[0]?.role).toBe("assistant");
    expect(validateConversation(turn.messages)).toEqual([]);
    expect(new Set(tools.runs).size).toBe(tools.runs.length);
  });

  it("a retried turn with the same call ids reuses recorded outcomes (exactly once across retries)", async () => {
    const tools = cartTools();
    const ledger = new InMemoryToolLedger();
    const model = fakeModel([toolRound, finalRound, toolRound, finalRound]);
    await runAgentTurn({
      model,
      executor: tools.executor,
      messages: [user("add")],
      sink: () => {},
      ledger,
    });
    await runAgentTurn({
      model,
      executor: tools.executor,
      messages: [user("add")],
      sink: () => {},
      ledger,
    });
    expect(tools.runs).toEqual(["AERO", "SOCK"]);
    expect(tools.cart).toEqual(["AERO", "SOCK"]);
  });

  it("after pause_turn, a tool-calling continuation joins the same assistant message", async () => {
    const tools = cartTools();
    const model = fakeModel([pausedRound, toolRound, finalRound]);
    const updates: Array<{ from: number; count: number }> = [];
    const turn = await runAgentTurn({
      model,
      executor: tools.executor,
      messages: [user("search, then add")],
      sink: () => {},
      onMessages: ({ from, messages }) => {
        updates.push({ from, count: messages.length });
      },
    });
    expect(turn.error).toBeUndefined();
    expect(tools.cart).toEqual(["AERO", "SOCK"]);
    expect(turn.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(turn.messages[1]?.content).toHaveLength(6); // search + result + text + three calls
    for (const request of model.requests)
      expect(validateConversation(request.messages)).toEqual([]);
    expect(updates).toEqual([
      { from: 1, count: 1 },
      { from: 1, count: 2 }, // the continued assistant message is rewritten, its results appended
      { from: 3, count: 1 },
    ]);
  });

  it("a call id reused from an earlier round gets a fresh id and runs (some servers reuse ids)", async () => {
    const tools = cartTools();
    const again = buildStreamEvents([
      { type: "tool_use", id: "call_0", name: "add_to_cart", input: { sku: "B" } },
    ]);
    const first = buildStreamEvents([
      { type: "tool_use", id: "call_0", name: "add_to_cart", input: { sku: "A" } },
    ]);
    const ledger = new InMemoryToolLedger();
    const model = fakeModel([first, again, finalRound]);
    const turn = await runAgentTurn({
      model,
      executor: tools.executor,
      messages: [user("add A then B")],
      sink: () => {},
      ledger,
    });
    expect(turn.error).toBeUndefined();
    expect(tools.cart).toEqual(["A", "B"]); // not replayed from the ledger as call_0
    const ids = turn.messages.flatMap((m) =>
      m.role === "assistant" ? m.content.filter((b) => b.type === "tool_use").map((b) => b.id) : [],
    );
    expect(ids).toEqual(["call_0", "call_0_dup2"]);
    expect(validateConversation(turn.messages)).toEqual([]);
  });

  it("a turn cancelled before it starts runs no tool", async () => {
    const tools = cartTools();
    const model = fakeModel([toolRound]);
    const turn = await runAgentTurn({
      model,
      executor: tools.executor,
      messages: [user("add")],
      sink: () => {},
      signal: AbortSignal.abort(),
    });
    expect(turn.error?.code).toBe("aborted");
    expect(tools.runs).toEqual([]);
  });

  it("a storage failure stops the turn with a storage_error", async () => {
    const tools = cartTools();
    const model = fakeModel([toolRound, finalRound]);
    const turn = await runAgentTurn({
      model,
      executor: tools.executor,
      messages: [user("add")],
      sink: () => {},
      onMessages: () => {
        throw new Error("disk full");
      },
    });
    expect(turn.error?.code).toBe("storage_error");
    expect(model.requests).toHaveLength(1);
  });

  it("continues after pause_turn by sending the paused assistant message back", async () => {
    const tools = cartTools();
    const model = fakeModel([pausedRound, finalRound]);
    const turn = await runAgentTurn({
      model,
      executor: tools.executor,
      messages: [user("search")],
      sink: () => {},
    });
    expect(turn.error).toBeUndefined();
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]?.messages.at(-1)?.role).toBe("assistant");
    expect(turn.stopReason).toBe("end_turn");
  });
});
