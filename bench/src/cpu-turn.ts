/**
 * Benchmark: CPU milliseconds per turn of overlap, in-process, on the turns of `bench/peers`.
 *
 * The same turn as `npm run bench:peers` (same scripted model process `peers/sim-process.ts`,
 * same pacing, same tools and wire tap from `peers/child-kit.ts`), but run here in one process so
 * it can be profiled: `runAgentTurn` + `anthropicModel` (fine-grained tool streaming, as the
 * `overlap` peer, reading the body straight from Node's socket through `nodeHttpFetch`), the same
 * through the global fetch's web stream (`overlap-web`, the path of every runtime), the same
 * without fine-grained tool streaming (`overlap-buffered`), and two references on the same
 * wire: the Anthropic SDK's tool runner (the leanest peer in `bench/results/peers.md`) and the
 * turn's two responses read raw from the SDK, with and without fine-grained tool streaming
 * (`sdk-floor`, `sdk-floor-buffered`: what any system on this SDK and wire pays at the least;
 * no tool runs, no previews, no checks).
 * Two ways of counting, after a warm-up turn (`CPU_MODE=warm`, `cold` or `both`, the default):
 * - **warm**: `CPU_REPS` turns (default 5) back to back after one `gc()`, `process.cpuUsage()`
 *   around the series, divided by the turns: what a turn costs a process that keeps serving them
 *   (garbage is collected as it comes, inside the series).
 * - **cold**: a `gc()` before each turn (run with `--expose-gc`), `process.cpuUsage()` around the
 *   turn, median of `CPU_REPS` (the way `bench:peers` counts). A forced full collection also
 *   drops the hidden classes of objects no longer alive (every round's assembler, parser,
 *   coalescer, the events' JSON shapes): V8 then deoptimizes the code specialised on them
 *   ("weak objects") and the next turn runs part of its work in the interpreter while it is
 *   compiled again, on every system. Measured on overlap's replay of `display-64k` (9,000
 *   events): about 5x more CPU cold than warm (see bench/README.md).
 * Then wire frames per turn (what the tap counted), the CPU per frame, and the figures of the
 * last committed `bench:peers` run side by side.
 *
 * Run: `node --expose-gc --conditions=overlap-source --import tsx bench/src/cpu-turn.ts`
 * (`CPU_SCENARIOS=display-64k,long-args-2` narrows the scenarios, `CPU_SYSTEMS=overlap` the
 * systems). Profile: add `--cpu-prof --cpu-prof-dir=/tmp/prof` and read the profile with
 * `node bench/src/cpu-profile-top.ts /tmp/prof/<file>.cpuprofile`.
 * Prints a table, then one JSON line `{"bench":"cpu-turn",...}`.
 */

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
import { incomingBodyOf, nodeHttpFetch } from "overlap-runtime/node";
import { benchTool, recorder, tappedFetch } from "./peers/child-kit.js";
import {
  BENCH_TOOL_SCHEMA,
  BENCH_TOOLS,
  buildScenarios,
  resultText,
  scenarioPrompt,
} from "./peers/scenarios.js";
import { startSimProcess } from "./peers/start-sim-process.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const REPS = Math.max(1, Number(process.env.CPU_REPS ?? 5) || 5);
/** Unmeasured turns of each scenario first. */
const WARMUP = 1;
const ONLY_SCENARIOS = process.env.CPU_SCENARIOS?.split(",").filter(Boolean);
const ONLY_SYSTEMS = process.env.CPU_SYSTEMS?.split(",").filter(Boolean);
const MODE = process.env.CPU_MODE ?? "both";
const MODES = (MODE === "both" ? ["warm", "cold"] : [MODE]) as Array<"warm" | "cold">;

type Turn = (
  url: string,
  prompt: string,
  wrap?: (model: ModelClient) => ModelClient,
) => Promise<void>;

