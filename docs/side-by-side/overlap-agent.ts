import { setTimeout as sleep } from "node:timers/promises";
import Anthropic from "@anthropic-ai/sdk";
import {
  defineTool,
  type MessageInput,
  roundCountIs,
  runAgentTurn,
  ToolExecutor,
} from "overlap-runtime";
import { anthropicModel } from "overlap-runtime/anthropic";
import { z } from "zod";

const searchCatalog = defineTool({
  name: "search_catalog",
  description: "Finds the products matching a query. Slow.",
  input: z.object({ query: z.string() }),
  run: async ({ query }, { signal }) => {
    console.log("search_catalog started");
    await sleep(400, undefined, { signal });
    return [`HX-1 ${query}`, `HX-2 ${query}`];
  },
});
const getPrice = defineTool({
  name: "get_price",
  description: "A product's price.",
  input: z.object({ sku: z.string() }),
  run: async ({ sku }) => {
    console.log("get_price started");
    return { sku, price: 79, currency: "EUR" };
  },
});
const checkStock = defineTool({
  name: "check_stock",
  description: "How many of a product are in stock.",
  input: z.object({ sku: z.string() }),
  run: async ({ sku }): Promise<number> => {
    console.log("check_stock started");
    throw new Error(`stock service refused ${sku}: password=hunter2`);
  },
});

// overlap-sim at SIM_PORT; for Claude itself, `new Anthropic()` (it reads ANTHROPIC_API_KEY).
const port = process.env.SIM_PORT ?? 8317;
const client = new Anthropic({ baseURL: `http://127.0.0.1:${port}`, apiKey: "unused" });
// The scripted model calls the tools it is told to; ask a real model in words.
const prompt =
  'call search_catalog {"query": "headphones"} call get_price {"sku": "HX-1"} call check_stock {"sku": "HX-1"}';
const messages: MessageInput[] = [{ role: "user", content: prompt }];

let answer = "";
const turn = await runAgentTurn({
  model: anthropicModel({ client, model: "claude-sonnet-4-5" }),
  executor: new ToolExecutor([searchCatalog, getPrice, checkStock]),
  messages,
  stopWhen: roundCountIs(5),
  signal: AbortSignal.timeout(60_000),
  sink: (event) => {
    if (event.type === "round-start") answer = "";
    if (event.type === "text-delta") answer += event.text;
    if (event.type === "tool-result") {
      console.log(`${event.name}${event.isError ? " failed" : ""}: ${event.resultText}`);
    }
  },
});
console.log(answer);

const history = turn.messages; // the next turn's start
const usage = turn.usage;
console.log(`${turn.stopReason}, ${history.length} messages, ${usage.output_tokens} tokens`);
