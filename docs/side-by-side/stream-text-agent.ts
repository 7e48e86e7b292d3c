import { setTimeout as sleep } from "node:timers/promises";
import { createAnthropic } from "@ai-sdk/anthropic";
import { type ModelMessage, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";

const searchCatalog = tool({
  description: "Finds the products matching a query. Slow.",
  inputSchema: z.object({ query: z.string() }),
  execute: async ({ query }, { abortSignal }) => {
    console.log("search_catalog started");
    await sleep(400, undefined, { signal: abortSignal });
    return [`HX-1 ${query}`, `HX-2 ${query}`];
  },
});
const getPrice = tool({
  description: "A product's price.",
  inputSchema: z.object({ sku: z.string() }),
  execute: async ({ sku }) => {
    console.log("get_price started");
    return { sku, price: 79, currency: "EUR" };
  },
});
const checkStock = tool({
  description: "How many of a product are in stock.",
  inputSchema: z.object({ sku: z.string() }),
  execute: async ({ sku }): Promise<number> => {
    console.log("check_stock started");
    throw new Error(`stock service refused ${sku}: password=hunter2`);
  },
});

// overlap-sim at SIM_PORT; for Claude itself, `anthropic` from "@ai-sdk/anthropic".
const port = process.env.SIM_PORT ?? 8317;
const anthropic = createAnthropic({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: "unused" });
// The scripted model calls the tools it is told to; ask a real model in words.
const prompt =
  'call search_catalog {"query": "headphones"} call get_price {"sku": "HX-1"} call check_stock {"sku": "HX-1"}';
const messages: ModelMessage[] = [{ role: "user", content: prompt }];

const result = streamText({
  model: anthropic("claude-sonnet-4-5"),
  tools: { search_catalog: searchCatalog, get_price: getPrice, check_stock: checkStock },
  messages,
  stopWhen: stepCountIs(5),
  abortSignal: AbortSignal.timeout(60_000),
});
for await (const part of result.fullStream) {
  if (part.type === "tool-result") {
    console.log(`${part.toolName}: ${JSON.stringify(part.output)}`);
  }
  if (part.type === "tool-error") console.log(`${part.toolName} failed: ${String(part.error)}`);
}
console.log(await result.text);

const history = [...messages, ...(await result.response).messages]; // the next turn's start
const usage = await result.totalUsage;
console.log(
  `${await result.finishReason}, ${history.length} messages, ${usage.outputTokens} tokens`,
);
