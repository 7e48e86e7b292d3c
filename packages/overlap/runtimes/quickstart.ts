/**
 * The package README's scripted-model quick start, as each runtime under test runs it: a turn
 * with two tools against overlap-sim (started by the test), first through the quick start's own
 * adapter (Anthropic's), then through every other entry point that claims to run on any runtime
 * (OpenAI Chat and Responses, Gemini, an AI SDK provider). It imports only what a user's program
 * imports, so whatever a runtime lacks shows here.
 */

import { createAnthropic } from "@ai-sdk/anthropic";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import {
  type AgentEvent,
  defineTool,
  type ModelClient,
  runAgentTurn,
  ToolExecutor,
} from "overlap-runtime";
import { aiSdkModel } from "overlap-runtime/ai-sdk";
import { anthropicModel } from "overlap-runtime/anthropic";
import { geminiModel } from "overlap-runtime/google";
import { openaiChatModel, openaiResponsesModel } from "overlap-runtime/openai";
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

/** The model of each entry point, against the model server at `baseURL` (overlap-sim). */
const MODELS: Record<string, (baseURL: string) => ModelClient> = {
  anthropic: (baseURL) =>
    anthropicModel({
      client: new Anthropic({ baseURL, apiKey: "unused", maxRetries: 0 }),
      model: "scripted-sim",
    }),
  "openai-chat": (baseURL) =>
    openaiChatModel({
      client: new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: "unused", maxRetries: 0 }),
      model: "scripted-sim",
    }),
  "openai-responses": (baseURL) =>
    openaiResponsesModel({
      client: new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: "unused", maxRetries: 0 }),
      model: "scripted-sim",
    }),
  google: (baseURL) =>
    geminiModel({ model: "gemini-2.5-flash", apiKey: "unused", baseUrl: baseURL }),
  "ai-sdk": (baseURL) =>
    aiSdkModel(createAnthropic({ baseURL: `${baseURL}/v1`, apiKey: "unused" })("scripted-sim")),
};

/** What the quick start prints besides the events: which turn follows, and how one ended. */
export type Marker = { turn: string } | { stopReason: string };

/**
 * Runs the quick start's turn through each entry point in turn against the model server at
 * `baseURL`; hands `print` a `{ turn }` marker, then every AgentEvent of that turn in order, then
 * its `{ stopReason }`.
 */
export async function runQuickstart(
  baseURL: string,
  print: (line: AgentEvent | Marker) => void,
): Promise<void> {
  for (const [name, model] of Object.entries(MODELS)) {
    print({ turn: name });
    const turn = await runAgentTurn({
      model: model(baseURL),
      executor: new ToolExecutor([getWeather, getTime]),
      messages: [{ role: "user", content: PROMPT }],
      sink: print,
    });
    print({ stopReason: turn.stopReason });
  }
}
