import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ModelRequest } from "../agent/model-client.js";
import { StreamedRound } from "../round/streamed-round.js";
import { errorRound, shoppingRound, shoppingRoundExpected } from "../testing/fixtures.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { anthropicModel, anthropicParams } from "./anthropic/anthropic.js";
import { openaiChatModel } from "./openai/openai.js";

/** A canned HTTP peer: each test sets what the next request gets. */
type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
let handler: Handler = (_req, res) => res.end();
let server: Server;
let url = "";
const requests: Array<{ path: string; body: unknown; closed: Promise<void> }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      const closed = new Promise<void>((resolve) => res.on("close", () => resolve()));
      requests.push({ path: req.url ?? "", body: JSON.parse(body || "{}"), closed });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const sse = (res: ServerResponse, text: string) => {
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.end(text);
};

function tools() {
  const runs: string[] = [];
  const tool = (name: string) =>
    defineTool({
      name,
      description: name,
      input: z.looseObject({}),
      run: (_input, ctx) => {
        runs.push(ctx.callId);
        return "ok";
      },
    });
  return { runs, executor: new ToolExecutor([tool("add_to_cart"), tool("cart_total")]) };
}

const claude = () =>
  anthropicModel({
    client: new Anthropic({ baseURL: url, apiKey: "test", maxRetries: 0 }),
    model: "claude-test",
  });
const gpt = () =>
  openaiChatModel({
    client: new OpenAI({ baseURL: `${url}/v1`, apiKey: "test", maxRetries: 0 }),
    model: "gpt-test",
  });

async function relay(model: ReturnType<typeof claude>, signal?: AbortSignal) {
  const t = tools();
  const controller = new AbortController();
  const round = new StreamedRound({
    executor: t.executor,
    sink: () => {},
    signal: signal ?? controller.signal,
  });
  const events = model.stream(
    { messages: [{ role: "user", content: "add" }], tools: t.executor.specs(), system: "be brief" },
    { signal: signal ?? controller.signal },
  );
  return { result: await round.relay(events), runs: t.runs };
}

describe("anthropicModel", () => {
  it("streams raw events through the official SDK into the same message as the fixture", async () => {
    handler = (_req, res) => sse(res, shoppingRound);
    const { result, runs } = await relay(claude());
    expect(result.error).toBeUndefined();
    expect(result.assistant).toEqual(shoppingRoundExpected.message);
    expect(runs).toHaveLength(3);
    const sent = requests.at(-1);
    expect(sent?.path).toBe("/v1/messages");
    expect(sent?.body).toMatchObject({
      model: "claude-test",
      max_tokens: 4096,
      stream: true,
      system: "be brief",
    });
    expect(sent?.body).toHaveProperty("tools.length", 2);
  });

  it("an error event mid-stream becomes a stream_error; the round repairs", async () => {
    handler = (_req, res) => sse(res, errorRound);
    const { result } = await relay(claude());
    expect(result.error?.code).toBe("stream_error");
    expect(result.error?.message).toContain("overloaded_error");
  });

  it("an HTTP error before the stream is a provider_error carrying the status", async () => {
    handler = (_req, res) => {
      res.writeHead(529, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          type: "error",
          error: { type: "overloaded_error", message: "Overloaded" },
        }),
      );
    };
    const { result } = await relay(claude());
    expect(result.error?.code).toBe("provider_error");
    expect(result.error?.details).toMatchObject({ status: 529, type: "overloaded_error" });
  });

  it("a dropped connection is stream_interrupted, with every started call answered", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(shoppingRound.slice(0, Math.floor(shoppingRound.length * 0.6)));
      setTimeout(() => res.destroy(), 10);
    };
    const { result } = await relay(claude());
    expect(result.error?.code).toBe("stream_interrupted");
    const calls = result.assistant.content.filter((b) => b.type === "tool_use").map((b) => b.id);
    expect(result.outcomes.map((o) => o.callId)).toEqual(calls);
  });

  it("aborting the round aborts the HTTP request", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(shoppingRound.slice(0, 300)); // then hang
    };
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const { result } = await relay(claude(), controller.signal);
    expect(result.error?.code).toBe("aborted");
    await requests.at(-1)?.closed; // the server saw the connection close
  });

  describe("eager_input_streaming (fine-grained tool streaming)", () => {
    const spec = (name: string) => ({
      name,
      description: name,
      input_schema: { type: "object", properties: {} },
    });
    let beta: string | string[] | undefined;
    /** Sends one request with `tools` and returns the tools of the body the server received. */
    async function sentTools(model: ReturnType<typeof claude>, tools: ModelRequest["tools"]) {
      handler = (req, res) => {
        beta = req.headers["anthropic-beta"];
        sse(res, shoppingRound);
      };
      const controller = new AbortController();
      for await (const _ of model.stream(
        { messages: [{ role: "user", content: "add" }], tools },
        { signal: controller.signal },
      ));
      return (requests.at(-1)?.body as { tools?: unknown[] } | undefined)?.tools;
    }

    it("is sent as true on every tool by default, without any beta header", async () => {
      const tools = await sentTools(claude(), [spec("add_to_cart"), spec("cart_total")]);
      expect(tools).toEqual([
        { ...spec("add_to_cart"), eager_input_streaming: true },
        { ...spec("cart_total"), eager_input_streaming: true },
      ]);
      // The per-tool field is GA: the legacy fine-grained-tool-streaming beta is not needed.
      expect(beta).toBeUndefined();
    });

    it("keeps a value the caller set on a tool, and leaves server tools alone", async () => {
      const tools = [
        { ...spec("add_to_cart"), eager_input_streaming: false },
        { ...spec("cart_total"), eager_input_streaming: null },
        { type: "web_search_20250305", name: "web_search" },
      ] as unknown as ModelRequest["tools"];
      expect(await sentTools(claude(), tools)).toEqual(tools);
    });

    it("is not sent when turned off", async () => {
      const off = anthropicModel({
        client: new Anthropic({ baseURL: url, apiKey: "test", maxRetries: 0 }),
        model: "claude-test",
        eagerInputStreaming: false,
      });
      const tools = await sentTools(off, [spec("add_to_cart"), spec("cart_total")]);
      expect(tools).toEqual([spec("add_to_cart"), spec("cart_total")]);
      // anthropicParams (the body anthropicModel sends) follows the same option.
      const request = { messages: [], tools: [spec("cart_total")] };
      expect(anthropicParams(request, { model: "m" }).tools).toEqual([
        { ...spec("cart_total"), eager_input_streaming: true },
      ]);
      expect(anthropicParams(request, { model: "m", eagerInputStreaming: false }).tools).toEqual([
        spec("cart_total"),
      ]);
    });
  });
});

