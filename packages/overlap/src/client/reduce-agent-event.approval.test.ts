/** The client's view of approvals: a pending approval is visible, then its outcome. */

import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../protocol/agent-event.js";
import { type AgentState, initialAgentState, pendingApprovals } from "./agent-state.js";
import { parseAgentEvent } from "./parse-agent-event.js";
import { reduceAgentEvent } from "./reduce-agent-event.js";

function fold(events: readonly AgentEvent[], from: AgentState = initialAgentState()): AgentState {
  return events.reduce(
    (state, event, i) => reduceAgentEvent(state, { id: `t:${i + 1}`, event }),
    from,
  );
}

const request: AgentEvent = {
  type: "approval-request",
  round: 1,
  callId: "toolu_co",
  name: "checkout",
  input: {},
  summary: "Order 2 items, $103.50.",
  details: { total: "$103.50" },
  timeoutMs: 300_000,
  agent: "shopper",
};

const asking: AgentEvent[] = [
  { type: "round-start", round: 1, agent: "shopper" },
  { type: "tool-call-start", round: 1, index: 1, callId: "toolu_co", name: "checkout" },
  {
    type: "tool-call",
    round: 1,
    index: 1,
    callId: "toolu_co",
    name: "checkout",
    input: {},
    dispatch: "deferred",
  },
  request,
];

describe("approvals in the client state", () => {
  it("a pending approval is visible on its call and in pendingApprovals", () => {
    const state = fold(asking);
    expect(state.calls.toolu_co?.approval).toEqual({
      status: "pending",
      summary: "Order 2 items, $103.50.",
      details: { total: "$103.50" },
      timeoutMs: 300_000,
      reason: undefined,
    });
    expect(pendingApprovals(state).map((c) => c.callId)).toEqual(["toolu_co"]);
    expect(state.running).toBe(true);
  });

  it("a decline settles the approval and the call (cancelled, with the result the model read)", () => {
    const state = fold([
      ...asking,
      {
        type: "approval-resolved",
        round: 1,
        callId: "toolu_co",
        name: "checkout",
        decision: "declined",
      },
      {
        type: "tool-status",
        round: 1,
        callId: "toolu_co",
        name: "checkout",
        status: "cancelled",
        atMs: 900,
      },
      {
        type: "tool-result",
        round: 1,
        callId: "toolu_co",
        name: "checkout",
        isError: true,
        status: "declined",
        resultText: "The user declined this action.",
      },
    ]);
    const entry = state.calls.toolu_co;
    expect(entry?.approval?.status).toBe("declined");
    expect(entry?.approval?.summary).toBe("Order 2 items, $103.50.");
    expect(entry?.phase).toBe("cancelled");
    expect(entry?.result).toEqual({
      isError: true,
      status: "declined",
      text: "The user declined this action.",
    });
    expect(pendingApprovals(state)).toEqual([]);
  });

  it("a replayed request never reopens an approval that ended; a result alone settles the phase", () => {
    const approved = fold([
      ...asking,
      {
        type: "approval-resolved",
        round: 1,
        callId: "toolu_co",
        name: "checkout",
        decision: "approved",
      },
    ]);
    // The same request again under a new id (a server replaying an overlapping range).
    const again = reduceAgentEvent(approved, { id: "other:1", event: request });
    expect(again.calls.toolu_co?.approval?.status).toBe("approved");

    const onlyResult = fold([
      {
        type: "tool-result",
        round: 1,
        callId: "toolu_x",
        name: "checkout",
        isError: true,
        status: "declined",
        resultText: "No answer from the user in time; the action was not taken.",
      },
    ]);
    expect(onlyResult.calls.toolu_x?.phase).toBe("cancelled");
  });

  it("a resolution seen without its request (a resume) still shows the outcome", () => {
    const state = fold([
      {
        type: "approval-resolved",
        round: 1,
        callId: "toolu_co",
        name: "checkout",
        decision: "timeout",
      },
    ]);
    expect(state.calls.toolu_co?.approval).toMatchObject({ status: "timeout", summary: "" });
  });

  it("the events survive the wire: parsed back, they fold to the same state", () => {
    const wire = asking.map((e) => parseAgentEvent(JSON.stringify(e)));
    expect(wire.every((e) => e !== undefined)).toBe(true);
    expect(fold(wire as AgentEvent[]).calls.toolu_co).toEqual(fold(asking).calls.toolu_co);
  });
});
