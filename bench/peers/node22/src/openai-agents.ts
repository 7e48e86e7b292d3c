/**
 * OpenAI Agents JS (`@openai/agents`, whose `openai@7` dependency needs Node 22) on Chat
 * Completions against the scripted model: an `Agent` with JSON Schema function tools
 * (`strict: false`) on `OpenAIChatCompletionsModel`, run streamed (`run(agent, input,
 * { stream: true, maxTurns: 10 })`), tracing off. The conversation an app keeps is
 * `result.history`; when the run fails, the input it started from.
 */

import {
  Agent,
  type AgentInputItem,
  OpenAIChatCompletionsModel,
  run,
  setTracingDisabled,
  tool,
} from "@openai/agents";
import OpenAI from "openai";
import {
  benchTool,
  type PeerSystem,
  packageVersion,
  runPeerChild,
  tappedFetch,
} from "../../../src/peers/child-kit.js";
import { BENCH_TOOL_SCHEMA, BENCH_TOOLS } from "../../../src/peers/scenarios.js";

const version = (name: string) => packageVersion(name, import.meta.url);

async function load(): Promise<PeerSystem> {
  setTracingDisabled(true);
  const fetch = tappedFetch();
  const tools = BENCH_TOOLS.map((t) =>
    tool({
      name: t.name,
      description: t.description,
      // biome-ignore lint/suspicious/noExplicitAny: a plain JSON Schema, not a zod schema.
      parameters: BENCH_TOOL_SCHEMA as any,
      strict: false,
      execute: (input, _context, details) => benchTool(t.name, input, details?.signal),
    }),
  );
  const agents = new Map<string, Agent>();
  const agentFor = (url: string) => {
    let agent = agents.get(url);
    if (!agent) {
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "bench", fetch });
      agent = new Agent({
        name: "bench-agent",
        instructions: "You help with orders.",
        model: new OpenAIChatCompletionsModel(client, "scripted-peers"),
        modelSettings: { maxTokens: 32_000 },
        tools,
      });
      agents.set(url, agent);
    }
    return agent;
  };
  return {
    name: "openai-agents",
    versions: { "@openai/agents": version("@openai/agents"), openai: version("openai") },
    async turn({ url, history, prompt, signal }) {
      const input: AgentInputItem[] = [
        ...(history as AgentInputItem[]),
        { role: "user", content: prompt },
      ];
      try {
        const result = await run(agentFor(url), input, { stream: true, maxTurns: 10, signal });
        for await (const _event of result) {
          // consume every event, as a UI would
        }
        await result.completed;
        if (result.error) throw result.error;
        const text = typeof result.finalOutput === "string" ? result.finalOutput : "";
        return { text, history: result.history };
      } catch (error) {
        return {
          text: "",
          history: input,
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        };
      }
    },
  };
}

await runPeerChild(load);
