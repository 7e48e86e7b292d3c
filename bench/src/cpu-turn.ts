/**
 * Benchmark: CPU milliseconds per turn of overlap, in-process, on the turns of `bench/peers`.
 *
 * The same turn as `npm run bench:peers` (same scripted model process `peers/sim-process.ts`,
 * same pacing, same tools and wire tap from `peers/child-kit.ts`), but run here in one process so
 * it can be profiled: `runAgentTurn` + `anthropicModel` (fine-grained tool streaming, as the
 * `overlap` peer), the same without it (`overlap-buffered`), and two references on the same
 * wire: the Anthropic SDK's tool runner (the leanest peer in `bench/results/peers.md`) and the
 * turn's two responses read raw from the SDK, with and without fine-grained tool streaming
 * (`sdk-floor`, `sdk-floor-buffered`: what any system on this SDK and wire pays at the least;
 * no tool runs, no previews, no checks).
 * `process.cpuUsage()` around each turn, after a `gc()` (run with `--expose-gc`), median of
 * `CPU_REPS` turns (default 5) after a warm-up turn; then the figures of the last committed
 * `bench:peers` run side by side.
 *
 * Run: `node --expose-gc --conditions=overlap-source --import tsx bench/src/cpu-turn.ts`
 * (`CPU_SCENARIOS=display-64k,long-args-2` narrows the scenarios, `CPU_SYSTEMS=overlap` the
 * systems). Profile: add `--cpu-prof --cpu-prof-dir=/tmp/prof` and read the profile with
 * `node bench/src/cpu-profile-top.ts /tmp/prof/<file>.cpuprofile`.
 * Prints a table, then one JSON line `{"bench":"cpu-turn",...}`.
 */

import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import { betaTool } from "@anthropic-ai/sdk/helpers/beta/json-schema";
import {
  appendUserText,
  defineJsonSchemaTool,
  type Message,
  type ModelClient,
  runAgentTurn,
  ToolExecutor,
} from "overlap-runtime";
import { anthropicModel } from "overlap-runtime/anthropic";
import type { StreamEvent } from "overlap-runtime/core";
import { benchTool, tappedFetch } from "./peers/child-kit.js";
import {
  BENCH_TOOL_SCHEMA,
  BENCH_TOOLS,
  buildScenarios,
  resultText,
  type SimKind,
  scenarioPrompt,
} from "./peers/scenarios.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const REPS = Math.max(1, Number(process.env.CPU_REPS ?? 5) || 5);
/** Unmeasured turns of each scenario first. */
const WARMUP = 1;
const ONLY_SCENARIOS = process.env.CPU_SCENARIOS?.split(",").filter(Boolean);
const ONLY_SYSTEMS = process.env.CPU_SYSTEMS?.split(",").filter(Boolean);

type Turn = (
  url: string,
  prompt: string,
  wrap?: (model: ModelClient) => ModelClient,
) => Promise<void>;

async function startSim(): Promise<{ urls: Record<SimKind, string>; stop: () => void }> {
  const child = spawn(
    process.execPath,
    ["--conditions=overlap-source", "--import", "tsx", "bench/src/peers/sim-process.ts"],
    { cwd: root, stdio: ["pipe", "pipe", "inherit"] },
  );
  const urls = await new Promise<Record<SimKind, string>>((ok, fail) => {
    let buffer = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      const match = /@@sim (.*)\n/.exec(buffer);
      if (match) ok(JSON.parse(match[1]!) as Record<SimKind, string>);
    });
    child.on("exit", (code) => fail(new Error(`the sim process exited (${code})`)));
  });
  return { urls, stop: () => child.stdin.end() };
}

/** overlap as the `overlap` / `overlap-buffered` peers run it. */
function overlapTurn(eagerInputStreaming: boolean, sdkStream = false): Turn {
  const fetch = tappedFetch();
  const executor = new ToolExecutor(
    BENCH_TOOLS.map((t) =>
      defineJsonSchemaTool({
        name: t.name,
        description: t.description,
        inputSchema: BENCH_TOOL_SCHEMA,
        dispatch: "eager",
        run: (input, ctx) => benchTool(t.name, input, ctx.signal),
      }),
    ),
  );
  const models = new Map<string, ReturnType<typeof anthropicModel>>();
  return async (url, prompt, wrap = (m) => m) => {
    let model = models.get(url);
    if (!model) {
      model = anthropicModel({
        client: new Anthropic({ baseURL: url, apiKey: "bench", maxRetries: 0, fetch }),
        model: "scripted-peers",
        maxTokens: 32_000,
        eagerInputStreaming,
        sdkStream,
      });
      models.set(url, model);
    }
    const turn = await runAgentTurn({
      model: wrap(model),
      executor,
      messages: appendUserText([] as Message[], prompt).messages,
      sink: () => {},
      maxTokens: 32_000,
    });
    if (turn.error) throw new Error(`${turn.error.code}: ${turn.error.message}`);
  };
}

