/**
 * agentUIStreamResponse end to end: the AI SDK's own client (`DefaultChatTransport` posting the
 * chat as useChat does, `readUIMessageStream` reading the answer) against the route, the route's
 * model an AI SDK provider pointed at overlap-sim (which checks every request it gets). Properties:
 * - what the client reads equals `toUIMessages` of the conversation the route handed `onFinish`
 *   (texts, tool parts with state, input and the output object), calls in call order, each
 *   answered once; and either chat, sent back with a new question, continues;
 * - a request that is not a chat is a 400 naming the fault, before any model request;
 * - the browser's Stop (the request's signal) and a reader that leaves both abort the turn: the
 *   running tool sees its signal abort, `onFinish` gets an `aborted` turn whose conversation the
 *   model accepts on the next turn;
 * - `onFinish` runs before the stream's end, and its failure ends the stream with an error.
 */

import { getEventListeners } from "node:events";
import { createAnthropic } from "@ai-sdk/anthropic";
import type { UIMessage } from "ai";
import { genericPolicy, type SimServer, startSim } from "overlap-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { toUIMessages } from "../../agent/ai-sdk-messages.js";
import type { ModelClient } from "../../agent/model-client.js";
import { validateConversation } from "../../agent/validate-conversation.js";
import type { Message } from "../../stream/message.js";
import { defineTool } from "../../tools/define-tool.js";
import { ToolExecutor } from "../../tools/tool-executor.js";
import { type AgentUIStreamFinish, agentUIStreamResponse } from "./agent-ui-stream-response.js";
import { aiSdkModel } from "./ai-sdk-model.js";
import { chatClient, chatParts, userMessage } from "./use-chat-client.testkit.js";

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const FORECAST = { forecast: "sunny", highC: 21, hourly: [18, 21, 19] };

/** A tool that runs until its signal aborts (a Stop must reach it), recording that it did. */
function tools() {
  const stopped: { started: number; aborted: number } = { started: 0, aborted: 0 };
  let onStart: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    onStart = resolve;
  });
  const getWeather = defineTool({
    name: "get_weather",
    description: "Today's weather in a city.",
    input: z.object({ city: z.string() }),
    run: ({ city }) => ({ city, ...FORECAST }),
  });
  const waitForStop = defineTool({
    name: "wait_for_stop",
    description: "Runs until stopped.",
    input: z.object({}),
    timeoutMs: 60_000,
    run: (_input, { signal }) => {
      stopped.started++;
      onStart();
      return new Promise<string>((resolve, reject) => {
        const give = setTimeout(() => resolve("never stopped"), 30_000);
        signal.addEventListener("abort", () => {
          clearTimeout(give);
          stopped.aborted++;
          reject(signal.reason);
        });
      });
    },
  });
  return { executor: new ToolExecutor([getWeather, waitForStop]), stopped, started };
}

