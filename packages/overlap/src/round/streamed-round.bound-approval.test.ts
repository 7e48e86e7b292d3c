/**
 * Approvals that bind, through a whole round: a tool states the exact effect it asks for; once
 * approved it runs only if the state still gives that effect (compared in its own "transaction"),
 * else nothing happens and the user is asked again with what changed. A stand-in irreversible
 * tool (a charge over a mutable basket) plays the checkout.
 */

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { validateConversation } from "../agent/validate-conversation.js";
import { initialAgentState } from "../client/agent-state.js";
import { reduceAgentEvent } from "../client/reduce-agent-event.js";
import { MAX_APPROVAL_ASKS } from "../dispatch/approval-gate.js";
import { InMemoryApprovals } from "../dispatch/in-memory-approvals.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import type { ApprovalDecision, ApprovalRequest } from "../protocol/approval.js";
import type { Message } from "../stream/message.js";
import { buildStreamEvents, replayEvents } from "../testing/stream-builder.js";
import { EffectChangedError, sameEffect } from "../tools/approved-effect.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { StreamedRound } from "./streamed-round.js";

interface Basket {
  lines: { key: string; quantity: number; unitPriceCents: number }[];
}

/** The effect of charging the basket now: its lines and their total. */
function chargeOf(basket: Basket) {
  const lines = basket.lines.map((l) => ({ ...l }));
  return { lines, totalCents: lines.reduce((n, l) => n + l.quantity * l.unitPriceCents, 0) };
}

function harness(basket: Basket) {
  const charged: number[] = [];
  const charge = defineTool<z.ZodObject<Record<string, never>>, Basket>({
    name: "charge",
    description: "Charges the basket.",
    dispatch: "deferred",
    input: z.object({}),
    approval: "required",
    summarize: (_input, state) => {
      const effect = chargeOf(state);
      return { text: `Charge ${effect.totalCents} cents.`, effect };
    },
    run: (_input, ctx) => {
      // The "transaction": read the state, compare with what was approved, then act.
      const now = chargeOf(ctx.context);
      if (!ctx.approved || !sameEffect(ctx.approved.effect, now)) {
        throw new EffectChangedError(now);
      }
      charged.push(now.totalCents);
      return `Charged ${now.totalCents} cents.`;
    },
  });
  const executor = new ToolExecutor<Basket>([charge], { context: basket, abortGraceMs: 5 });
  return { executor, charged };
}

/**
 * An approval source that lets `between` change the state after each request was shown and
 * before the user's answer arrives (the merchant raising a price, another tab adding to the cart).
 */
function answering(
  answer: (request: ApprovalRequest, n: number) => ApprovalDecision,
  between: (n: number) => void = () => {},
) {
  const approvals = new InMemoryApprovals();
  const asked: ApprovalRequest[] = [];
  const source = {
    wait(callId: string, signal: AbortSignal, request: ApprovalRequest) {
      asked.push(request);
      const waiting = approvals.wait(callId, signal, request);
      const n = asked.length;
      queueMicrotask(() => {
        between(n);
        approvals.decide(callId, answer(request, n));
      });
      return waiting;
    },
  };
  return { source, asked };
}

async function charge(
  basket: Basket,
  source: { wait: InMemoryApprovals["wait"] },
): Promise<{ seen: AgentEvent[]; conversation: Message[]; charged: number[]; text: string }> {
  const { executor, charged } = harness(basket);
  const seen: AgentEvent[] = [];
  const round = new StreamedRound({
    executor,
    sink: (e) => seen.push(e),
    previewIntervalMs: 0,
    approvals: source,
  });
  const result = await round.relay(
    replayEvents(
      buildStreamEvents([{ type: "tool_use", id: "toolu_charge", name: "charge", input: {} }]),
      { delayMs: 0 },
    ),
  );
  const conversation: Message[] = [
    { role: "user", content: "pay" },
    result.assistant,
    ...(result.toolResults ? [result.toolResults] : []),
  ];
  return { seen, conversation, charged, text: result.outcomes[0]?.resultText ?? "" };
}

