/**
 * Tool choice and structured output end to end, through every adapter against overlap-sim, whose
 * generic policy honours the request's tool choice and JSON output schema as a model must: the
 * turn's `output` arrives through each provider's own mechanism (JSON schema mode for Chat
 * Completions, Responses, Gemini, the AI SDK's OpenAI models and Anthropic's `output_config`
 * when asked for; a forced answer tool for
 * Anthropic, Bedrock and the AI SDK's Anthropic model), after a tool round, validated.
 */

import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import Anthropic from "@anthropic-ai/sdk";
import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import OpenAI from "openai";
import { genericPolicy, type SimRequest, type SimServer } from "overlap-sim";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ModelClient } from "../agent/model-client.js";
import { runAgentTurn } from "../agent/run-agent-turn.js";
import { validateConversation } from "../agent/validate-conversation.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { aiSdkModel } from "./ai-sdk/ai-sdk-model.js";
import { anthropicModel } from "./anthropic/anthropic.js";
import { bedrockModel } from "./bedrock/bedrock.js";
import { geminiModel } from "./google/google.js";
import { openaiChatModel } from "./openai/openai.js";
import { openaiResponsesModel } from "./openai/openai-responses.js";
import { simRunner } from "./provider-sim.testkit.js";

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/** Every request the sim answered, as its policy saw it. */
const seen: SimRequest[] = [];
const withSim = simRunner({
  policy: (request) => {
    seen.push(request);
    return genericPolicy(request);
  },
  pacing: { fast: true },
});

const MODELS = {
  anthropic: (sim: SimServer) =>
    anthropicModel({
      client: new Anthropic({ baseURL: sim.url, apiKey: "x", maxRetries: 0 }),
      model: "scripted-claude",
      providerOptions: { stop_sequences: ["STOP"], metadata: { user_id: "u1" } },
    }),
  "anthropic-output-format": (sim: SimServer) =>
    anthropicModel({
      client: new Anthropic({ baseURL: sim.url, apiKey: "x", maxRetries: 0 }),
      model: "scripted-claude",
      structuredOutput: "outputFormat",
    }),
  "openai-chat": (sim: SimServer) =>
    openaiChatModel({
      client: new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: "x", maxRetries: 0 }),
      model: "scripted-gpt",
      providerOptions: { seed: 7, parallel_tool_calls: true },
    }),
  "openai-responses": (sim: SimServer) =>
    openaiResponsesModel({
      client: new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: "x", maxRetries: 0 }),
      model: "scripted-gpt",
      providerOptions: { temperature: 0.5 },
    }),
  gemini: (sim: SimServer) =>
    geminiModel({
      model: "scripted-gemini",
      baseUrl: sim.url,
      apiKey: "x",
      maxRetries: 0,
      providerOptions: { generationConfig: { temperature: 0.1 } },
    }),
  bedrock: (sim: SimServer) =>
    bedrockModel({
      client: new BedrockRuntimeClient({
        region: "us-east-1",
        endpoint: sim.url,
        credentials: { accessKeyId: "x", secretAccessKey: "x" },
        requestHandler: new NodeHttpHandler(),
        maxAttempts: 1,
      }),
      modelId: "scripted-claude",
      providerOptions: { inferenceConfig: { temperature: 0.3 } },
    }),
  "ai-sdk-anthropic": (sim: SimServer) =>
    aiSdkModel(createAnthropic({ baseURL: `${sim.url}/v1`, apiKey: "x" })("scripted-claude"), {
      maxRetries: 0,
    }),
  "ai-sdk-openai-chat": (sim: SimServer) =>
    aiSdkModel(createOpenAI({ baseURL: `${sim.url}/v1`, apiKey: "x" }).chat("scripted-gpt"), {
      maxRetries: 0,
    }),
} satisfies Record<string, (sim: SimServer) => ModelClient>;
type ModelName = keyof typeof MODELS;

/** How each path asks for the output, as the sim sees the request. */
const THROUGH_TOOL: ReadonlySet<ModelName> = new Set(["anthropic", "bedrock", "ai-sdk-anthropic"]);

const Plan = z.object({ city: z.string(), days: z.number().int().positive() });

function searchTool() {
  const runs: unknown[] = [];
  const search = defineTool({
    name: "search",
    description: "Searches the travel guide.",
    input: z.object({ q: z.string() }),
    run: ({ q }) => {
      runs.push(q);
      return `guide for ${q}`;
    },
  });
  return { executor: new ToolExecutor([search], { abortGraceMs: 5 }), runs };
}

