// A Hono app serving useChat: `serve(app)` (@hono/node-server), Bun, Deno or Workers.
import { anthropic } from "@ai-sdk/anthropic";
import { Hono } from "hono";
import { defineTool, type Message, ToolExecutor, toUIMessages } from "overlap-runtime";
import { agentUIStreamResponse, aiSdkModel } from "overlap-runtime/ai-sdk";
import { z } from "zod";

const getWeather = defineTool({
  name: "get_weather",
  description: "Today's weather in a city.",
  input: z.object({ city: z.string() }),
  run: ({ city }) => ({ city, forecast: "sunny", highC: 21 }),
});
const executor = new ToolExecutor([getWeather]);
const model = aiSdkModel(anthropic("claude-sonnet-4-5"));
const chats = new Map<string, Message[]>(); // a stand-in for your database

const app = new Hono();

// `c.req.raw` is the web Request: its signal aborts when the browser stops or disconnects.
app.post("/api/chat", (c) =>
  agentUIStreamResponse(c.req.raw, {
    model,
    executor,
    onFinish: ({ body, messages }) => {
      if (body.id) chats.set(body.id, messages);
    },
  }),
);

app.get("/api/chat/:id", (c) => c.json(toUIMessages(chats.get(c.req.param("id")) ?? [])));

export default app;
