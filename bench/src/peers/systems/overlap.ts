/**
 * overlap (eager): `runAgentTurn` with `anthropicModel` over the Anthropic SDK, every bench tool
 * a JSON Schema tool dispatched eagerly (each call starts at its block stop). The conversation
 * an app keeps is `turn.messages`, valid whatever happened; the next prompt is added with
 * `appendUserText` (which repairs whatever an interruption left).
 */

import Anthropic from "@anthropic-ai/sdk";
import {
  appendUserText,
  defineJsonSchemaTool,
  type Message,
  runAgentTurn,
  ToolExecutor,
} from "overlap-runtime";
import { anthropicModel } from "overlap-runtime/anthropic";
import { incomingBodyOf, nodeHttpFetch } from "overlap-runtime/node";
import {
  benchTool,
  type PeerSystem,
  packageVersion,
  runPeerChild,
  tappedFetch,
} from "../child-kit.js";
import { BENCH_TOOL_SCHEMA, BENCH_TOOLS } from "../scenarios.js";

const version = (name: string) => packageVersion(name, import.meta.url);

/** `buffered`: without fine-grained tool streaming (the API buffers each call's input). */
const buffered = process.argv[2] === "buffered";
/** `web`: the body read through the global fetch's web stream, the path every runtime has. */
const web = process.argv[2] === "web";

async function load(): Promise<PeerSystem> {
  // Node's read (`overlap-runtime/node`), as a Node server chooses it, tapped beside overlap's
  // own read of the socket; `web`: the global fetch, its body read through the web stream.
  const fetch = web ? tappedFetch() : tappedFetch(nodeHttpFetch, incomingBodyOf);
  const tools = BENCH_TOOLS.map((t) =>
    defineJsonSchemaTool({
      name: t.name,
      description: t.description,
      inputSchema: BENCH_TOOL_SCHEMA,
      dispatch: "eager",
      run: (input, ctx) => benchTool(t.name, input, ctx.signal),
    }),
  );
  const executor = new ToolExecutor(tools);
  const models = new Map<string, ReturnType<typeof anthropicModel>>();
  const modelFor = (url: string) => {
    let model = models.get(url);
    if (!model) {
      model = anthropicModel({
        client: new Anthropic({ baseURL: url, apiKey: "bench", maxRetries: 0, fetch }),
        model: "scripted-peers",
        maxTokens: 32_000,
        eagerInputStreaming: !buffered,
      });
      models.set(url, model);
    }
    return model;
  };
  return {
    name: buffered ? "overlap-buffered" : web ? "overlap-web" : "overlap",
    versions: {
      "overlap-runtime": "workspace (source)",
      "@anthropic-ai/sdk": version("@anthropic-ai/sdk"),
    },
    async turn({ url, history, prompt, signal }) {
      const messages = appendUserText(history as Message[], prompt).messages;
      const turn = await runAgentTurn({
        model: modelFor(url),
        executor,
        messages,
        sink: () => {},
        signal,
        maxTokens: 32_000,
      });
      const last = turn.messages.at(-1);
      const text =
        last?.role === "assistant" && Array.isArray(last.content)
          ? last.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("")
          : "";
      const result = { text, history: turn.messages };
      return turn.error
        ? { ...result, error: `${turn.error.code}: ${turn.error.message}` }
        : result;
    },
  };
}

await runPeerChild(load);