describe("openaiChatModel", () => {
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "gpt-test", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

  it("translates tool-call fragments into calls dispatched in order", async () => {
    handler = (_req, res) =>
      sse(
        res,
        chunk({ role: "assistant", content: "On it." }) +
          chunk({
            tool_calls: [
              {
                index: 0,
                id: "call_a",
                type: "function",
                function: { name: "add_to_cart", arguments: '{"sku":' },
              },
            ],
          }) +
          chunk({ tool_calls: [{ index: 0, function: { arguments: '"A"}' } }] }) +
          chunk({
            tool_calls: [
              {
                index: 1,
                id: "call_b",
                type: "function",
                function: { name: "cart_total", arguments: "" },
              },
            ],
          }) +
          chunk({}, "tool_calls") +
          `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "gpt-test", choices: [], usage: { prompt_tokens: 9, completion_tokens: 7, total_tokens: 16 } })}\n\n` +
          "data: [DONE]\n\n",
      );
    const { result, runs } = await relay(gpt());
    expect(result.error).toBeUndefined();
    expect(result.stopReason).toBe("tool_use");
    expect(result.usage).toEqual({ input_tokens: 9, output_tokens: 7 });
    expect(result.assistant.content).toEqual([
      { type: "text", text: "On it." },
      { type: "tool_use", id: "call_a", name: "add_to_cart", input: { sku: "A" } },
      { type: "tool_use", id: "call_b", name: "cart_total", input: {} },
    ]);
    expect(runs).toEqual(["call_a", "call_b"]);
    const sent = requests.at(-1);
    expect(sent?.path).toBe("/v1/chat/completions");
    expect(sent?.body).toMatchObject({
      model: "gpt-test",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "add" },
      ],
    });
    expect(sent?.body).toHaveProperty("tools.0.type", "function");
  });

  it("an error object inside the stream becomes a stream_error", async () => {
    handler = (_req, res) =>
      sse(
        res,
        chunk({ role: "assistant", content: "Hi" }) +
          `data: ${JSON.stringify({ error: { message: "model crashed", type: "server_error" } })}\n\n`,
      );
    const { result } = await relay(gpt());
    expect(result.error?.code).toBe("stream_error");
    expect(result.assistant.content).toEqual([{ type: "text", text: "Hi" }]);
  });

  it("a 429 before the stream is a provider_error with the status", async () => {
    handler = (_req, res) => {
      res.writeHead(429, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" },
        }),
      );
    };
    const { result } = await relay(gpt());
    expect(result.error?.code).toBe("provider_error");
    expect(result.error?.details).toMatchObject({ status: 429 });
  });

  it("a stream that ends without finish_reason is a cut, not a finished message", async () => {
    handler = (_req, res) => sse(res, chunk({ role: "assistant", content: "Hal" }));
    const { result } = await relay(gpt());
    expect(result.error?.code).toBe("stream_interrupted");
  });
});
