/**
 * docs/guides/ai-sdk.md, run: the guide shows packages/overlap/examples/ai-sdk/ exactly, and each
 * route there runs against overlap-sim, read with the AI SDK's own client (`DefaultChatTransport`
 * posting as useChat does, `readUIMessageStream`): the Next.js route's `POST` and `GET` called with
 * web Requests, the Hono app served over HTTP by @hono/node-server. For each: the tool's output
 * reaches the client as the object, the chat the route's GET restores (`toUIMessages` of what
 * `onFinish` stored) is what the client read, and that restored chat continues with the next
 * question. Over HTTP, closing the request (the browser's Stop) aborts the turn.
 */

import { readFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { UIMessage } from "ai";
import { Hono } from "hono";
import { genericPolicy, type SimServer, startSim } from "overlap-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Message } from "../../stream/message.js";
import { defineTool } from "../../tools/define-tool.js";
import { ToolExecutor } from "../../tools/tool-executor.js";
import { agentUIStreamResponse } from "./agent-ui-stream-response.js";
import { aiSdkModel } from "./ai-sdk-model.js";
import {
  chatClient,
  chatParts,
  type RouteHandler,
  userMessage,
} from "./use-chat-client.testkit.js";

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const ROOT = new URL("../../../../../", import.meta.url);
const EXAMPLES = "packages/overlap/examples/ai-sdk";
const FORECAST = { forecast: "sunny", highC: 21 };

/** The guide's fenced blocks after a `<!-- checked: name ... -->` marker, by name. */
async function guideBlocks(): Promise<Map<string, string>> {
  const text = await readFile(new URL("docs/guides/ai-sdk.md", ROOT), "utf8");
  const blocks = new Map<string, string>();
  for (const m of text.matchAll(/<!-- checked: ([\w-]+)[^>]*-->\n```\w+\n([\s\S]*?)\n```/g)) {
    blocks.set(m[1]!, `${m[2]!}\n`);
  }
  return blocks;
}

/** Serves a fetch handler over HTTP on a free port; its URL and a close. */
async function served(fetchHandler: (request: Request) => Response | Promise<Response>) {
  const server = serve({ fetch: fetchHandler, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive connections of the test's fetch would hold the close for seconds.
        if ("closeAllConnections" in server) server.closeAllConnections();
      }),
  };
}

describe("the AI SDK guide's routes against overlap-sim, read by the AI SDK's client", () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim({ policy: genericPolicy, pacing: { fast: true } });
    // The examples' `anthropic` provider reads these when it is created: when @ai-sdk/anthropic
    // is first imported, so this file imports it only after (dynamically).
    process.env.ANTHROPIC_BASE_URL = `${sim.url}/v1`;
    process.env.ANTHROPIC_API_KEY = "unused";
  });
  afterAll(async () => {
    await sim?.close();
  });

  it("shows the example files exactly", async () => {
    const blocks = await guideBlocks();
    for (const [name, file] of [
      ["guide-ai-sdk-next-route", "next-route.ts"],
      ["guide-ai-sdk-hono", "hono-app.ts"],
      ["guide-ai-sdk-client", "chat.tsx"],
    ] as const) {
      const code = await readFile(new URL(`${EXAMPLES}/${file}`, ROOT), "utf8");
      expect(blocks.get(name), `docs/guides/ai-sdk.md ${name} is ${EXAMPLES}/${file}`).toBe(code);
    }
  });

  /**
   * One question with two calls, the stored chat restored through `restore`, then the next
   * question after it: the properties every route must have.
   */
  async function converse(
    send: ReturnType<typeof chatClient>["send"],
    restore: (chatId: string) => Promise<UIMessage[]>,
  ) {
    const question = userMessage(
      'call get_weather {"city":"Paris"} call get_weather {"city":"Oslo"}',
    );
    const first = await send([question], { chatId: "guide-chat" });
    expect(first.errors).toEqual([]);
    const tools = first.message.parts.filter((p) => p.type === "tool-get_weather");
    expect(tools.map((p) => (p as { output?: unknown }).output)).toEqual([
      { city: "Paris", ...FORECAST },
      { city: "Oslo", ...FORECAST },
    ]);

    const restored = await restore("guide-chat");
    expect(restored.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(chatParts(restored[0]!)).toEqual(chatParts(question));
    expect(chatParts(restored[1]!)).toEqual(chatParts(first.message));

    const next = await send([...restored, userMessage('call get_weather {"city":"Lima"}', "u2")], {
      chatId: "guide-chat",
    });
    expect(next.errors).toEqual([]);
    const [lima] = next.message.parts.filter((p) => p.type === "tool-get_weather");
    expect((lima as { output?: unknown }).output).toEqual({ city: "Lima", ...FORECAST });
    const again = await restore("guide-chat");
    expect(again.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(chatParts(again[3]!)).toEqual(chatParts(next.message));
  }

  it("Next.js: POST answers useChat, GET restores the chat, which continues", async () => {
    const route = await import("../../../examples/ai-sdk/next-route.js");
    const client = chatClient({ handler: route.POST });
    await converse(client.send, async (id) => {
      const response = await route.GET(new Request(`http://chat.test/api/chat?id=${id}`));
      return (await response.json()) as UIMessage[];
    });
  });

  it("Hono: the app over HTTP answers useChat, GET restores the chat, which continues", async () => {
    const { default: app } = await import("../../../examples/ai-sdk/hono-app.js");
    const server = await served(app.fetch);
    try {
      const client = chatClient({ url: `${server.url}/api/chat` });
      await converse(client.send, async (id) => {
        const response = await fetch(`${server.url}/api/chat/${id}`);
        return (await response.json()) as UIMessage[];
      });
    } finally {
      await server.close();
    }
  });

  it("over HTTP, the browser's Stop (the request closed) aborts the turn and its running tool", async () => {
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let toolAborted = false;
    const waitForStop = defineTool({
      name: "wait_for_stop",
      description: "Runs until stopped.",
      input: z.object({}),
      timeoutMs: 60_000,
      run: (_input, { signal }) =>
        new Promise<string>((resolve) => {
          started();
          const give = setTimeout(() => resolve("never stopped"), 30_000);
          signal.addEventListener("abort", () => {
            clearTimeout(give);
            toolAborted = true;
            resolve("stopped");
          });
        }),
    });
    const finished: Message[][] = [];
    const errors: (string | undefined)[] = [];
    const { createAnthropic } = await import("@ai-sdk/anthropic");
    const model = aiSdkModel(createAnthropic()("claude-sonnet-4-5"), { maxRetries: 0 });
    const app = new Hono();
    const handler: RouteHandler = (request) =>
      agentUIStreamResponse(request, {
        model,
        executor: new ToolExecutor([waitForStop]),
        logger: false,
        onFinish: ({ messages, result }) => {
          finished.push(messages);
          errors.push(result.error?.code);
        },
      });
    app.post("/api/chat", (c) => handler(c.req.raw));
    const server = await served(app.fetch);
    try {
      const client = chatClient({ url: `${server.url}/api/chat` });
      const stop = new AbortController();
      const reply = client.send([userMessage("call wait_for_stop {}")], {
        abortSignal: stop.signal,
      });
      await running;
      stop.abort();
      await reply.catch(() => undefined);
      await expect.poll(() => finished.length, { timeout: 15_000 }).toBe(1);
      expect(toolAborted).toBe(true);
      expect(errors).toEqual(["aborted"]);
    } finally {
      await server.close();
    }
  });
});
