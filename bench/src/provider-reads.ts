/**
 * Benchmark: the CPU of reading one long streamed response, per adapter and read path.
 *
 * The `display-64k` response of `bench/peers` (a 64 KB tool call written in 8-character deltas,
 * about 8,000 events in 1.5 s), served by the bench's scripted model in its own process
 * (`peers/sim-process.ts`) in every wire format it speaks, read through each adapter's `stream`
 * with nothing else running (no round, no tools), on its two read paths: straight from Node's
 * socket (`nodeHttpFetch` of `overlap-runtime/node`; Bedrock: the AWS SDK's Node handler's body,
 * read by overlap) and through the web stream every runtime has (the global fetch; Bedrock: the
 * SDK's own event stream, as under any handler other than Node's). CPU per response, per event,
 * and the main thread's share against V8's helper threads (`/proc/self/task`, Linux; mostly the
 * garbage collector's).
 *
 * Run: `node --conditions=overlap-source --import tsx bench/src/provider-reads.ts`
 * (`READS_REPS=8`, default 5; `READS_ADAPTERS=bedrock,anthropic` narrows).
 * Prints a table, then one JSON line `{"bench":"provider-reads",...}`.
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import Anthropic from "@anthropic-ai/sdk";
import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import OpenAI from "openai";
import type { ModelClient, ModelRequest } from "overlap-runtime";
import { anthropicModel } from "overlap-runtime/anthropic";
import { bedrockModel } from "overlap-runtime/bedrock";
import { geminiModel } from "overlap-runtime/google";
import { nodeHttpFetch } from "overlap-runtime/node";
import { openaiChatModel, openaiResponsesModel } from "overlap-runtime/openai";
import {
  BENCH_TOOL_SCHEMA,
  BENCH_TOOLS,
  buildScenarios,
  scenarioPrompt,
} from "./peers/scenarios.js";
import { startSimProcess } from "./peers/start-sim-process.js";

const REPS = Math.max(1, Number(process.env.READS_REPS ?? 5) || 5);
const ONLY = process.env.READS_ADAPTERS?.split(",").filter(Boolean);
const SCENARIO = "display-64k";

/** CPU ticks (10 ms) of this process's threads: the main thread, and the rest together. */
function threadTicks(): { main: number; helpers: number } {
  const out = { main: 0, helpers: 0 };
  if (!existsSync("/proc/self/task")) return out;
  for (const task of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ticks = Number(fields[11]) + Number(fields[12]);
      if (task === String(process.pid)) out.main += ticks;
      else out.helpers += ticks;
    } catch {
      // a thread that ended meanwhile
    }
  }
  return out;
}

/** The two ways an adapter reads: straight from Node's socket (`overlap`), and the web stream. */
type Paths = Record<"overlap" | "fallback", ModelClient>;

function adapters(url: string): Record<string, Paths> {
  const anthropic = (fetch: typeof globalThis.fetch) =>
    anthropicModel({
      client: new Anthropic({ baseURL: url, apiKey: "bench", maxRetries: 0, fetch }),
      model: "scripted-peers",
      maxTokens: 32_000,
    });
  const openai = (fetch: typeof globalThis.fetch) =>
    new OpenAI({ baseURL: `${url}/v1`, apiKey: "bench", maxRetries: 0, fetch });
  const bedrock = (sdkOnly: boolean) =>
    bedrockModel({
      client: new BedrockRuntimeClient({
        region: "us-east-1",
        endpoint: url,
        credentials: { accessKeyId: "bench", secretAccessKey: "bench" },
        requestHandler: sdkOnly ? sdkOnlyHandler(new NodeHttpHandler()) : new NodeHttpHandler(),
        maxAttempts: 1,
      }),
      modelId: "scripted-peers",
    });
  const gemini = (fetch: typeof globalThis.fetch) =>
    geminiModel({ model: "scripted-peers", baseUrl: url, apiKey: "bench", maxRetries: 0, fetch });
  return {
    anthropic: { overlap: anthropic(nodeHttpFetch), fallback: anthropic(globalThis.fetch) },
    "openai-chat": {
      overlap: openaiChatModel({ client: openai(nodeHttpFetch), model: "scripted-peers" }),
      fallback: openaiChatModel({ client: openai(globalThis.fetch), model: "scripted-peers" }),
    },
    "openai-responses": {
      overlap: openaiResponsesModel({ client: openai(nodeHttpFetch), model: "scripted-peers" }),
      fallback: openaiResponsesModel({ client: openai(globalThis.fetch), model: "scripted-peers" }),
    },
    gemini: { overlap: gemini(nodeHttpFetch), fallback: gemini(globalThis.fetch) },
    bedrock: { overlap: bedrock(false), fallback: bedrock(true) },
  };
}

