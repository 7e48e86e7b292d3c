import Anthropic from "@anthropic-ai/sdk";
import { defineTool, runAgentTurn, ToolExecutor } from "overlap-runtime";
import { anthropicModel } from "overlap-runtime/anthropic";
import { z } from "zod";

const forecasts = new Map(Object.entries({ Paris: "sunny, 21 °C", Oslo: "rain, 9 °C" }));
const getWeather = defineTool({
  name: "get_weather",
  description: "Today's weather in a city.",
  input: z.object({ city: z.string() }),
  run: ({ city }) => forecasts.get(city) ?? `No forecast for ${city}.`,
});

const port = process.env.SIM_PORT ?? 8317; // where `npx overlap-sim` listens
const client = new Anthropic({ baseURL: `http://127.0.0.1:${port}`, apiKey: "unused" });
const model = anthropicModel({ client, model: "scripted-sim" });
const executor = new ToolExecutor([getWeather]);
// A script, not a language model: it calls tools when told `call <tool_name> {json}`.
const prompt = 'call get_weather {"city": "Paris"} call get_weather {"city": "Oslo"}';
const turn = await runAgentTurn({
  model,
  executor,
  messages: [{ role: "user", content: prompt }],
  sink: (event) => {
    if (event.type === "text-delta") process.stdout.write(event.text);
    if (event.type === "tool-call-start") process.stdout.write("\n");
    if (event.type === "tool-status") process.stdout.write(` [${event.name}: ${event.status}]`);
    if (event.type === "round-end") process.stdout.write("\n");
  },
});
console.log(turn.stopReason);

// The next turn appends to `turn.messages`, however a turn ended. Here the user stops it at once;
// a cut connection, max_tokens, maxRounds or a rate limit leave a conversation to go on alike.
const stop = new AbortController();
const stopped = await runAgentTurn({
  model,
  executor,
  messages: [...turn.messages, { role: "user", content: 'call get_weather {"city": "Rome"}' }],
  signal: stop.signal,
  sink: (event) => event.type === "round-start" && stop.abort(),
});
console.log(stopped.error?.code);
const next = await runAgentTurn({
  model,
  executor,
  messages: [...stopped.messages, { role: "user", content: 'call get_weather {"city": "Oslo"}' }],
  sink: (event) => {
    if (event.type === "text-delta") process.stdout.write(event.text);
    if (event.type === "tool-call-start") process.stdout.write("\n");
    if (event.type === "tool-status") process.stdout.write(` [${event.name}: ${event.status}]`);
    if (event.type === "round-end") process.stdout.write("\n");
  },
});
console.log(next.stopReason);
