/**
 * Benchmark: overlap's own CPU per model round, without network or tool time: the first response
 * of the peers' `display-64k` and `long-args-2` turns (same blocks, 8-character argument deltas,
 * 16-character text deltas, as `bench/peers` paces them), built as neutral events in memory and
 * relayed through a `StreamedRound` whose tools return at once. A companion of `cpu-turn.ts`:
 * that one measures whole turns on the wire, this one only the runtime's per-event work, stable
 * enough to compare two versions of it.
 *
 * Each event is handed over by an async generator (one await per event, as from an SDK).
 * Previews: `previewIntervalMs: 0` (one per delta: the worst case) and the default (50 ms; with
 * no pacing nearly every delta is coalesced away, so that row is the per-event floor).
 *
 * Run: `node --expose-gc --conditions=overlap-source --import tsx bench/src/cpu-round.ts`
 * `CPU_ROUND_SRC=/tmp/base/packages/overlap/src` measures another copy of the runtime's sources
 * (e.g. `git archive HEAD packages/overlap/src | tar -x -C /tmp/base`), for before/after figures.
 * Prints a table, then one JSON line `{"bench":"cpu-round",...}`.
 */

import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import type { StreamEvent } from "overlap-runtime/core";
import { z } from "zod";
import { scenarioBlocks } from "./peers/bench-policy.js";
import { buildScenarios, SIM_DELTA_CHARS } from "./peers/scenarios.js";

const SRC = resolve(
  process.env.CPU_ROUND_SRC ?? new URL("../../packages/overlap/src", import.meta.url).pathname,
);
/** `CPU_ROUND_PREVIEWS=every|default` runs only one of the two preview settings. */
const INTERVALS = [0, undefined].filter(
  (i) =>
    !process.env.CPU_ROUND_PREVIEWS ||
    process.env.CPU_ROUND_PREVIEWS === (i === 0 ? "every" : "default"),
);
const REPS = Math.max(3, Number(process.env.CPU_ROUND_REPS ?? 30) || 30);

const { StreamedRound } = (await import(
  pathToFileURL(`${SRC}/round/streamed-round.ts`).href
)) as typeof import("../../packages/overlap/src/round/streamed-round.js");
const { ToolExecutor } = (await import(
  pathToFileURL(`${SRC}/tools/tool-executor.ts`).href
)) as typeof import("../../packages/overlap/src/tools/tool-executor.js");
const { defineTool } = (await import(
  pathToFileURL(`${SRC}/tools/define-tool.ts`).href
)) as typeof import("../../packages/overlap/src/tools/define-tool.js");

/** Splits `text` into pieces of `size` characters. */
function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The scenario's first response as Messages API stream events. */
function responseEvents(id: string): StreamEvent[] {
  const scenario = buildScenarios().find((s) => s.id === id);
  if (!scenario) throw new Error(`no scenario ${id}`);
  const events: StreamEvent[] = [
    {
      type: "message_start",
      message: {
        id: "msg_bench",
        type: "message",
        role: "assistant",
        model: "scripted-peers",
        content: [],
        stop_reason: null,
        usage: { input_tokens: 100, output_tokens: 1 },
      },
    } as StreamEvent,
  ];
  scenarioBlocks(scenario).forEach((block, index) => {
    if (block.type === "text") {
      events.push({
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      } as StreamEvent);
      for (const text of pieces(block.text, SIM_DELTA_CHARS.text[0])) {
        events.push({
          type: "content_block_delta",
          index,
          delta: { type: "text_delta", text },
        } as StreamEvent);
      }
    } else if (block.type === "tool_use") {
      events.push({
        type: "content_block_start",
        index,
        content_block: {
          type: "tool_use",
          id: `toolu_bench_${index}`,
          name: block.name,
          input: {},
        },
      } as StreamEvent);
      events.push({
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: "" },
      } as StreamEvent);
      for (const partial_json of pieces(JSON.stringify(block.input), SIM_DELTA_CHARS.args[0])) {
        events.push({
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json },
        } as StreamEvent);
      }
    }
    events.push({ type: "content_block_stop", index } as StreamEvent);
  });
  events.push(
    {
      type: "message_delta",
      delta: { stop_reason: "tool_use" },
      usage: { output_tokens: 9000 },
    } as StreamEvent,
    { type: "message_stop" } as StreamEvent,
  );
  return events;
}

async function* handOver(events: readonly StreamEvent[]): AsyncGenerator<StreamEvent[]> {
  for (const event of events) yield [event];
}

const executor = new ToolExecutor(
  ["lookup", "search", "inventory", "price", "add_to_cart", "display"].map((name) =>
    defineTool({
      name,
      description: name,
      input: z.looseObject({ op: z.string(), ms: z.number() }),
      run: async ({ op }) => `done:${op}`,
    }),
  ),
);

async function round(events: readonly StreamEvent[], previewIntervalMs: number | undefined) {
  let previews = 0;
  const relay = new StreamedRound({
    executor,
    sink: (event) => {
      if (event.type === "tool-input-preview") previews++;
    },
    ...(previewIntervalMs !== undefined ? { previewIntervalMs } : {}),
  });
  const result = await relay.relay(handOver(events));
  if (result.error) throw result.error;
  if (result.outcomes.some((o) => o.isError)) throw new Error(result.outcomes[0]!.resultText);
  return previews;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const figures: Record<
  string,
  { events: number; cpuMs: number; minCpuMs: number; wallMs: number; previews: number }
> = {};
console.log(`overlap's own CPU per round (median of ${REPS}), sources: ${SRC}`);
console.log(`${"response".padEnd(34)}  events  CPU ms  (min)  wall ms  previews`);
for (const id of ["display-64k", "long-args-2"]) {
  const events = responseEvents(id);
  for (const interval of INTERVALS) {
    const label = `${id}, previews ${interval === 0 ? "every delta" : "default"}`;
    for (let i = 0; i < 3; i++) await round(events, interval);
    const cpu: number[] = [];
    const wall: number[] = [];
    let previews = 0;
    for (let i = 0; i < REPS; i++) {
      (globalThis as { gc?: () => void }).gc?.();
      const before = process.cpuUsage();
      const t0 = performance.now();
      previews = await round(events, interval);
      wall.push(performance.now() - t0);
      const used = process.cpuUsage(before);
      cpu.push((used.user + used.system) / 1000);
    }
    const minCpuMs = Math.min(...cpu);
    figures[label] = {
      events: events.length,
      cpuMs: median(cpu),
      minCpuMs,
      wallMs: median(wall),
      previews,
    };
    console.log(
      `${label.padEnd(34)}  ${String(events.length).padStart(6)}  ${median(cpu).toFixed(1).padStart(6)}  ${minCpuMs.toFixed(1).padStart(5)}  ${median(wall).toFixed(1).padStart(7)}  ${String(previews).padStart(8)}`,
    );
  }
}
console.log(JSON.stringify({ bench: "cpu-round", reps: REPS, src: SRC, figures }));
