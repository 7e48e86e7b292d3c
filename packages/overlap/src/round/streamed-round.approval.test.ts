/**
 * Approval before irreversible actions through a whole round: a call whose tool needs
 * the user's approval emits `approval-request`, waits for the approval source, and runs only when
 * approved; declined, unanswered or cancelled it is answered without running, the conversation
 * valid; other calls of the round are not held back, and results stay in call order.
 */

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runAgentTurn } from "../agent/run-agent-turn.js";
import { validateConversation } from "../agent/validate-conversation.js";
import { APPROVAL_DECLINED_TEXT, APPROVAL_TIMEOUT_TEXT } from "../dispatch/approval-gate.js";
import { InMemoryApprovals } from "../dispatch/in-memory-approvals.js";
import { InMemoryToolLedger } from "../dispatch/tool-ledger.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import type { ApprovalDecision, ApprovalRequest, ApprovalSource } from "../protocol/approval.js";
import type { Message } from "../stream/message.js";
import {
  buildStreamEvents,
  fakeModel,
  replayEvents,
  type ScriptBlock,
} from "../testing/stream-builder.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { StreamedRound, type StreamedRoundOptions } from "./streamed-round.js";

interface Ctx {
  cart: { name: string; cents: number }[];
}

/** A shop whose checkout needs approval, a refund that needs it above $50, and an eager add. */
function shop() {
  const runs: string[] = [];
  const context: Ctx = {
    cart: [
      { name: "Aero Trail Runner", cents: 8900 },
      { name: "Merino Wool Socks", cents: 1450 },
    ],
  };
  const add = defineTool({
    name: "add_to_cart",
    description: "",
    input: z.object({ sku: z.string(), ms: z.number().default(1) }),
    run: async ({ sku, ms }) => {
      runs.push(`add:${sku}`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      return `added ${sku}`;
    },
  });
  const checkout = defineTool<z.ZodObject<Record<string, never>>, Ctx>({
    name: "checkout",
    description: "",
    dispatch: "deferred",
    input: z.object({}),
    approval: "required",
    summarize: (_input, ctx) => ({
      text: `Order ${ctx.cart.length} items, $${(ctx.cart.reduce((n, l) => n + l.cents, 0) / 100).toFixed(2)}.`,
      details: { lines: ctx.cart.map((l) => l.name) },
    }),
    run: () => {
      runs.push("checkout");
      return "order placed";
    },
  });
  const refund = defineTool<z.ZodObject<{ cents: z.ZodNumber }>, Ctx>({
    name: "refund",
    description: "",
    input: z.object({ cents: z.number().int() }),
    approval: ({ cents }) => cents > 5000,
    run: ({ cents }) => {
      runs.push(`refund:${cents}`);
      return `refunded ${cents}`;
    },
  });
  const executor = new ToolExecutor<Ctx>([add, checkout, refund], { context, abortGraceMs: 5 });
  return { runs, executor };
}

/** An approval source answering from a function, recording what it was asked. */
function answering(
  answer: (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>,
) {
  const asked: ApprovalRequest[] = [];
  const signals: AbortSignal[] = [];
  const source: ApprovalSource = {
    wait: (_callId, signal, request) => {
      asked.push(request);
      signals.push(signal);
      return answer(request, signal);
    },
  };
  return { source, asked, signals };
}

const checkoutRound: ScriptBlock[] = [
  { type: "text", text: "Placing your order." },
  { type: "tool_use", id: "toolu_co", name: "checkout", input: {} },
];

async function relay(
  blocks: readonly ScriptBlock[],
  options: Partial<StreamedRoundOptions> & { delayMs?: number } = {},
  tools = shop(),
) {
  const seen: AgentEvent[] = [];
  const { delayMs, ...rest } = options;
  const round = new StreamedRound({
    executor: tools.executor,
    sink: (e) => seen.push(e),
    previewIntervalMs: 0,
    ...rest,
  });
  const result = await round.relay(
    replayEvents(buildStreamEvents(blocks), {
      delayMs: delayMs ?? 0,
      ...(options.signal ? { signal: options.signal } : {}),
    }),
  );
  const conversation: Message[] = [
    { role: "user", content: "check out" },
    result.assistant,
    ...(result.toolResults ? [result.toolResults] : []),
  ];
  return { result, seen, conversation, ...tools };
}

const ofType = <T extends AgentEvent["type"]>(seen: AgentEvent[], type: T) =>
  seen.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);

describe("approval before irreversible actions", () => {
  it("approve: the request carries the summary, and the call runs once approved", async () => {
    const { source, asked } = answering(async () => ({ approve: true }));
    const { result, seen, runs, conversation } = await relay(checkoutRound, {
      approvals: source,
    });
    expect(asked).toEqual([
      {
        callId: "toolu_co",
        name: "checkout",
        input: {},
        summary: "Order 2 items, $103.50.",
        details: { lines: ["Aero Trail Runner", "Merino Wool Socks"] },
        timeoutMs: 300_000,
      },
    ]);
    expect(runs).toEqual(["checkout"]);
    expect(result.outcomes[0]).toMatchObject({ status: "ok", resultText: "order placed" });
    const types = seen
      .filter((e) => "callId" in e && e.callId === "toolu_co" && e.type !== "tool-input-preview")
      .map((e) => (e.type === "tool-status" ? `status:${e.status}` : e.type));
    expect(types).toEqual([
      "tool-call-start",
      "tool-call",
      "approval-request",
      "approval-resolved",
      "status:running",
      "status:done",
      "tool-result",
    ]);
    expect(ofType(seen, "approval-request")[0]).toMatchObject({
      round: 1,
      summary: "Order 2 items, $103.50.",
    });
    expect(ofType(seen, "approval-resolved")[0]).toMatchObject({ decision: "approved" });
    expect(validateConversation(conversation)).toEqual([]);
  });

  it("deny: never run, answered declined with a sentence the model reads, the conversation valid", async () => {
    const { source } = answering(async () => ({ approve: false, reason: "too expensive" }));
    const { result, seen, runs, conversation } = await relay(checkoutRound, {
      approvals: source,
    });
    expect(runs).toEqual([]);
    expect(result.outcomes[0]).toMatchObject({
      status: "declined",
      isError: true,
      resultText: `${APPROVAL_DECLINED_TEXT} Their reason: "too expensive".`,
    });
    expect(ofType(seen, "approval-resolved")[0]).toMatchObject({
      decision: "declined",
      reason: "too expensive",
    });
    expect(ofType(seen, "tool-status").map((e) => e.status)).toEqual(["cancelled"]);
    expect(ofType(seen, "tool-result")[0]).toMatchObject({ status: "declined", isError: true });
    expect(result.toolResults?.content).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_co",
        content: `${APPROVAL_DECLINED_TEXT} Their reason: "too expensive".`,
        is_error: true,
      },
    ]);
    expect(result.error).toBeUndefined();
    expect(validateConversation(conversation)).toEqual([]);
  });

  it("timeout: no answer in time is a decline, and the source is told to stop waiting", async () => {
    const approvals = new InMemoryApprovals();
    const { result, seen, runs, conversation } = await relay(checkoutRound, {
      approvals,
      approvalTimeoutMs: 30,
    });
    expect(runs).toEqual([]);
    expect(result.outcomes[0]).toMatchObject({
      status: "declined",
      resultText: APPROVAL_TIMEOUT_TEXT,
    });
    expect(ofType(seen, "approval-request")[0]?.timeoutMs).toBe(30);
    expect(ofType(seen, "approval-resolved")[0]).toMatchObject({ decision: "timeout" });
    // A late answer finds the request ended.
    expect(approvals.decide("toolu_co", { approve: true })).toEqual({
      status: "ended",
      decision: "timeout",
    });
    expect(approvals.pending()).toEqual([]);
    expect(validateConversation(conversation)).toEqual([]);
  });

  it("abort while waiting: not run, answered not_executed, the round reports the cancel", async () => {
    const controller = new AbortController();
    const approvals = new InMemoryApprovals();
    const { source, signals } = answering((request, signal) => {
      setTimeout(() => controller.abort(), 10);
      return approvals.wait(request.callId, signal, request);
    });
    const { result, seen, runs, conversation } = await relay(checkoutRound, {
      approvals: source,
      signal: controller.signal,
    });
    expect(runs).toEqual([]);
    expect(result.outcomes[0]).toMatchObject({ status: "not_executed", isError: true });
    expect(result.outcomes[0]?.resultText).toMatch(
      /cancelled while it waited for the user's approval/,
    );
    expect(result.error?.code).toBe("aborted");
    expect(ofType(seen, "approval-resolved")[0]).toMatchObject({ decision: "cancelled" });
    expect(signals[0]?.aborted).toBe(true);
    expect(approvals.decide("toolu_co", { approve: true })).toEqual({
      status: "ended",
      decision: "cancelled",
    });
    expect(validateConversation(conversation)).toEqual([]);
  });

  it("mixed with eager calls: they run while the approval waits, results in call order", async () => {
    const approvals = new InMemoryApprovals();
    const blocks: ScriptBlock[] = [
      { type: "tool_use", id: "toolu_a", name: "add_to_cart", input: { sku: "A", ms: 5 } },
      { type: "tool_use", id: "toolu_r", name: "refund", input: { cents: 9000 } },
      { type: "tool_use", id: "toolu_b", name: "add_to_cart", input: { sku: "B", ms: 5 } },
      { type: "tool_use", id: "toolu_small", name: "refund", input: { cents: 100 } },
    ];
    const seen: AgentEvent[] = [];
    const tools = shop();
    const round = new StreamedRound({
      executor: tools.executor,
      sink: (e) => {
        seen.push(e);
        // Approve only once both eager adds are done: they never waited for the user.
        const done = ofType(seen, "tool-status").filter(
          (s) => s.status === "done" && s.name === "add_to_cart",
        );
        if (e.type === "tool-status" && done.length === 2) {
          setTimeout(() => approvals.decide("toolu_r", { approve: true }), 5);
        }
      },
      previewIntervalMs: 0,
      approvals,
    });
    const result = await round.relay(replayEvents(buildStreamEvents(blocks), { delayMs: 1 }));
    // The eager refund asked at its block stop, while the model still wrote the next calls.
    const asked = seen.findIndex((e) => e.type === "approval-request");
    const lastStart = seen.findIndex(
      (e) => e.type === "tool-call-start" && e.callId === "toolu_small",
    );
    expect(asked).toBeGreaterThan(-1);
    expect(asked).toBeLessThan(lastStart);
    // Only the large refund asked; the small one ran without asking.
    expect(ofType(seen, "approval-request").map((e) => e.callId)).toEqual(["toolu_r"]);
    expect(tools.runs.indexOf("refund:9000")).toBeGreaterThan(tools.runs.indexOf("add:B"));
    expect(tools.runs).toContain("refund:100");
    expect(result.outcomes.map((o) => [o.callId, o.status])).toEqual([
      ["toolu_a", "ok"],
      ["toolu_r", "ok"],
      ["toolu_b", "ok"],
      ["toolu_small", "ok"],
    ]);
    expect(ofType(seen, "tool-result").map((e) => e.callId)).toEqual([
      "toolu_a",
      "toolu_r",
      "toolu_b",
      "toolu_small",
    ]);
  });

  it("ledger replay: an approved call that ran replays without asking again", async () => {
    const ledger = new InMemoryToolLedger();
    const first = answering(async () => ({ approve: true }));
    const once = await relay(checkoutRound, { approvals: first.source, ledger });
    expect(once.runs).toEqual(["checkout"]);
    expect(first.asked).toHaveLength(1);

    // The same call again (a retried round): the ledger answers, nobody is asked.
    const second = answering(async () => {
      throw new Error("must not be asked");
    });
    const again = await relay(checkoutRound, { approvals: second.source, ledger });
    expect(second.asked).toEqual([]);
    expect(again.runs).toEqual([]);
    expect(again.result.outcomes[0]).toMatchObject({
      status: "ok",
      resultText: "order placed",
      replayed: true,
    });
    expect(ofType(again.seen, "approval-request")).toEqual([]);
  });

  it("a declined call is not recorded: asking again is possible", async () => {
    const ledger = new InMemoryToolLedger();
    const { source } = answering(async () => ({ approve: false }));
    await relay(checkoutRound, { approvals: source, ledger });
    expect(ledger.size).toBe(0);
  });

  it("without an approval source such a call is never run, and nothing is asked", async () => {
    const { result, seen, runs } = await relay(checkoutRound);
    expect(runs).toEqual([]);
    expect(result.outcomes[0]).toMatchObject({ status: "not_executed" });
    expect(result.outcomes[0]?.resultText).toMatch(/needs the user's approval/);
    expect(ofType(seen, "approval-request")).toEqual([]);
  });

  it("a deferred call asks only when the message ended with tool_use", async () => {
    const { source, asked } = answering(async () => ({ approve: true }));
    const { result, runs } = await relay(
      [{ type: "tool_use", id: "toolu_co", name: "checkout", input: {} }],
      { approvals: source },
      shop(),
    );
    expect(asked).toHaveLength(1);
    expect(runs).toEqual(["checkout"]);
    expect(result.outcomes[0]?.status).toBe("ok");

    const cut = answering(async () => ({ approve: true }));
    const tools = shop();
    const seen: AgentEvent[] = [];
    const round = new StreamedRound({
      executor: tools.executor,
      sink: (e) => seen.push(e),
      approvals: cut.source,
    });
    const ended = await round.relay(
      replayEvents(
        buildStreamEvents([{ type: "tool_use", id: "toolu_co", name: "checkout", input: {} }], {
          stopReason: "max_tokens",
        }),
      ),
    );
    expect(cut.asked).toEqual([]);
    expect(tools.runs).toEqual([]);
    expect(ended.outcomes[0]?.status).toBe("not_executed");
  });

  it("a summary that fails falls back to a generic sentence; invalid input is never asked about", async () => {
    const runs: string[] = [];
    const risky = defineTool({
      name: "wire_money",
      description: "",
      input: z.object({ to: z.string(), cents: z.number().int() }),
      approval: "required",
      summarize: () => {
        throw new Error("boom");
      },
      run: () => {
        runs.push("wire");
        return "sent";
      },
    });
    const executor = new ToolExecutor([risky]);
    const { source, asked } = answering(async () => ({ approve: false }));
    const { result } = await relay(
      [
        { type: "tool_use", id: "toolu_1", name: "wire_money", input: { to: "bob", cents: 5 } },
        { type: "tool_use", id: "toolu_2", name: "wire_money", input: { to: "bob" } },
      ],
      { approvals: source },
      { runs, executor: executor as unknown as ReturnType<typeof shop>["executor"] },
    );
    expect(asked.map((r) => r.summary)).toEqual([
      'The assistant wants to run wire_money with {"to":"bob","cents":5}.',
    ]);
    expect(result.outcomes.map((o) => o.status)).toEqual(["declined", "invalid_input"]);
    expect(runs).toEqual([]);
  });
});

describe("runAgentTurn with approvals", () => {
  it("asks through the turn's source; the model reads the decline in the next round", async () => {
    const approvals = new InMemoryApprovals();
    const model = fakeModel([
      buildStreamEvents(checkoutRound),
      buildStreamEvents([{ type: "text", text: "OK, I did not place the order." }]),
    ]);
    const tools = shop();
    const events: AgentEvent[] = [];
    const result = await runAgentTurn({
      model,
      executor: tools.executor,
      messages: [{ role: "user", content: "check out" }],
      sink: (e) => {
        events.push(e);
        if (e.type === "approval-request") {
          queueMicrotask(() => approvals.decide(e.callId, { approve: false }));
        }
      },
      approvals,
      approvalTimeoutMs: 60_000,
    });
    expect(result.error).toBeUndefined();
    expect(tools.runs).toEqual([]);
    expect(ofType(events, "approval-request")[0]?.timeoutMs).toBe(60_000);
    const second = model.requests[1]?.messages.at(-1);
    expect(second).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_co",
          content: APPROVAL_DECLINED_TEXT,
          is_error: true,
        },
      ],
    });
    expect(validateConversation(result.messages)).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: "done", stopReason: "end_turn" });
  });
});
