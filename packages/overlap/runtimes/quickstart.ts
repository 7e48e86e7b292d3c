/**
 * The package README's scripted-model quick start, as each runtime under test runs it: a turn
 * with two tools against a server speaking the Anthropic Messages API (overlap-sim, started by the
 * test). It imports only what a user's program imports, so whatever a runtime lacks shows here.
 * Every AgentEvent the turn emits is handed to `print`, in order.
 */

import Anthropic from "@anthropic-ai/sdk";
import { type AgentEvent, defineTool, runAgentTurn, ToolExecutor } from "overlap-runtime";
import { anthropicModel } from "overlap-runtime/anthropic";
import { z } from "zod";

const forecasts = new Map(Object.entries({ Paris: "sunny, 21 °C", Oslo: "rain, 9 °C" }));
const getWeather = defineTool({
  name: "get_weather",
  description: "Today's weather in a city.",
  input: z.object({ city: z.string() }),
  run: ({ city }) => forecasts.get(city) ?? `No forecast for ${city}.`,
});
const clocks = new Map(Object.entries({ Paris: "14:05", Oslo: "14:05" }));
const getTime = defineTool({
  name: "get_time",
  description: "The local time in a city.",
  input: z.object({ city: z.string() }),
  run: async ({ city }, { signal }) => {
    signal.throwIfAborted();
    return clocks.get(city) ?? `No clock for ${city}.`;
  },
});

/** The prompt: overlap-sim is a script, not a language model; it calls tools when told to. */
export const PROMPT = 'call get_weather {"city": "Paris"} call get_time {"city": "Oslo"}';

/** Runs the quick start's turn against the server at `baseURL`; resolves with its stop reason. */
export async function runQuickstart(
  baseURL: string,
  print: (event: AgentEvent) => void,
): Promise<string> {
  const client = new Anthropic({ baseURL, apiKey: "unused", maxRetries: 0 });
  const turn = await runAgentTurn({
    model: anthropicModel({ client, model: "scripted-sim" }),
    executor: new ToolExecutor([getWeather, getTime]),
    messages: [{ role: "user", content: PROMPT }],
    sink: print,
  });
  return turn.stopReason;
}
