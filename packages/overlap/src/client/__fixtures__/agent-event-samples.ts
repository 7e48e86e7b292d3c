/**
 * One valid event of every AgentEvent type, shared by the client's tests. A mapped type over the
 * event names, so a new event type fails to compile here until it has a sample.
 */

import type { AgentEvent, AgentEventType } from "../../protocol/agent-event.js";

/** A sample event per type. */
export const AGENT_EVENT_SAMPLES: {
  readonly [T in AgentEventType]: Extract<AgentEvent, { type: T }>;
} = {
  "round-start": { type: "round-start", round: 1 },
  "text-delta": { type: "text-delta", round: 1, index: 0, text: "为您找到 3 件商品" },
  "thinking-delta": { type: "thinking-delta", round: 1, index: 0, thinking: "compare prices" },
  "tool-call-start": {
    type: "tool-call-start",
    round: 1,
    index: 1,
    callId: "toolu_1",
    name: "search_products",
  },
  "tool-input-preview": {
    type: "tool-input-preview",
    round: 1,
    index: 1,
    callId: "toolu_1",
    name: "search_products",
    preview: { query: "红茶" },
    bytes: 18,
  },
  "tool-call": {
    type: "tool-call",
    round: 1,
    index: 1,
    callId: "toolu_1",
    name: "search_products",
    input: { query: "红茶" },
    dispatch: "started",
  },
  "tool-status": {
    type: "tool-status",
    round: 1,
    callId: "toolu_1",
    name: "search_products",
    status: "done",
    atMs: 412,
  },
  "server-tool": {
    type: "server-tool",
    round: 1,
    index: 2,
    callId: "srvtoolu_1",
    name: "web_search",
    phase: "result",
    result: [{ title: "tea" }],
  },
  citations: {
    type: "citations",
    round: 1,
    index: 3,
    citations: [{ url: "https://tea.example/green", title: "Green tea" }],
  },
  "approval-request": {
    type: "approval-request",
    round: 1,
    callId: "toolu_3",
    name: "checkout",
    input: {},
    summary: "Place an order for 2 items, $103.50.",
    details: { lines: [{ name: "Aero Trail Runner", quantity: 1 }] },
    timeoutMs: 300_000,
  },
  "approval-resolved": {
    type: "approval-resolved",
    round: 1,
    callId: "toolu_3",
    name: "checkout",
    decision: "declined",
    reason: "changed my mind",
  },
  ui: {
    type: "ui",
    round: 1,
    callId: "toolu_2",
    name: "add_to_cart",
    ui: { type: "cart-updated", cart: { lines: [], totalCents: 0 } },
    agent: "shopper",
  },
  "tool-result": {
    type: "tool-result",
    round: 1,
    callId: "toolu_1",
    name: "search_products",
    isError: false,
    status: "ok",
    resultText: "3 products",
  },
  "round-end": {
    type: "round-end",
    round: 1,
    stopReason: "tool_use",
    usage: { input_tokens: 120, output_tokens: 40 },
    timings: { startedAt: 1_700_000_000_000, blocks: [], tools: [], streamEndMs: 900 },
  },
  done: { type: "done", roundCount: 2, stopReason: "end_turn" },
  error: {
    type: "error",
    code: "stream_interrupted",
    message: "The reply was cut off.",
    parentCallId: "toolu_9",
  },
};
