/**
 * The Anthropic SDK's tool runner: `client.beta.messages.toolRunner({ stream: true, ... })` with
 * `betaTool` JSON Schema tools, the full history sent each request (`thread: false`: the
 * scripted model is the Messages API, not the thread API). Two variants, by the first argument:
 * `after` (the default: tools run once the reply is done) and `eager` (`runToolsEagerly: true`,
 * this SDK version's option: a call starts once the model has moved on from it). The
 * conversation an app keeps is `runner.params.messages` (plus the final reply).
 */

import Anthropic from "@anthropic-ai/sdk";
import { betaTool } from "@anthropic-ai/sdk/helpers/beta/json-schema";
import type { BetaMessageParam } from "@anthropic-ai/sdk/resources/beta";
import {
  benchTool,
  type PeerSystem,
  packageVersion,
  runPeerChild,
  tappedFetch,
} from "../child-kit.js";
import { BENCH_TOOL_SCHEMA, BENCH_TOOLS } from "../scenarios.js";

const eager = process.argv[2] === "eager";

async function load(): Promise<PeerSystem> {
  const fetch = tappedFetch();
  const tools = BENCH_TOOLS.map((t) =>
    betaTool({
      name: t.name,
      description: t.description,
      inputSchema: BENCH_TOOL_SCHEMA,
      run: (input, context) => benchTool(t.name, input, context?.signal ?? undefined),
    }),
  );
  const clients = new Map<string, Anthropic>();
  const clientFor = (url: string) => {
    let client = clients.get(url);
    if (!client) {
      client = new Anthropic({ baseURL: url, apiKey: "bench", fetch });
      clients.set(url, client);
    }
    return client;
  };
  return {
    name: eager ? "anthropic-tool-runner-eager" : "anthropic-tool-runner",
    versions: { "@anthropic-ai/sdk": packageVersion("@anthropic-ai/sdk", import.meta.url) },
    async turn({ url, history, prompt, signal }) {
      const messages: BetaMessageParam[] = [
        ...(history as BetaMessageParam[]),
        { role: "user", content: prompt },
      ];
      const runner = clientFor(url).beta.messages.toolRunner(
        {
          model: "scripted-peers",
          max_tokens: 32_000,
          messages,
          tools,
          stream: true,
          max_iterations: 10,
          thread: false,
          runToolsEagerly: eager,
        },
        { signal },
      );
      try {
        const final = await runner.runUntilDone();
        const kept = [...runner.params.messages];
        const last = kept.at(-1);
        if (last?.role !== "assistant") kept.push({ role: "assistant", content: final.content });
        const text = final.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
        return { text, history: kept };
      } catch (error) {
        return {
          text: "",
          history: [...runner.params.messages],
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        };
      }
    },
  };
}

await runPeerChild(load);
