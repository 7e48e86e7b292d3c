/**
 * A turn's OpenTelemetry spans, read with the SDK's in-memory exporter: the turn, each model call
 * with the GenAI attributes and token usage, each tool with what its eager start did, approval
 * waits and repairs as events, a delegate's inner turn as a child. The provider is registered
 * globally for this file only (each test file runs in its own worker).
 */

import { trace } from "@opentelemetry/api";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { InMemoryApprovals } from "../dispatch/in-memory-approvals.js";
import { buildStreamEvents, fakeModel } from "../testing/index.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { defineDelegateTool } from "./define-delegate-tool.js";
import { runAgentTurn } from "./run-agent-turn.js";

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();

afterAll(async () => {
  await provider.shutdown();
  trace.disable();
});

beforeEach(() => exporter.reset());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const slowAdd = defineTool({
  name: "add_to_cart",
  description: "Adds a product.",
  input: z.object({ sku: z.string() }),
  run: async ({ sku }) => {
    await sleep(30);
    return { text: `Added ${sku}.` };
  },
});

const checkout = defineTool({
  name: "checkout",
  description: "Places the order.",
  input: z.object({}),
  dispatch: "deferred",
  approval: "required",
  run: async () => ({ text: "Ordered." }),
});

/** Two calls, the model pausing before the second, then a closing answer. */
const twoCalls = () =>
  fakeModel(
    [
      buildStreamEvents([
        { type: "tool_use", id: "call_a", name: "add_to_cart", input: { sku: "A" } },
        { type: "text", text: "and the next one" },
        { type: "tool_use", id: "call_b", name: "add_to_cart", input: { sku: "B" } },
      ]),
      buildStreamEvents([{ type: "text", text: "Both added." }]),
    ],
    { delayMs: (event) => (event.type === "content_block_delta" ? 8 : 0) },
  );

