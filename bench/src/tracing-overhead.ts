/**
 * What OpenTelemetry tracing costs a turn when no tracer provider is registered (the default):
 * the CPU of a whole turn (three tool calls and a closing answer, the model replayed from memory)
 * beside the CPU of the tracing check each turn makes (the API looked up once per process, a
 * non-recording span started and ended), in one run.
 * Run: node --conditions=overlap-source --import tsx bench/src/tracing-overhead.ts
 */

import { defineTool, runAgentTurn, ToolExecutor } from "overlap-runtime";
import { buildStreamEvents, fakeModel } from "overlap-runtime/testing";
import { z } from "zod";
import { startTurnTracing } from "../../packages/overlap/src/agent/turn-tracing.js";

const add = defineTool({
  name: "add_to_cart",
  description: "Adds a product.",
  input: z.object({ sku: z.string(), quantity: z.number() }),
  run: async ({ sku }) => ({ text: `Added ${sku}.` }),
});
const executor = new ToolExecutor([add]);
const responses = () => [
  buildStreamEvents(
    ["A", "B", "C"].map((sku, i) => ({
      type: "tool_use" as const,
      id: `call_${i}`,
      name: "add_to_cart",
      input: { sku, quantity: 1 },
    })),
    { chunkSize: 4 },
  ),
  buildStreamEvents([{ type: "text", text: "All three are in your cart." }]),
];

async function cpuPer(n: number, run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(200, n); i++) await run(); // warm
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n; // µs
}

const turns = 2_000;
const turnUs = await cpuPer(turns, () =>
  runAgentTurn({
    model: fakeModel(responses()),
    executor,
    messages: [{ role: "user", content: "add A, B and C" }],
    sink: () => {},
    agent: "shopper",
  }),
);
const checkUs = await cpuPer(50_000, () =>
  startTurnTracing({ agent: "shopper", model: { label: "scripted" } }),
);
console.log(`a turn (3 calls, 2 rounds): ${turnUs.toFixed(1)} µs CPU`);
console.log(`the tracing check, no provider: ${checkUs.toFixed(2)} µs CPU`);
console.log(`share of a turn: ${((checkUs / turnUs) * 100).toFixed(2)}%`);
