import OpenAI from "openai";
import { defineTool, runAgentTurn, ToolExecutor } from "overlap-runtime";
import { openaiChatModel } from "overlap-runtime/openai";
import { z } from "zod";

const forecasts = new Map(Object.entries({ Paris: "sunny, 21 °C", Oslo: "rain, 9 °C" }));
const getWeather = defineTool({
  name: "get_weather",
  description: "Today's weather in a city.",
  input: z.object({ city: z.string() }),
  run: ({ city }) => forecasts.get(city) ?? `No forecast for ${city}.`,
});

// Ollama's endpoint unless OPENAI_BASE_URL names another server speaking the API.
const baseURL = process.env.OPENAI_BASE_URL ?? "http://localhost:11434/v1";
const client = new OpenAI({ baseURL, apiKey: process.env.OPENAI_API_KEY ?? "ollama" });
const turn = await runAgentTurn({
  model: openaiChatModel({ client, model: "llama3.1" }),
  executor: new ToolExecutor([getWeather]),
  messages: [{ role: "user", content: "What is the weather in Paris and in Oslo?" }],
  sink: (event) => {
    if (event.type === "text-delta") process.stdout.write(event.text);
    if (event.type === "tool-call-start") process.stdout.write("\n");
    if (event.type === "tool-status") process.stdout.write(` [${event.name}: ${event.status}]`);
    if (event.type === "round-end") process.stdout.write("\n");
  },
});
console.log(turn.stopReason);
