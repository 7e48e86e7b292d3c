/**
 * Mastra (Node >= 22.13): an `Agent` with `createTool` tools on `@ai-sdk/anthropic`, run by
 * `agent.stream(messages, { maxSteps: 10, eagerToolExecution: true })` (a tool starts once its
 * complete tool-call part is streamed; this version's default, set explicitly). No memory: the
 * conversation an app keeps is the input plus `(await stream.response).messages`, or the input
 * alone when the turn failed.
 */

import { createAnthropic } from "@ai-sdk/anthropic";
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { z } from "zod";
import {
  benchTool,
  type PeerSystem,
  packageVersion,
  runPeerChild,
  tappedFetch,
} from "../../../src/peers/child-kit.js";
import { BENCH_TOOLS } from "../../../src/peers/scenarios.js";

const version = (name: string) => packageVersion(name, import.meta.url);

type Message = { role: "user" | "assistant" | "tool" | "system"; content: unknown };

async function load(): Promise<PeerSystem> {
  const fetch = tappedFetch();
  const input = z.looseObject({ op: z.string(), ms: z.number().int() });
  const tools = Object.fromEntries(
    BENCH_TOOLS.map((t) => [
      t.name,
      createTool({
        id: t.name,
        description: t.description,
        inputSchema: input,
        execute: (args, context) => benchTool(t.name, args, context?.abortSignal),
      }),
    ]),
  );
  const agents = new Map<string, Agent>();
  const agentFor = (url: string) => {
    let agent = agents.get(url);
    if (!agent) {
      const anthropic = createAnthropic({ baseURL: `${url}/v1`, apiKey: "bench", fetch });
      agent = new Agent({
        id: "bench-agent",
        name: "bench-agent",
        instructions: "You help with orders.",
        // Mastra takes an AI SDK v7 model at run time; its types (1.71.0) expect a
        // doGenerate shaped like doStream, so the provider's model does not type-check as is.
        model: anthropic("scripted-peers") as never,
        tools,
      });
      agents.set(url, agent);
    }
    return agent;
  };
  return {
    name: "mastra",
    versions: {
      "@mastra/core": version("@mastra/core"),
      "@ai-sdk/anthropic": version("@ai-sdk/anthropic"),
    },
    async turn({ url, history, prompt, signal }) {
      const messages = [...(history as Message[]), { role: "user", content: prompt } as Message];
      const errors: string[] = [];
      try {
        // biome-ignore lint/suspicious/noExplicitAny: Mastra's message input union is wide.
        const stream = await agentFor(url).stream(messages as any, {
          maxSteps: 10,
          eagerToolExecution: true,
          abortSignal: signal,
          modelSettings: { maxOutputTokens: 32_000 },
        });
        for await (const chunk of stream.fullStream) {
          if (chunk.type === "error") {
            const error = (chunk as { payload?: { error?: unknown } }).payload?.error;
            errors.push(error instanceof Error ? error.message : String(error));
          }
        }
        const text = await stream.text;
        const response = (await stream.response) as { messages?: Message[] };
        const kept = [...messages, ...(response.messages ?? [])];
        return errors.length > 0
          ? { text, history: kept, error: errors.join("; ") }
          : { text, history: kept };
      } catch (error) {
        errors.push(error instanceof Error ? error.message : String(error));
        return { text: "", history: messages, error: errors.join("; ") };
      }
    },
  };
}

await runPeerChild(load);