/**
 * Node's HTTP handler whose bodies reach the SDK as a plain async iterable, not a Node stream: the
 * SDK's own event stream reads them, as under a handler other than Node's.
 */
function sdkOnlyHandler(inner: NodeHttpHandler): NodeHttpHandler {
  return {
    handle: async (request: never, options: never) => {
      const result = await inner.handle(request, options);
      const body = result.response.body as AsyncIterable<Uint8Array>;
      result.response.body = (async function* () {
        yield* body;
      })();
      return result;
    },
  } as unknown as NodeHttpHandler;
}

/** Reads one response to its end; its events. */
async function readOnce(model: ModelClient, request: ModelRequest): Promise<number> {
  let events = 0;
  const signal = new AbortController().signal;
  for await (const batch of model.stream(request, { signal })) events += batch.length;
  return events;
}

interface Figure {
  events: number;
  cpuMs: number;
  mainMs: number;
  helpersMs: number;
}

async function measure(model: ModelClient, request: ModelRequest): Promise<Figure> {
  // Two unmeasured reads: the first adapter measured would otherwise pay for compiling the read.
  const events = await readOnce(model, request);
  await readOnce(model, request);
  (globalThis as { gc?: () => void }).gc?.();
  const ticks = threadTicks();
  const before = process.cpuUsage();
  for (let i = 0; i < REPS; i++) await readOnce(model, request);
  const used = process.cpuUsage(before);
  const after = threadTicks();
  return {
    events,
    cpuMs: (used.user + used.system) / 1000 / REPS,
    mainMs: ((after.main - ticks.main) * 10) / REPS,
    helpersMs: ((after.helpers - ticks.helpers) * 10) / REPS,
  };
}

export async function main(): Promise<void> {
  const sim = await startSimProcess();
  const scenario = buildScenarios().find((s) => s.id === SCENARIO);
  if (!scenario) throw new Error(`no scenario ${SCENARIO}`);
  const request: ModelRequest = {
    messages: [{ role: "user", content: scenarioPrompt(SCENARIO) }],
    tools: BENCH_TOOLS.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: BENCH_TOOL_SCHEMA,
    })) as unknown as ModelRequest["tools"],
    maxTokens: 32_000,
  };
  const figures: Record<string, { overlap: Figure; fallback: Figure }> = {};
  try {
    for (const [name, paths] of Object.entries(adapters(sim.urls[scenario.sim]))) {
      if (ONLY && !ONLY.includes(name)) continue;
      figures[name] = {
        overlap: await measure(paths.overlap, request),
        fallback: await measure(paths.fallback, request),
      };
    }
  } finally {
    sim.stop();
  }
  console.log(
    `\nOne ${SCENARIO} response read to its end, CPU per response (mean of ${REPS}), this process`,
  );
  console.log(
    [
      "adapter".padEnd(17),
      "events".padStart(7),
      "node ms".padStart(11),
      "µs/event".padStart(9),
      "main/helpers".padStart(13),
      "web ms".padStart(12),
      "µs/event".padStart(9),
      "main/helpers".padStart(13),
      "web/node".padStart(17),
    ].join("  "),
  );
  for (const [name, { overlap, fallback }] of Object.entries(figures)) {
    const cell = (f: Figure) => [
      f.cpuMs.toFixed(1).padStart(11),
      ((f.cpuMs * 1000) / f.events).toFixed(2).padStart(9),
      `${f.mainMs.toFixed(0)}/${f.helpersMs.toFixed(0)}`.padStart(13),
    ];
    const [o1, o2, o3] = cell(overlap);
    const [f1, f2, f3] = cell(fallback);
    console.log(
      [
        name.padEnd(17),
        String(overlap.events).padStart(7),
        o1,
        o2,
        o3,
        f1!.padStart(12),
        f2,
        f3,
        `${(fallback.cpuMs / overlap.cpuMs).toFixed(2)}x`.padStart(17),
      ].join("  "),
    );
  }
  console.log(JSON.stringify({ bench: "provider-reads", reps: REPS, figures }));
}

await main();