/** overlap as the `overlap` / `overlap-buffered` peers run it. */
function overlapTurn(
  eagerInputStreaming: boolean,
  fetch: typeof globalThis.fetch = tappedFetch(),
): Turn {
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
 * `anthropicModel` (fine-grained streaming) as it hands them to the round (one array of events
 * per read of the body), then replayed from memory in the same arrays. The events
 * of one replayed turn are counted in `replayEvents` (for the CPU per event).
 */
const replayEvents = new Map<string, number>();
function overlapReplayTurn(): Turn {
  const live = overlapTurn(true);
  const recorded = new Map<string, StreamEvent[][][]>();
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
      const record: StreamEvent[][][] = [];
      const recording = (model: ModelClient): ModelClient => ({
        stream(request, options) {
          const batches: StreamEvent[][] = [];
          record.push(batches);
          return (async function* () {
            for await (const batch of model.stream(request, options)) {
              batches.push(structuredClone([...batch]));
              yield batch;
            }
          })();
        },
      });
      await live(url, prompt, recording);
      responses = record;
      recorded.set(key, responses);
      replayEvents.set(prompt, record.flat(2).length);
    }
    let k = 0;
    const model: ModelClient = {
      async *stream() {
        for (const batch of responses[k++] ?? []) yield batch;
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
function toolRunnerTurn(fetch: typeof globalThis.fetch = tappedFetch()): Turn {
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
  // As `bench:peers` runs it: its client sends through `nodeHttpFetch` (`overlap-runtime/node`),
  // tapped beside its read of the socket.
  overlap: () => overlapTurn(true, tappedFetch(nodeHttpFetch, incomingBodyOf)),
  // The same through the global fetch, its body read through the web stream (every runtime's
  // path; `overlap-web` of bench:peers).
  "overlap-web": () => overlapTurn(true),
  "overlap-buffered": () => overlapTurn(false),
  // The same as `overlap` without the wire tap (which every other system has): the tap tees the
  // body and reads every frame again, a cost per frame that weighs on the fine-grained wire.
  // Untapped: `nodeHttpFetch` (the socket read directly, in paced reads), as a Node server
  // chooses it; `-fetch`: the global fetch, its body read through the web stream.
  "overlap-untapped": () => overlapTurn(true, nodeHttpFetch),
  "overlap-untapped-fetch": () => overlapTurn(true, globalThis.fetch),
  "overlap-replay (no network)": overlapReplayTurn,
  "anthropic-tool-runner": () => toolRunnerTurn(),
  "anthropic-tool-runner-untapped": () => toolRunnerTurn(globalThis.fetch),
  "sdk-floor": () => sdkFloorTurn(true),
  "sdk-floor-buffered": () => sdkFloorTurn(false),
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function cpuNow(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

/** Cold: a full collection before each turn, the median turn. */
async function coldCpuMs(turn: Turn, url: string, prompt: string): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < REPS; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    const before = cpuNow();
    await turn(url, prompt);
    samples.push(cpuNow() - before);
  }
  return median(samples);
}

/** Warm: the turns back to back after one collection, the mean turn. */
async function warmCpuMs(turn: Turn, url: string, prompt: string): Promise<number> {
  (globalThis as { gc?: () => void }).gc?.();
  const before = cpuNow();
  for (let i = 0; i < REPS; i++) await turn(url, prompt);
  return (cpuNow() - before) / REPS;
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
  const sim = await startSimProcess();
  const scenarios = buildScenarios().filter(
    (s) => !ONLY_SCENARIOS || ONLY_SCENARIOS.includes(s.id),
  );
  const systems = Object.entries(SYSTEMS).filter(
    ([name]) => !ONLY_SYSTEMS || ONLY_SYSTEMS.some((n) => name.startsWith(n)),
  );
  // figures[mode][scenario][system]: CPU ms per turn; frames[scenario][system]: wire frames.
  const figures: Record<string, Record<string, Record<string, number>>> = {};
  const frames: Record<string, Record<string, number>> = {};
  try {
    for (const [name, make] of systems) {
      const turn = make();
      for (const scenario of scenarios) {
        const url = sim.urls[scenario.sim];
        const prompt = scenarioPrompt(scenario.id);
        // Warm-up turns (they also record the replayed system's responses).
        for (let i = 0; i < WARMUP; i++) {
          recorder.reset();
          await turn(url, prompt);
          const row = frames[scenario.id] ?? {};
          row[name] = name.startsWith("overlap-replay")
            ? (replayEvents.get(prompt) ?? 0)
            : recorder.requests.reduce((sum, r) => sum + r.frames, 0);
          frames[scenario.id] = row;
        }
        for (const mode of MODES) {
          const cpu = mode === "warm" ? warmCpuMs : coldCpuMs;
          const byScenario = figures[mode] ?? {};
          const row = byScenario[scenario.id] ?? {};
          row[name] = await cpu(turn, url, prompt);
          byScenario[scenario.id] = row;
          figures[mode] = byScenario;
        }
      }
    }
  } finally {
    sim.stop();
  }
  const committed = committedPeers();
  const names = systems.map(([n]) => n);
  const peerNames = ["overlap", "anthropic-tool-runner"];
  const width = (n: string) => Math.max(9, n.length);
  for (const mode of MODES) {
    const header = [
      "scenario".padEnd(18),
      ...names.map((n) => n.padStart(width(n))),
      ...(mode === "cold" ? peerNames.map((n) => `peers.json ${n}`) : []),
    ];
    console.log(
      mode === "warm"
        ? `\nCPU ms per turn, warm (mean of ${REPS} turns back to back), this process`
        : `\nCPU ms per turn, cold (a gc() before each turn, median of ${REPS}), this process; then bench/results/peers.json`,
    );
    console.log(header.join("  "));
    const totals: Record<string, number> = {};
    for (const scenario of scenarios) {
      const row = figures[mode]?.[scenario.id] ?? {};
      for (const n of names) totals[n] = (totals[n] ?? 0) + (row[n] ?? 0);
      console.log(
        [
          scenario.id.padEnd(18),
          ...names.map((n) => (row[n]?.toFixed(1) ?? "-").padStart(width(n))),
          ...(mode === "cold"
            ? peerNames.map((n) =>
                (committed[scenario.id]?.[n]?.toFixed(1) ?? "-").padStart(`peers.json ${n}`.length),
              )
            : []),
        ].join("  "),
      );
    }
    console.log(
      [
        `total (${scenarios.length})`.padEnd(18),
        ...names.map((n) => (totals[n] ?? 0).toFixed(1).padStart(width(n))),
      ].join("  "),
    );
  }
  console.log(
    "\nWire frames per turn (overlap-replay: events handed to the round), and µs of CPU per frame",
  );
  for (const mode of MODES) {
    console.log(`${mode}:`);
    for (const scenario of scenarios) {
      const row = figures[mode]?.[scenario.id] ?? {};
      console.log(
        [
          scenario.id.padEnd(18),
          ...names.map((n) => {
            // The untapped system's frames are the tapped one's (the same wire).
            const f =
              frames[scenario.id]?.[n] ||
              (n === "overlap-untapped" ? (frames[scenario.id]?.overlap ?? 0) : 0);
            const cpu = row[n];
            const text =
              cpu === undefined || f === 0 ? "-" : `${f}: ${((cpu * 1000) / f).toFixed(2)}`;
            return text.padStart(width(n));
          }),
        ].join("  "),
      );
    }
  }
  console.log(
    JSON.stringify({ bench: "cpu-turn", reps: REPS, modes: MODES, cpuMs: figures, frames }),
  );
}

await main();