describe("agentUIStreamResponse against overlap-sim, read by the AI SDK's client", () => {
  let sim: SimServer;
  let model: ModelClient;
  beforeAll(async () => {
    sim = await startSim({ policy: genericPolicy, pacing: { fast: true } });
    model = aiSdkModel(createAnthropic({ baseURL: `${sim.url}/v1`, apiKey: "x" })("scripted"), {
      maxRetries: 0,
    });
  });
  afterAll(async () => {
    await sim?.close();
  });

  /** A route over `model`, recording what onFinish got. */
  function route(
    options: { onFinish?: (finish: AgentUIStreamFinish) => void | Promise<void> } = {},
  ) {
    const t = tools();
    const finishes: AgentUIStreamFinish[] = [];
    const handler = (request: Request) =>
      agentUIStreamResponse(request, {
        model,
        executor: t.executor,
        logger: false,
        onFinish: async (finish) => {
          finishes.push(finish);
          await options.onFinish?.(finish);
        },
      });
    return { handler, finishes, ...t };
  }

  it("streams what toUIMessages restores, outputs as objects, calls in order; both chats continue", async () => {
    const { handler, finishes } = route();
    const client = chatClient({ handler });
    const question = userMessage(
      'call get_weather {"city":"Paris"} call get_weather {"city":"Oslo"} call get_weather {"city":"Rome"}',
    );
    const first = await client.send([question]);
    expect(first.errors).toEqual([]);
    expect(finishes).toHaveLength(1);
    const finish = finishes[0]!;
    expect(finish.result.stopReason).toBe("end_turn");
    expect(finish.body.id).toBe("chat-1");
    expect(finish.body.trigger).toBe("submit-message");

    // The tool parts: one per call, in call order, each output the object the tool returned.
    const toolParts = first.message.parts.filter((p) => p.type === "tool-get_weather");
    expect(toolParts.map((p) => (p as { input: { city: string } }).input.city)).toEqual([
      "Paris",
      "Oslo",
      "Rome",
    ]);
    for (const part of toolParts) {
      const { state, input, output } = part as {
        state: string;
        input: { city: string };
        output: unknown;
      };
      expect(state).toBe("output-available");
      expect(output).toEqual({ city: input.city, ...FORECAST });
    }
    const outputs = first.chunks.filter((c) => c.type === "tool-output-available");
    expect(new Set(outputs.map((c) => c.toolCallId)).size, "each call answered once").toBe(3);
    expect(outputs).toHaveLength(3);

    // What the client holds equals the stored conversation restored with toUIMessages.
    const restored = toUIMessages(finish.messages);
    expect(restored.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(finish.uiMessages).toEqual(restored);
    expect(chatParts(first.message)).toEqual(chatParts(restored[1]!));
    // Two rounds: the calls with their text, then the model's summary of the objects' JSON.
    expect(chatParts(first.message).map((p) => (p as { type: string }).type)).toEqual([
      "step-start",
      "text",
      "tool-get_weather",
      "tool-get_weather",
      "tool-get_weather",
      "step-start",
      "text",
    ]);
    expect(chatParts(first.message).at(-1)).toEqual({
      type: "text",
      text: expect.stringContaining(
        `get_weather: ${JSON.stringify({ city: "Oslo", ...FORECAST })}`,
      ),
    });

    // The next question, after the chat the browser kept and after the restored one.
    const next = userMessage('call get_weather {"city":"Lima"}', "user-2");
    const kept = await client.send([question, first.message, next]);
    const reloaded = await client.send([...(restored as UIMessage[]), next]);
    expect(finishes.slice(1).map((f) => f.result.error)).toEqual([undefined, undefined]);
    expect(finishes[1]!.messages, "both chats are the same conversation").toEqual(
      finishes[2]!.messages,
    );
    expect(finishes[1]!.messages.slice(0, finish.messages.length)).toEqual(finish.messages);
    for (const reply of [kept, reloaded]) {
      expect(reply.errors).toEqual([]);
      const [lima] = reply.message.parts.filter((p) => p.type === "tool-get_weather");
      expect((lima as { output: unknown }).output).toEqual({ city: "Lima", ...FORECAST });
    }
  });

  it("answers a request that is not a chat with a 400 naming the fault, and asks no model", async () => {
    let asked = 0;
    const refusing: ModelClient = {
      ...model,
      stream: (...args) => {
        asked++;
        return model.stream(...args);
      },
    };
    const handler = (request: Request) =>
      agentUIStreamResponse(request, { model: refusing, executor: tools().executor });
    const post = (body: string) =>
      handler(new Request("http://chat.test/api/chat", { method: "POST", body }));
    const cases: [string, RegExp][] = [
      ["not json", /not a chat request/],
      ["[1, 2]", /not a chat request/],
      ['{"id":"c"}', /no `messages` array/],
      ['{"messages":[]}', /cannot be continued.*no messages/],
      ['{"messages":[{"role":"tool","parts":[]}]}', /role "tool"/],
      ['{"messages":[{"role":"user","content":"hi"}]}', /no `parts` array/],
      [
        '{"messages":[{"role":"assistant","parts":[{"type":"text","text":"Hello"}]}]}',
        /cannot be continued/,
      ],
    ];
    for (const [body, reason] of cases) {
      const response = await post(body);
      expect(response.status, body).toBe(400);
      expect(await response.text(), body).toMatch(reason);
    }
    expect(asked).toBe(0);
  });

  it("stops the turn on the browser's Stop: the tool's signal aborts, the chat continues", async () => {
    const { handler, finishes, stopped, started } = route();
    const client = chatClient({ handler });
    const stop = new AbortController();
    const question = userMessage('call get_weather {"city":"Paris"} call wait_for_stop {}');
    const reply = client.send([question], { abortSignal: stop.signal });
    await started;
    stop.abort();
    await reply.catch(() => undefined); // the client's read may end either way
    await expect.poll(() => finishes.length, { timeout: 10_000 }).toBe(1);
    expect(stopped).toEqual({ started: 1, aborted: 1 });
    const { result, messages } = finishes[0]!;
    expect(result.error?.code).toBe("aborted");
    expect(validateConversation(messages)).toEqual([]);

    // The stopped chat, restored, continues with the next question.
    const restored = toUIMessages(messages) as UIMessage[];
    const again = await client.send([...restored, userMessage("go on", "user-2")]);
    expect(again.errors).toEqual([]);
    expect(finishes[1]!.result.error).toBeUndefined();
    expect(finishes[1]!.result.stopReason).toBe("end_turn");
  });

  it("stops the turn when the response's reader goes away", async () => {
    const { handler, finishes, stopped, started } = route();
    const response = await handler(
      new Request("http://chat.test/api/chat", {
        method: "POST",
        body: JSON.stringify({ id: "c", messages: [userMessage("call wait_for_stop {}")] }),
      }),
    );
    const reader = response.body!.getReader();
    await reader.read();
    await started;
    await reader.cancel();
    await expect.poll(() => finishes.length, { timeout: 10_000 }).toBe(1);
    expect(stopped.aborted).toBe(1);
    expect(finishes[0]!.result.error?.code).toBe("aborted");
    expect(validateConversation(finishes[0]!.messages)).toEqual([]);
  });

  it("aborts on the host's signal too (a shutdown), and leaves no listener on it after a turn", async () => {
    const host = new AbortController();
    const t = tools();
    const finishes: AgentUIStreamFinish[] = [];
    const handler = (request: Request) =>
      agentUIStreamResponse(request, {
        model,
        executor: t.executor,
        logger: false,
        signal: host.signal,
        onFinish: (finish) => {
          finishes.push(finish);
        },
      });
    const client = chatClient({ handler });
    await client.send([userMessage("hello")]);
    await client.send([userMessage('call get_weather {"city":"Oslo"}')]);
    expect(getEventListeners(host.signal, "abort")).toHaveLength(0);

    const reply = client.send([userMessage("call wait_for_stop {}")]);
    await t.started;
    expect(getEventListeners(host.signal, "abort")).toHaveLength(1);
    host.abort();
    await reply;
    expect(t.stopped).toEqual({ started: 1, aborted: 1 });
    expect(finishes.map((f) => f.result.error?.code)).toEqual([undefined, undefined, "aborted"]);
  });

  it("runs onFinish before the stream ends; its failure ends the stream with an error", async () => {
    const order: string[] = [];
    const stored = route({
      onFinish: async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        order.push("stored");
      },
    });
    await chatClient({ handler: stored.handler }).send([userMessage("hello")], {
      onChunk: (chunk) => {
        if (chunk.type === "finish") order.push("finish");
      },
    });
    expect(order).toEqual(["stored", "finish"]);

    const failing = route({
      onFinish: () => {
        throw new Error("the database is down");
      },
    });
    const reply = await chatClient({ handler: failing.handler }).send([userMessage("hello")]);
    const errors = reply.chunks.filter((c) => c.type === "error");
    expect(errors).toEqual([{ type: "error", errorText: "An error occurred." }]);
    expect(reply.chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "error" });
  });

  it("keeps the conversation's own system message: restored first, sent as the system prompt", async () => {
    const { handler, finishes } = route();
    const system: UIMessage = {
      id: "s",
      role: "system",
      parts: [{ type: "text", text: "Be brief." }],
    };
    await chatClient({ handler }).send([system, userMessage("hello")]);
    const finish = finishes[0]!;
    expect(finish.system).toBe("Be brief.");
    expect(finish.uiMessages[0]).toMatchObject({ role: "system", parts: [{ text: "Be brief." }] });
    expect(finish.messages.every((m: Message) => m.role !== ("system" as string))).toBe(true);
  });
});
