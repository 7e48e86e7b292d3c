/**
 * The Vercel AI SDK v6: `streamText` with `@ai-sdk/anthropic` and `stopWhen: stepCountIs(10)`
 * (the SDK runs the tools and the loop). The conversation an app keeps is the documented
 * `[...messages, ...(await result.response).messages]`; when the turn fails that promise rejects
 * and the app keeps what it had, plus the prompt.
 */

import { createAnthropic } from "@ai-sdk/anthropic";
import { jsonSchema, type ModelMessage, stepCountIs, streamText, type ToolSet, tool } from "ai";
import {
  benchTool,
  type PeerSystem,
  packageVersion,
  runPeerChild,
  tappedFetch,
} from "../child-kit.js";
import { BENCH_TOOL_SCHEMA, BENCH_TOOLS } from "../scenarios.js";

const version = (name: string) => packageVersion(name, import.meta.url);

async function load(): Promise<PeerSystem> {
  const fetch = tappedFetch();
  const tools: ToolSet = Object.fromEntries(
    BENCH_TOOLS.map((t) => [
      t.name,
      tool({
        description: t.description,
        inputSchema: jsonSchema<Record<string, unknown>>({
          ...BENCH_TOOL_SCHEMA,
          required: [...BENCH_TOOL_SCHEMA.required],
        }),
        execute: (input, { abortSignal }) => benchTool(t.name, input, abortSignal),
      }),
    ]),
  );
  const providers = new Map<string, ReturnType<typeof createAnthropic>>();
  const providerFor = (url: string) => {
    let provider = providers.get(url);
    if (!provider) {
      provider = createAnthropic({ baseURL: `${url}/v1`, apiKey: "bench", fetch });
      providers.set(url, provider);
    }
    return provider;
  };
  return {
    name: "ai-sdk-v6",
    versions: { ai: version("ai"), "@ai-sdk/anthropic": version("@ai-sdk/anthropic") },
    async turn({ url, history, prompt, signal }) {
      const messages: ModelMessage[] = [
        ...(history as ModelMessage[]),
        { role: "user", content: prompt },
      ];
      const errors: string[] = [];
      const result = streamText({
        model: providerFor(url)("scripted-peers"),
        messages,
        tools,
        stopWhen: stepCountIs(10),
        maxOutputTokens: 32_000,
        abortSignal: signal,
        onError: ({ error }) => {
          errors.push(error instanceof Error ? error.message : String(error));
        },
      });
      for await (const part of result.fullStream) {
        if (part.type === "error") {
          const error = part.error;
          const text = error instanceof Error ? error.message : String(error);
          if (!errors.includes(text)) errors.push(text);
        }
      }
      try {
        const response = await result.response;
        const text = await result.text;
        const kept = [...messages, ...response.messages];
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