async function turnWith(
  name: ModelName,
  text: string,
  extra: Partial<Parameters<typeof runAgentTurn>[0]> = {},
) {
  seen.length = 0;
  return withSim({}, async (sim) => {
    const { executor, runs } = searchTool();
    const events: AgentEvent[] = [];
    const turn = await runAgentTurn({
      model: MODELS[name](sim),
      executor,
      messages: [{ role: "user", content: text }],
      sink: (e) => events.push(e),
      output: Plan,
      ...extra,
    });
    return { turn, runs, events, requests: [...seen] };
  });
}

const ASK = 'call search {"q":"oslo"} then answer {"city":"Oslo","days":3}';

describe.each(Object.keys(MODELS) as ModelName[])("%s against overlap-sim", (name) => {
  it("runs the tool round, then gives the output object through the provider's mechanism", async () => {
    const { turn, runs, events, requests } = await turnWith(name, ASK);
    expect(turn.error?.message).toBeUndefined();
    expect(turn.output).toEqual({ city: "Oslo", days: 3 });
    expect(runs).toEqual(["oslo"]);
    expect(turn.rounds).toHaveLength(2);
    expect(turn.stopReason).toBe("end_turn");
    if (THROUGH_TOOL.has(name)) {
      // The answer tool is offered beside the search tool, and the model must call one of them.
      expect(requests.every((r) => r.outputSchema === undefined)).toBe(true);
      expect(requests[0]?.tools.map((t) => t.name).sort()).toEqual(
        ["json", "search"].includes("json") && name === "ai-sdk-anthropic"
          ? ["json", "search"]
          : ["final_answer", "search"],
      );
      expect(requests.map((r) => r.toolChoice)).toEqual(["required", "required"]);
    } else {
      expect(requests.map((r) => r.outputSchema)).toEqual([
        expect.objectContaining({ type: "object", required: ["city", "days"] }),
        expect.objectContaining({ type: "object", required: ["city", "days"] }),
      ]);
    }
    // The answer streamed as text, and the conversation (the answer a text block) stays valid.
    const streamed = events
      .filter((e): e is Extract<AgentEvent, { type: "text-delta" }> => e.type === "text-delta")
      .map((e) => e.text)
      .join("");
    expect(JSON.parse(streamed.slice(streamed.indexOf("{")))).toEqual({ city: "Oslo", days: 3 });
    expect(validateConversation(turn.messages)).toEqual([]);
    const last = turn.messages.at(-1);
    expect(last?.role).toBe("assistant");
    const blocks = last?.role === "assistant" ? last.content : [];
    // The answer is text (Gemini adds a block carrying its thought signature), never a call.
    expect(blocks.some((b) => b.type === "text")).toBe(true);
    expect(blocks.some((b) => b.type === "tool_use")).toBe(false);
  });

  it("reports an answer that does not validate as output_invalid, with the raw text", async () => {
    const { turn } = await turnWith(name, 'answer {"city":"Oslo"}');
    expect(turn.error?.code).toBe("output_invalid");
    expect(turn.output).toBeUndefined();
    expect((turn.error?.details as { text: string } | undefined)?.text).toContain('"Oslo"');
  });

  it("forces a tool in the first round only, through prepareRound", async () => {
    const { turn, runs, requests } = await turnWith(name, "hello", {
      output: undefined,
      prepareRound: ({ round }) =>
        round === 1 ? { toolChoice: { type: "tool", toolName: "search" } } : undefined,
    });
    expect(turn.error?.message).toBeUndefined();
    expect(runs).toEqual(["example"]);
    expect(requests[0]?.toolChoice).toEqual({ name: "search" });
    expect(requests[1]?.toolChoice ?? "auto").toBe("auto");
    expect(turn.stopReason).toBe("end_turn");
  });
});

describe("Anthropic with extended thinking", () => {
  it("offers the answer tool without forcing it (thinking allows only auto)", async () => {
    seen.length = 0;
    const turn = await withSim({}, (sim) =>
      runAgentTurn({
        model: anthropicModel({
          client: new Anthropic({ baseURL: sim.url, apiKey: "x", maxRetries: 0 }),
          model: "scripted-claude",
          maxTokens: 4000,
          providerOptions: { thinking: { type: "enabled", budget_tokens: 1024 } },
        }),
        executor: searchTool().executor,
        messages: [{ role: "user", content: 'call final_answer {"city":"Oslo","days":2}' }],
        sink: () => {},
        output: Plan,
      }),
    );
    expect(seen[0]?.toolChoice).toBeUndefined();
    expect(seen[0]?.tools.map((t) => t.name)).toEqual(["search", "final_answer"]);
    // The model chose the answer tool itself: its input is the answer.
    expect(turn.error?.message).toBeUndefined();
    expect(turn.output).toEqual({ city: "Oslo", days: 2 });
  });
});