/**
 * overlap's own work without the network: the turn's responses recorded once through
 * `anthropicModel` (fine-grained streaming), then replayed from memory, event by event.
 */
function overlapReplayTurn(): Turn {
  const live = overlapTurn(true);
  const recorded = new Map<string, StreamEvent[][]>();
  const executor = new ToolExecutor(
    BENCH_TOOLS.map((t) =>
      defineJsonSchemaTool({
        name: t.name,
        description: t.description,
        inputSchema: BENCH_TOOL_SCHEMA,
        dispatch: "eager",
        run: (input, ctx) => benchTool(t.name, input, ctx.signal),
      }),
    ),
  );
  return async (url, prompt) => {
    const key = `${url} ${prompt}`;
    let responses = recorded.get(key);
    if (!responses) {
      const record: StreamEvent[][] = [];
      const recording = (model: ModelClient): ModelClient => ({
        stream(request, options) {
          const events: StreamEvent[] = [];
          record.push(events);
          return (async function* () {
            for await (const event of model.stream(request, options)) {
              events.push(structuredClone(event));
              yield event;
            }
          })();
        },
      });
      await live(url, prompt, recording);
      responses = record;
      recorded.set(key, responses);
    }
    let k = 0;
    const model: ModelClient = {
      async *stream() {
        const events = responses[k++] ?? [];
        for (const event of events) yield event;
      },
    };
    const turn = await runAgentTurn({
      model,
      executor,
      messages: appendUserText([] as Message[], prompt).messages,
      sink: () => {},
      maxTokens: 32_000,
    });
    if (turn.error) throw new Error(`${turn.error.code}: ${turn.error.message}`);
  };
}

/** The Anthropic SDK's tool runner, as the `anthropic-tool-runner` peer runs it. */
function toolRunnerTurn(): Turn {
  const fetch = tappedFetch();
  const tools = BENCH_TOOLS.map((t) =>
    betaTool({
      name: t.name,
      description: t.description,
      inputSchema: BENCH_TOOL_SCHEMA,
      run: (input, context) => benchTool(t.name, input, context?.signal ?? undefined),
    }),
  );
  return async (url, prompt) => {
    const client = new Anthropic({ baseURL: url, apiKey: "bench", fetch });
    const runner = client.beta.messages.toolRunner({
      model: "scripted-peers",
      max_tokens: 32_000,
      messages: [{ role: "user", content: prompt }],
      tools,
      stream: true,
      max_iterations: 10,
      thread: false,
    });
    await runner.runUntilDone();
  };
}

/**
 * The floor of any system on this SDK and wire: the turn's two responses read raw from the SDK
 * (`eager`: with fine-grained tool streaming), each call's input kept as text and parsed once at
 * its block's stop, the results sent at once (no tool runs, no previews, no checks).
 */
function sdkFloorTurn(eager: boolean): Turn {
  const fetch = tappedFetch();
  const tools = BENCH_TOOLS.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: BENCH_TOOL_SCHEMA as unknown as Anthropic.Tool.InputSchema,
    ...(eager ? { eager_input_streaming: true } : {}),
  }));
  return async (url, prompt) => {
    const client = new Anthropic({ baseURL: url, apiKey: "bench", maxRetries: 0, fetch });
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: prompt }];
    for (;;) {
      const stream = await client.messages.create({
        model: "scripted-peers",
        max_tokens: 32_000,
        messages,
        tools,
        stream: true,
      });
      const content: Anthropic.ContentBlockParam[] = [];
      const raw = new Map<number, string>();
      let stop: string | null = null;
      for await (const event of stream) {
        if (event.type === "content_block_start") {
          const block = event.content_block;
          if (block.type === "text") content[event.index] = { type: "text", text: "" };
          else if (block.type === "tool_use") {
            content[event.index] = { type: "tool_use", id: block.id, name: block.name, input: {} };
            raw.set(event.index, "");
          }
        } else if (event.type === "content_block_delta") {
          const block = content[event.index];
          if (event.delta.type === "text_delta" && block?.type === "text") {
            block.text += event.delta.text;
          } else if (event.delta.type === "input_json_delta") {
            raw.set(event.index, (raw.get(event.index) ?? "") + event.delta.partial_json);
          }
        } else if (event.type === "content_block_stop") {
          const block = content[event.index];
          if (block?.type === "tool_use") block.input = JSON.parse(raw.get(event.index) || "{}");
        } else if (event.type === "message_delta") {
          stop = event.delta.stop_reason;
        }
      }
      if (stop !== "tool_use") return;
      messages.push({ role: "assistant", content });
      messages.push({
        role: "user",
        content: content.flatMap((b) =>
          b.type === "tool_use"
            ? [
                {
                  type: "tool_result" as const,
                  tool_use_id: b.id,
                  content: resultText(b.name, String((b.input as { op?: unknown }).op)),
                },
              ]
            : [],
        ),
      });
    }
  };
}