const basket = (): Basket => ({
  lines: [{ key: "echo", quantity: 1, unitPriceCents: 4400 }],
});

describe("an approval binds the effect it showed", () => {
  it("unchanged: runs once with the approved effect; the request carries effect and digest", async () => {
    const { source, asked } = answering((r) => ({ approve: true, digest: r.digest ?? "" }));
    const { charged, text, conversation } = await charge(basket(), source);
    expect(charged).toEqual([4400]);
    expect(text).toBe("Charged 4400 cents.");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      effect: { lines: [{ key: "echo", quantity: 1, unitPriceCents: 4400 }], totalCents: 4400 },
      digest: expect.stringMatching(/^sha256:/),
    });
    expect(asked[0]?.changes).toBeUndefined();
    expect(validateConversation(conversation)).toEqual([]);
  });

  it("a price raised while the card waited: nothing charged, asked again with what changed", async () => {
    const state = basket();
    const { source, asked } = answering(
      (r) => ({ approve: true, digest: r.digest ?? "" }),
      (n) => {
        const line = state.lines[0];
        if (n === 1 && line) line.unitPriceCents = 9500;
      },
    );
    const { charged, text, seen } = await charge(state, source);
    // Never the confirmed 4400 turned into 9500 silently: the second card showed 9500.
    expect(charged).toEqual([9500]);
    expect(text).toBe("Charged 9500 cents.");
    expect(asked).toHaveLength(2);
    expect(asked[1]).toMatchObject({
      ask: 2,
      changes: [
        { path: 'lines["echo"].unitPriceCents', before: 4400, after: 9500 },
        { path: "totalCents", before: 4400, after: 9500 },
      ],
    });
    expect(asked[1]?.digest).not.toBe(asked[0]?.digest);
    // The browser's state shows the second card pending after the first was approved.
    let ui = initialAgentState();
    const statuses: string[] = [];
    for (const event of seen) {
      ui = reduceAgentEvent(ui, { id: undefined, event });
      if (event.type.startsWith("approval-")) {
        const approval = ui.calls.toolu_charge?.approval;
        statuses.push(`${approval?.status}@${approval?.ask ?? 1}`);
      }
    }
    expect(statuses).toEqual(["pending@1", "approved@1", "pending@2", "approved@2"]);
    expect(ui.calls.toolu_charge?.approval?.changes).toHaveLength(2);
  });

  it("the user declines the changed card: nothing is charged, the call answered declined", async () => {
    const state = basket();
    const { source } = answering(
      (r, n) => ({ approve: n === 1, digest: r.digest ?? "" }),
      (n) => {
        if (n === 1) state.lines.push({ key: "socks", quantity: 5, unitPriceCents: 1450 });
      },
    );
    const { charged, seen, conversation } = await charge(state, source);
    expect(charged).toEqual([]);
    const result = seen.find((e) => e.type === "tool-result");
    expect(result).toMatchObject({ status: "declined" });
    expect(validateConversation(conversation)).toEqual([]);
  });

  it("a state that keeps changing: asked at most MAX_APPROVAL_ASKS times, never run", async () => {
    const state = basket();
    const { source, asked } = answering(
      (r) => ({ approve: true, digest: r.digest ?? "" }),
      () => {
        const line = state.lines[0];
        if (line) line.quantity += 1;
      },
    );
    const { charged, text, conversation } = await charge(state, source);
    expect(charged).toEqual([]);
    expect(asked).toHaveLength(MAX_APPROVAL_ASKS);
    expect(text).toMatch(/kept changing/);
    expect(validateConversation(conversation)).toEqual([]);
  });

  it("a decision bound to another card's digest approves nothing: asked again", async () => {
    const { source, asked } = answering((r, n) => ({
      approve: true,
      digest: n === 1 ? "sha256:an-earlier-card" : (r.digest ?? ""),
    }));
    const { charged } = await charge(basket(), source);
    expect(charged).toEqual([4400]);
    expect(asked).toHaveLength(2);
    expect(asked[1]?.changes).toBeUndefined();
  });
});
