// app/api/chat/route.ts: the route useChat posts to (its default `api`), in the Next.js App Router.
import { anthropic } from "@ai-sdk/anthropic";
import { defineTool, type Message, ToolExecutor, toUIMessages } from "overlap-runtime";
import { agentUIStreamResponse, aiSdkModel } from "overlap-runtime/ai-sdk";
import { z } from "zod";

const getWeather = defineTool({
  name: "get_weather",
  description: "Today's weather in a city.",
  input: z.object({ city: z.string() }),
  // The object reaches useChat as the tool part's `output`; the model reads it as JSON.
  run: ({ city }) => ({ city, forecast: "sunny", highC: 21 }),
});
const executor = new ToolExecutor([getWeather]);
// Reads ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL, if set). Any AI SDK provider's model works.
const model = aiSdkModel(anthropic("claude-sonnet-4-5"));

// A stand-in for your database: each chat's conversation, in overlap's shape.
const chats = new Map<string, Message[]>();

export async function POST(request: Request): Promise<Response> {
  // useChat's `{ id, messages, trigger }` in; its Stop (the request's signal) stops the turn.
  return agentUIStreamResponse(request, {
    model,
    executor,
    system: "You answer questions about the weather.",
    onFinish: ({ body, messages }) => {
      if (body.id) chats.set(body.id, messages);
    },
  });
}

// GET /api/chat?id=…: the stored chat as useChat's `messages`, for a page that loads it.
export async function GET(request: Request): Promise<Response> {
  const id = new URL(request.url).searchParams.get("id") ?? "";
  return Response.json(toUIMessages(chats.get(id) ?? []));
}
