/**
 * Fine-grained tool streaming end to end: `anthropicModel` (which sends
 * `eager_input_streaming: true` on every tool by default) against overlap-sim over real HTTP.
 * Eager input is not validated by the API: a call whose streamed input is invalid JSON, or cut by
 * `max_tokens`, must get an `invalid_input` error result, never run, and leave a conversation the
 * strict peer accepts. The same script without the option arrives buffered (one delta per call).
 */

import Anthropic from "@anthropic-ai/sdk";
import { type SimPolicy, type SimScript, type SimServer, startSim } from "overlap-sim";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { ModelClient } from "../../agent/model-client.js";
import { appendUserText } from "../../agent/repair-conversation.js";
import { runAgentTurn } from "../../agent/run-agent-turn.js";
import { validateConversation } from "../../agent/validate-conversation.js";
import type { Message } from "../../stream/message.js";
import { defineTool } from "../../tools/define-tool.js";
import { ToolExecutor } from "../../tools/tool-executor.js";
import { anthropicModel } from "./anthropic.js";

const MODEL = "scripted-eager";

/** Scripts `first` for the opening request, then a short text for any later one. */
function policyOf(first: SimScript): SimPolicy {
  return (request) =>
    request.messages.length === 1
      ? first
      : { blocks: [{ type: "text", text: "Noted." }], stopReason: "end_turn" };
}

async function withSim<T>(first: SimScript, fn: (sim: SimServer) => Promise<T>): Promise<T> {
  const sim = await startSim({ policy: policyOf(first), pacing: { fast: true }, seed: 99 });
  try {
    return await fn(sim);
  } finally {
    await sim.close();
  }
}

/** anthropicModel over the sim, recording each request's tools and each input_json_delta. */
function observedModel(sim: SimServer, eagerInputStreaming?: boolean) {
  const sentTools: unknown[] = [];
  const inputDeltas: Array<{ index: number; text: string }> = [];
  const record: typeof fetch = async (input, init) => {
    const body = JSON.parse(typeof init?.body === "string" ? init.body : "{}");
    sentTools.push(body.tools);
    return fetch(input, init);
  };
  const inner = anthropicModel({
    client: new Anthropic({ baseURL: sim.url, apiKey: "test", maxRetries: 0, fetch: record }),
    model: MODEL,
    ...(eagerInputStreaming === undefined ? {} : { eagerInputStreaming }),
  });
  const model: ModelClient = {
    async *stream(request, options) {
      for await (const batch of inner.stream(request, options)) {
        for (const event of batch) {
          if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") {
            inputDeltas.push({ index: event.index, text: event.delta.partial_json });
          }
        }
        yield batch;
      }
    },
  };
  return { model, sentTools, inputDeltas };
}

function cartTool() {
  const run = vi.fn(() => "added");
  const tool = defineTool({
    name: "add_to_cart",
    description: "Adds a product to the cart.",
    input: z.object({ sku: z.string(), qty: z.number().int(), note: z.string().optional() }),
    run,
  });
  return { run, executor: new ToolExecutor([tool]) };
}

const ASK: Message = { role: "user", content: "Add the shoes." };
const NOTE = "please wrap it as a gift, with a card saying happy birthday";

describe("eager (unvalidated) tool input through anthropicModel and the sim", () => {
  it("invalid JSON streamed eagerly: an invalid_input result, the tool never runs, the conversation stays valid", async () => {
    const raw = `{"sku": "SHOE-42", "qty": two, "note": "${NOTE}"}`;
    const script: SimScript = {
      blocks: [
        { type: "text", text: "Adding them." },
        { type: "tool_use", id: "toolu_bad", name: "add_to_cart", input: raw },
      ],
    };
    await withSim(script, async (sim) => {
      const { model, sentTools, inputDeltas } = observedModel(sim);
      const { run, executor } = cartTool();
      const turn = await runAgentTurn({ model, executor, messages: [ASK], sink: () => {} });

      // The request asked for fine-grained streaming, and the input came progressively.
      expect(sentTools[0]).toEqual([expect.objectContaining({ eager_input_streaming: true })]);
      const deltas = inputDeltas.filter((d) => d.index === 1 && d.text !== "");
      expect(deltas.length).toBeGreaterThan(4);
      expect(deltas.map((d) => d.text).join("")).toBe(raw);

      const outcome = turn.rounds[0]?.outcomes[0];
      expect(outcome).toMatchObject({
        callId: "toolu_bad",
        status: "invalid_input",
        isError: true,
      });
      expect(outcome?.resultText).toContain(JSON.stringify(raw));
      expect(run).not.toHaveBeenCalled();
      // The model got the error, answered, and the strict peer accepted every request.
      expect(turn.error).toBeUndefined();
      expect(turn.stopReason).toBe("end_turn");
      expect(turn.rounds).toHaveLength(2);
      expect(validateConversation(turn.messages)).toEqual([]);
    });
  });

  it("input cut by max_tokens: stop max_tokens, an invalid_input result, the tool never runs, the next turn is accepted", async () => {
    const script: SimScript = {
      blocks: [
        {
          type: "tool_use",
          id: "toolu_cut",
          name: "add_to_cart",
          input: { sku: "SHOE-42", qty: 1, note: NOTE },
        },
      ],
    };
    await withSim(script, async (sim) => {
      const { model, inputDeltas } = observedModel(sim);
      const { run, executor } = cartTool();
      // 12 tokens: about 48 characters, less than the name plus the arguments.
      const turn = await runAgentTurn({
        model,
        executor,
        messages: [ASK],
        sink: () => {},
        maxTokens: 12,
      });

      expect(turn.stopReason).toBe("max_tokens");
      const sent = inputDeltas.map((d) => d.text).join("");
      expect(sent.length).toBeGreaterThan(0);
      expect(() => JSON.parse(sent)).toThrow(); // truncated JSON, as the API may send it
      expect(turn.rounds[0]?.outcomes[0]).toMatchObject({
        callId: "toolu_cut",
        status: "invalid_input",
        isError: true,
      });
      expect(run).not.toHaveBeenCalled();
      expect(validateConversation(turn.messages)).toEqual([]);
      // The conversation left behind is one the strict peer takes.
      const next = await runAgentTurn({
        model,
        executor,
        messages: appendUserText(turn.messages, "go on").messages,
        sink: () => {},
      });
      expect(next.error).toBeUndefined();
      expect(next.stopReason).toBe("end_turn");
      expect(run).not.toHaveBeenCalled();
    });
  });

  it("with eagerInputStreaming: false the sim buffers: the input arrives whole, in one delta", async () => {
    const script: SimScript = {
      blocks: [
        {
          type: "tool_use",
          id: "toolu_ok",
          name: "add_to_cart",
          input: { sku: "SHOE-42", qty: 1, note: NOTE },
        },
      ],
    };
    await withSim(script, async (sim) => {
      const { model, sentTools, inputDeltas } = observedModel(sim, false);
      const { run, executor } = cartTool();
      const turn = await runAgentTurn({ model, executor, messages: [ASK], sink: () => {} });
      expect(sentTools[0]).toEqual([expect.not.objectContaining({ eager_input_streaming: true })]);
      expect(inputDeltas.filter((d) => d.text !== "")).toEqual([
        { index: 0, text: `{"sku": "SHOE-42", "qty": 1, "note": "${NOTE}"}` },
      ]);
      expect(run).toHaveBeenCalledTimes(1);
      expect(turn.stopReason).toBe("end_turn");
    });
  });
});
