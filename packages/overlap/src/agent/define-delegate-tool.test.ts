import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../protocol/agent-event.js";
import { toolCallOf } from "../stream/tool-call.js";
import { buildStreamEvents, fakeModel } from "../testing/stream-builder.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { defineDelegateTool } from "./define-delegate-tool.js";
import { runAgentTurn } from "./run-agent-turn.js";

describe("defineDelegateTool", () => {
  it("runs the other agent on the same runtime, forwards its events tagged, returns its answer", async () => {
    const restockDates = defineTool({
      name: "restock_date",
      description: "",
      input: z.object({ sku: z.string() }),
      run: ({ sku }) => `${sku}: Friday`,
    });
    const merchantModel = fakeModel([
      buildStreamEvents([
        { type: "tool_use", id: "toolu_m1", name: "restock_date", input: { sku: "SOCK" } },
      ]),
      buildStreamEvents([{ type: "text", text: "Socks are back on Friday." }]),
    ]);
    const askMerchant = defineDelegateTool({
      name: "ask_merchant",
      description: "Asks the merchant.",
      input: z.object({ question: z.string() }),
      agent: ({ question }) => ({
        model: merchantModel,
        executor: new ToolExecutor([restockDates]),
        agent: "merchant",
        prompt: question,
      }),
    });
    expect(askMerchant.kind).toBe("delegate");
    const shopperModel = fakeModel([
      buildStreamEvents([
        {
          type: "tool_use",
          id: "toolu_s1",
          name: "ask_merchant",
          input: { question: "When are socks back?" },
        },
      ]),
      buildStreamEvents([{ type: "text", text: "Friday!" }]),
    ]);
    const seen: AgentEvent[] = [];
    const turn = await runAgentTurn({
      model: shopperModel,
      executor: new ToolExecutor([askMerchant]),
      messages: [{ role: "user", content: "socks?" }],
      sink: (e) => seen.push(e),
      agent: "shopper",
    });
    expect(turn.error).toBeUndefined();
    expect(turn.rounds[0]?.outcomes[0]?.resultText).toBe("Socks are back on Friday.");
    expect(merchantModel.requests[0]?.messages).toEqual([
      { role: "user", content: "When are socks back?" },
    ]);
    const inner = seen.filter((e) => e.parentCallId === "toolu_s1");
    expect(inner.length).toBeGreaterThan(0);
    expect(inner.every((e) => e.agent === "merchant")).toBe(true);
    expect(inner.some((e) => e.type === "tool-result" && e.callId === "toolu_m1")).toBe(true);
    expect(inner.at(-1)?.type).toBe("done");
    // inner events arrive before the outer call's own result (live, on the display channel)
    const outerResult = seen.findIndex((e) => e.type === "tool-result" && e.callId === "toolu_s1");
    expect(seen.indexOf(inner.at(-1)!)).toBeLessThan(outerResult);
  });

  it("an inner failure becomes the delegate call's error result", async () => {
    const broken = defineDelegateTool({
      name: "ask_merchant",
      description: "",
      input: z.object({}),
      agent: () => ({
        model: {
          stream: () => {
            throw new Error("down");
          },
        },
        executor: new ToolExecutor([]),
        prompt: "hi",
      }),
    });
    const outcome = await new ToolExecutor([broken]).execute(
      toolCallOf({ type: "tool_use", id: "c", name: "ask_merchant", input: {} }),
    );
    expect(outcome.isError).toBe(true);
    expect(outcome.resultText).toContain("could not answer");
  });
});