const SYSTEMS: Record<string, () => Turn> = {
  overlap: () => overlapTurn(true),
  // The same, reading the response through the SDK's stream (the fallback) instead of overlap's.
  "overlap-sdk-stream": () => overlapTurn(true, true),
  "overlap-buffered": () => overlapTurn(false),
  "overlap-replay (no network)": overlapReplayTurn,
  "anthropic-tool-runner": toolRunnerTurn,
  "sdk-floor": () => sdkFloorTurn(true),
  "sdk-floor-buffered": () => sdkFloorTurn(false),
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function cpuMs(turn: Turn, url: string, prompt: string): Promise<number> {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.cpuUsage();
  await turn(url, prompt);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** The CPU figures of the last committed `bench:peers` run, by scenario then system. */
function committedPeers(): Record<string, Record<string, number>> {
  const path = join(root, "bench/results/peers.json");
  if (!existsSync(path)) return {};
  const out: Record<string, Record<string, number>> = {};
  try {
    const json = JSON.parse(readFileSync(path, "utf8")) as {
      scenarios?: Array<{ id: string; cells?: Record<string, { median?: { cpuMs?: number } }> }>;
    };
    for (const s of json.scenarios ?? []) {
      out[s.id] = Object.fromEntries(
        Object.entries(s.cells ?? {}).flatMap(([name, v]) =>
          typeof v.median?.cpuMs === "number" ? [[name, v.median.cpuMs]] : [],
        ),
      );
    }
  } catch {
    // an older layout: no side-by-side figures
  }
  return out;
}

export async function main(): Promise<void> {
  const sim = await startSim();
  const scenarios = buildScenarios().filter(
    (s) => !ONLY_SCENARIOS || ONLY_SCENARIOS.includes(s.id),
  );
  const systems = Object.entries(SYSTEMS).filter(
    ([name]) => !ONLY_SYSTEMS || ONLY_SYSTEMS.some((n) => name.startsWith(n)),
  );
  const figures: Record<string, Record<string, number>> = {};
  try {
    for (const [name, make] of systems) {
      const turn = make();
      for (const scenario of scenarios) {
        const url = sim.urls[scenario.sim];
        // Warm-up turns (they also record the replayed system's responses).
        for (let i = 0; i < WARMUP; i++) await turn(url, scenarioPrompt(scenario.id));
        const samples: number[] = [];
        for (let i = 0; i < REPS; i++) {
          samples.push(await cpuMs(turn, url, scenarioPrompt(scenario.id)));
        }
        const row = figures[scenario.id] ?? {};
        row[name] = median(samples);
        figures[scenario.id] = row;
      }
    }
  } finally {
    sim.stop();
  }
  const committed = committedPeers();
  const names = systems.map(([n]) => n);
  const peerNames = ["overlap", "anthropic-tool-runner"];
  const header = [
    "scenario".padEnd(18),
    ...names.map((n) => n.padStart(Math.max(9, n.length))),
    ...peerNames.map((n) => `peers.json ${n}`),
  ];
  console.log(`CPU ms per turn (median of ${REPS}), this process; then bench/results/peers.json`);
  console.log(header.join("  "));
  for (const scenario of scenarios) {
    const row = figures[scenario.id] ?? {};
    console.log(
      [
        scenario.id.padEnd(18),
        ...names.map((n) => (row[n]?.toFixed(1) ?? "-").padStart(Math.max(9, n.length))),
        ...peerNames.map((n) =>
          (committed[scenario.id]?.[n]?.toFixed(1) ?? "-").padStart(`peers.json ${n}`.length),
        ),
      ].join("  "),
    );
  }
  console.log(JSON.stringify({ bench: "cpu-turn", reps: REPS, cpuMs: figures }));
}

await main();