const byName = (spans: readonly ReadableSpan[], name: string) =>
  spans.filter((span) => span.name === name);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe("runAgentTurn's OpenTelemetry spans", () => {
  it("a turn, each model call with usage, each tool with its eager start", async () => {
    const turn = await runAgentTurn({
      model: twoCalls(),
      executor: new ToolExecutor([slowAdd]),
      messages: [{ role: "user", content: "add A and B" }],
      sink: () => {},
      agent: "shopper",
    });
    expect(turn.stopReason).toBe("end_turn");
    const spans = exporter.getFinishedSpans();
    const [root] = byName(spans, "invoke_agent shopper");
    expect(root?.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "shopper",
      "gen_ai.request.model": "scripted-fake",
      "overlap.stop_reason": "end_turn",
    });
    const chats = byName(spans, "chat scripted-fake");
    expect(chats.map((c) => c.attributes["overlap.round"])).toEqual([1, 2]);
    expect(chats[0]?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      // What the scripted stream reports: 10 in, 1 + 10 per block out.
      "gen_ai.usage.input_tokens": 10,
      "gen_ai.usage.output_tokens": 31,
      "gen_ai.response.finish_reasons": ["tool_use"],
    });
    const tools = byName(spans, "execute_tool add_to_cart");
    expect(tools.map((t) => t.attributes["gen_ai.tool.call.id"])).toEqual(["call_a", "call_b"]);
    for (const span of [...chats, ...tools]) {
      expect(parentOf(span)).toBe(root?.spanContext().spanId);
      expect(span.spanContext().traceId).toBe(root?.spanContext().traceId);
    }
    // The first call started at its block stop, while the model still wrote the second.
    const first = tools[0]!;
    expect(first.attributes["overlap.tool.start_after_block_stop_ms"]).toBeGreaterThanOrEqual(0);
    expect(first.attributes["overlap.tool.started_before_stream_end_ms"]).toBeGreaterThan(0);
    const toMs = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;
    expect(toMs(first.startTime)).toBeLessThan(toMs(chats[0]!.endTime));
    expect(toMs(first.endTime) - toMs(first.startTime)).toBeGreaterThanOrEqual(25);
  });

  it("approval waits are events on the call's span; a cut-off round's repair is an event on the turn", async () => {
    const approvals = new InMemoryApprovals();
    const model = fakeModel([
      buildStreamEvents([{ type: "tool_use", id: "call_c", name: "checkout", input: {} }]),
      buildStreamEvents([{ type: "text", text: "Ordered." }]),
    ]);
    const sink = (event: { type: string; callId?: string }) => {
      if (event.type === "approval-request" && event.callId) {
        setTimeout(() => approvals.decide(event.callId as string, { approve: true }), 5);
      }
    };
    await runAgentTurn({
      model,
      executor: new ToolExecutor([checkout]),
      messages: [{ role: "user", content: "check out" }],
      sink,
      approvals,
    });
    const [tool] = byName(exporter.getFinishedSpans(), "execute_tool checkout");
    expect(tool?.events.map((e) => e.name)).toEqual(["approval.requested", "approval.resolved"]);
    expect(tool?.events[1]?.attributes).toMatchObject({ "overlap.approval.decision": "approved" });

    exporter.reset();
    const controller = new AbortController();
    const cut = fakeModel([
      buildStreamEvents([
        { type: "tool_use", id: "call_d", name: "add_to_cart", input: { sku: "D" } },
        { type: "text", text: "a long answer that is cut off" },
      ]),
    ]);
    const result = await runAgentTurn({
      model: cut,
      executor: new ToolExecutor([slowAdd]),
      messages: [{ role: "user", content: "add D" }],
      sink: (event) => {
        if (event.type === "tool-status" && event.status === "running") controller.abort();
      },
      signal: controller.signal,
    });
    expect(result.error?.code).toBe("aborted");
    const [root] = byName(exporter.getFinishedSpans(), "invoke_agent");
    expect(root?.status.code).toBe(2); // error
    expect(root?.attributes["error.type"]).toBe("aborted");
    const repair = root?.events.find((e) => e.name === "conversation.repaired");
    expect(repair?.attributes?.["overlap.repair.call_ids"]).toEqual(["call_d"]);
  });

  it("a delegate's inner turn is a child of the tool's turn", async () => {
    const inner = defineDelegateTool({
      name: "ask_merchant",
      description: "Asks the merchant.",
      input: z.object({ question: z.string() }),
      agent: ({ question }) => ({
        prompt: question,
        agent: "merchant",
        model: fakeModel([buildStreamEvents([{ type: "text", text: "Restock on Friday." }])]),
        executor: new ToolExecutor([]),
      }),
    });
    await runAgentTurn({
      model: fakeModel([
        buildStreamEvents([
          { type: "tool_use", id: "call_m", name: "ask_merchant", input: { question: "when?" } },
        ]),
        buildStreamEvents([{ type: "text", text: "Friday." }]),
      ]),
      executor: new ToolExecutor([inner]),
      messages: [{ role: "user", content: "when is the restock?" }],
      sink: () => {},
      agent: "shopper",
    });
    const spans = exporter.getFinishedSpans();
    const [outer] = byName(spans, "invoke_agent shopper");
    const [delegated] = byName(spans, "invoke_agent merchant");
    expect(delegated).toBeDefined();
    expect(delegated?.spanContext().traceId).toBe(outer?.spanContext().traceId);
    expect(parentOf(delegated!)).toBe(outer?.spanContext().spanId);
  });
});

describe("without a registered tracer provider", () => {
  it("records nothing and the turn is the same", async () => {
    trace.disable(); // as a host that never registered one
    const turn = await runAgentTurn({
      model: twoCalls(),
      executor: new ToolExecutor([slowAdd]),
      messages: [{ role: "user", content: "add A and B" }],
      sink: () => {},
    });
    expect(turn.stopReason).toBe("end_turn");
    expect(exporter.getFinishedSpans()).toEqual([]);
    provider.register();
  });
});
