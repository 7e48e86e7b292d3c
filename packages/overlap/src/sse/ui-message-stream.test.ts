/**
 * toUIMessageStream / uiMessageStreamResponse, read by the AI SDK's own reader
 * (`readUIMessageStream` from `ai`, the one `useChat` uses) and parser (`parseJsonEventStream`
 * with `uiMessageChunkSchema`): AgentEvents of real turns (runAgentTurn over fakeModel) become
 * the UIMessage a `useChat` app renders.
 */

import {
  parseJsonEventStream,
  parsePartialJson,
  readUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
  uiMessageChunkSchema,
} from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runAgentTurn } from "../agent/run-agent-turn.js";
import { PartialJsonParser } from "../json/partial-json-parser.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import type { JsonPreview } from "../protocol/json-preview.js";
import { buildStreamEvents, fakeModel, type ScriptBlock } from "../testing/stream-builder.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolError } from "../tools/tool-error.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import {
  agentEventChannel,
  openJson,
  toUIMessageStream,
  type UiMessageChunk,
  uiMessageStreamResponse,
} from "./ui-message-stream.js";

// Compile-time: every chunk this module writes is one of the AI SDK's UIMessageChunks.
const _assignable = (chunk: UiMessageChunk): UIMessageChunk => chunk;
void _assignable;

const ROUND_1: ScriptBlock[] = [
  { type: "thinking", thinking: "Search, add, then total.", signature: "sig" },
  { type: "text", text: "Let me look that up and add it for you." },
  { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "red shoes" } },
  {
    type: "web_search_tool_result",
    tool_use_id: "srvtoolu_1",
    content: [{ type: "web_search_result", url: "https://example.com/red", title: "Red" }],
  },
  {
    type: "tool_use",
    id: "toolu_add",
    name: "add_to_cart",
    input: { sku: "SHOE-42", qty: 2, note: "gift wrap, please" },
  },
  { type: "tool_use", id: "toolu_fail", name: "check_stock", input: { sku: "SHOE-42" } },
  { type: "tool_use", id: "toolu_bad", name: "cart_total", input: '{"currency": "EUR", }' },
  {
    type: "tool_use",
    id: "toolu_total",
    name: "cart_total",
    input: { currency: "EUR", includeTax: true },
  },
];
const ROUND_2: ScriptBlock[] = [{ type: "text", text: "Added: two pairs, total 84 EUR." }];

function shopTools(toolMs: number) {
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  return new ToolExecutor([
    defineTool({
      name: "add_to_cart",
      description: "Add to the cart.",
      input: z.object({ sku: z.string(), qty: z.number(), note: z.string().optional() }),
      run: async (input) => {
        await wait(toolMs);
        return {
          text: `Added ${input.qty} × ${input.sku}.`,
          events: [{ type: "cart-updated", lines: 1 }],
        };
      },
    }),
    defineTool({
      name: "check_stock",
      description: "Check the stock.",
      input: z.object({ sku: z.string() }),
      run: async () => {
        await wait(toolMs);
        throw new ToolError("SHOE-42 is out of stock in size 42.");
      },
    }),
    defineTool({
      name: "cart_total",
      description: "Total the cart.",
      input: z.object({ currency: z.string(), includeTax: z.boolean().optional() }),
      run: async () => {
        await wait(toolMs);
        return "84 EUR";
      },
    }),
  ]);
}

/** A real turn over fakeModel: its AgentEvents, in order. */
async function shopTurn(options: { delayMs?: number; toolMs?: number; cutAfter?: number } = {}) {
  const events: AgentEvent[] = [];
  const round1 = buildStreamEvents(ROUND_1, {
    chunkSize: 6,
    ...(options.cutAfter !== undefined ? { cutAfter: options.cutAfter } : {}),
  });
  const model = fakeModel(
    [round1, buildStreamEvents(ROUND_2)],
    options.cutAfter !== undefined
      ? { failWith: new TypeError("terminated"), delayMs: options.delayMs ?? 0 }
      : { delayMs: options.delayMs ?? 0 },
  );
  const turn = await runAgentTurn({
    model,
    executor: shopTools(options.toolMs ?? 1),
    messages: [{ role: "user", content: "Add the red shoes and total my cart." }],
    sink: (event) => events.push(event),
    previewIntervalMs: 1,
  });
  return { events, turn };
}

async function* from<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

async function collect<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

/** The UIMessage the AI SDK's reader makes of the chunks; its errors, in order. */
async function readMessage(chunks: readonly UiMessageChunk[]) {
  const errors: string[] = [];
  let last: UIMessage | undefined;
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  for await (const message of readUIMessageStream<UIMessage>({
    stream,
    onError: (error) => errors.push(error instanceof Error ? error.message : String(error)),
  })) {
    last = message;
  }
  if (!last) throw new Error("the reader produced no message");
  return { message: last, errors };
}

type AnyPart = UIMessage["parts"][number] & Record<string, unknown>;

describe("toUIMessageStream read by the AI SDK's readUIMessageStream", () => {
  it("a whole turn: reasoning, text, a provider tool, local calls with inputs and outputs in call order, errors as error parts, statuses and ui as data parts", async () => {
    const { events, turn } = await shopTurn();
    expect(turn.error).toBeUndefined();
    const chunks = await collect(toUIMessageStream(from(events), { messageId: "msg-1" }));
    expect(chunks[0]).toEqual({ type: "start", messageId: "msg-1" });
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    const { message, errors } = await readMessage(chunks);
    expect(errors).toEqual([]);
    expect(message.id).toBe("msg-1");
    expect(message.role).toBe("assistant");
    const parts = message.parts as AnyPart[];

    // Two steps (rounds), the text of each.
    expect(parts.filter((p) => p.type === "step-start")).toHaveLength(2);
    expect(parts.filter((p) => p.type === "text").map((p) => [p.text, p.state])).toEqual([
      ["Let me look that up and add it for you.", "done"],
      ["Added: two pairs, total 84 EUR.", "done"],
    ]);
    expect(parts.filter((p) => p.type === "reasoning").map((p) => p.text)).toEqual([
      "Search, add, then total.",
    ]);

    // The tool parts, in call order, each with its strict input and its result.
    const tools = parts.filter((p) => p.type.startsWith("tool-"));
    expect(tools.map((p) => [p.type, p.toolCallId, p.state, p.providerExecuted ?? false])).toEqual([
      ["tool-web_search", "srvtoolu_1", "output-available", true],
      ["tool-add_to_cart", "toolu_add", "output-available", false],
      ["tool-check_stock", "toolu_fail", "output-error", false],
      ["tool-cart_total", "toolu_bad", "output-error", false],
      ["tool-cart_total", "toolu_total", "output-available", false],
    ]);
    const byId = (id: string) => tools.find((p) => p.toolCallId === id)!;
    expect(byId("srvtoolu_1").input).toEqual({ query: "red shoes" });
    expect(byId("srvtoolu_1").output).toEqual(
      ROUND_1[3]!.type === "web_search_tool_result" ? ROUND_1[3]!.content : null,
    );
    expect(byId("toolu_add")).toMatchObject({
      input: { sku: "SHOE-42", qty: 2, note: "gift wrap, please" },
      output: "Added 2 × SHOE-42.",
    });
    expect(byId("toolu_fail")).toMatchObject({
      input: { sku: "SHOE-42" },
      errorText: "SHOE-42 is out of stock in size 42.",
    });
    expect(String(byId("toolu_bad").errorText)).toContain("not valid JSON");
    expect(byId("toolu_total")).toMatchObject({
      input: { currency: "EUR", includeTax: true },
      output: "84 EUR",
    });
    // The same results the model reads, in the same (call) order.
    const results = events.flatMap((e) => (e.type === "tool-result" ? [e.callId] : []));
    expect(results).toEqual(["toolu_add", "toolu_fail", "toolu_bad", "toolu_total"]);
    const outputs = chunks.flatMap((c) =>
      c.type === "tool-output-available" || c.type === "tool-output-error" ? [c.toolCallId] : [],
    );
    expect(outputs).toEqual(["srvtoolu_1", ...results]);

    // Statuses: one part per call, replaced in place, showing its last status; ui as data parts.
    const statuses = parts.filter((p) => p.type === "data-tool-status");
    expect(statuses.map((p) => [p.id, (p.data as { status: string }).status])).toEqual([
      ["toolu_add", "done"],
      ["toolu_fail", "failed"],
      ["toolu_total", "done"],
    ]);
    expect(parts.filter((p) => p.type === "data-ui").map((p) => p.data)).toEqual([
      { callId: "toolu_add", name: "add_to_cart", ui: { type: "cart-updated", lines: 1 } },
    ]);
  });

  it("while the model streams: calls become input-available at moment 2, statuses arrive before the message ends, previews stream as argument text", async () => {
    const { events } = await shopTurn({ delayMs: 2, toolMs: 1 });
    const chunks = await collect(toUIMessageStream(from(events)));
    const at = (predicate: (c: UiMessageChunk) => boolean) => chunks.findIndex(predicate);
    const available = at((c) => c.type === "tool-input-available" && c.toolCallId === "toolu_add");
    const done = at(
      (c) => c.type === "data-tool-status" && (c.data as { status: string }).status === "done",
    );
    const lastCallStart = at(
      (c) => c.type === "tool-input-start" && c.toolCallId === "toolu_total",
    );
    const firstStepEnd = at((c) => c.type === "finish-step");
    expect(available).toBeGreaterThan(0);
    // add_to_cart is done before the model even starts writing the last call.
    expect(done).toBeGreaterThan(available);
    expect(done).toBeLessThan(lastCallStart);
    expect(lastCallStart).toBeLessThan(firstStepEnd);

    // The argument text streamed for a call parses to its previews, and to its input at the end.
    const text = chunks
      .flatMap((c) =>
        c.type === "tool-input-delta" && c.toolCallId === "toolu_add" ? [c.inputTextDelta] : [],
      )
      .join("");
    expect(text.length).toBeGreaterThan(0);
    expect((await parsePartialJson(text)).value).toEqual({
      sku: "SHOE-42",
      qty: 2,
      note: "gift wrap, please",
    });
    expect(
      chunks.filter((c) => c.type === "tool-input-start" && c.toolCallId === "toolu_add"),
    ).toHaveLength(1);

    // The reader's view mid-stream: the part is input-streaming with the preview as its input.
    const upTo = chunks.slice(0, available);
    const { message } = await readMessage(upTo);
    const add = (message.parts as AnyPart[]).find((p) => p.toolCallId === "toolu_add");
    expect(add?.state).toBe("input-streaming");
    const previews = events.filter(
      (e): e is Extract<AgentEvent, { type: "tool-input-preview" }> =>
        e.type === "tool-input-preview" && e.callId === "toolu_add",
    );
    expect(add?.input).toEqual(previews.at(-1)?.preview);
  });

  it("an interrupted turn: the cut call's part ends as an error, the error chunk carries the masked message, finish says error", async () => {
    // Cut in the middle of the last call's arguments.
    const { events, turn } = await shopTurn({ cutAfter: 60 });
    expect(turn.error?.code).toBe("stream_interrupted");
    const chunks = await collect(toUIMessageStream(from(events)));
    expect(chunks.slice(-2)).toEqual([
      { type: "error", errorText: "The model's response was interrupted." },
      { type: "finish", finishReason: "error" },
    ]);
    const { message, errors } = await readMessage(chunks);
    expect(errors).toEqual(["The model's response was interrupted."]);
    const tools = (message.parts as AnyPart[]).filter((p) => p.type.startsWith("tool-"));
    // Every call of the message has an ending; none is left streaming.
    for (const part of tools) expect(part.state, String(part.toolCallId)).toMatch(/^output-/);
    expect(tools.length).toBeGreaterThan(0);
  });

  it("events of delegated inner agents are left out; options turn statuses and ui off or transient; a custom tool output", async () => {
    const { events } = await shopTurn();
    const inner: AgentEvent[] = [
      { type: "round-start", round: 1, parentCallId: "toolu_add", agent: "merchant" },
      { type: "text-delta", round: 1, index: 0, text: "inner", parentCallId: "toolu_add" },
      { type: "done", roundCount: 1, stopReason: "end_turn", parentCallId: "toolu_add" },
    ];
    const mixed = [...events.slice(0, 3), ...inner, ...events.slice(3)];
    const plain = await collect(toUIMessageStream(from(events)));
    expect(await collect(toUIMessageStream(from(mixed)))).toEqual(plain);

    const quiet = await collect(
      toUIMessageStream(from(events), {
        toolStatus: "none",
        uiEvents: "none",
        toolOutput: (result, ui) => ({ text: result.resultText, ui }),
      }),
    );
    expect(quiet.some((c) => c.type.startsWith("data-"))).toBe(false);
    expect(
      quiet.find((c) => c.type === "tool-output-available" && c.toolCallId === "toolu_add"),
    ).toEqual({
      type: "tool-output-available",
      toolCallId: "toolu_add",
      output: { text: "Added 2 × SHOE-42.", ui: [{ type: "cart-updated", lines: 1 }] },
    });
    const transient = await collect(toUIMessageStream(from(events), { toolStatus: "transient" }));
    const { message } = await readMessage(transient);
    expect(message.parts.some((p) => p.type === "data-tool-status")).toBe(false);
  });

  it("a source that fails or ends without the turn's done ends the message with an error", async () => {
    async function* failing(): AsyncGenerator<AgentEvent> {
      yield { type: "round-start", round: 1 };
      yield { type: "text-delta", round: 1, index: 0, text: "Hel" };
      throw new Error("connection reset");
    }
    const failed = await collect(toUIMessageStream(failing()));
    expect(failed.slice(-5)).toEqual([
      { type: "text-delta", id: "text-1-0", delta: "Hel" },
      { type: "text-end", id: "text-1-0" },
      { type: "finish-step" },
      { type: "error", errorText: "An error occurred." },
      { type: "finish", finishReason: "error" },
    ]);
    const { message } = await readMessage(failed);
    expect(message.parts.find((p) => p.type === "text")).toMatchObject({
      text: "Hel",
      state: "done",
    });
    const unfinished = await collect(
      toUIMessageStream(from<AgentEvent>([{ type: "round-start", round: 1 }]), {
        onError: () => "unused",
      }),
    );
    expect(unfinished.slice(-2)).toEqual([
      { type: "error", errorText: "The response ended before the turn finished." },
      { type: "finish", finishReason: "error" },
    ]);
  });
});

describe("uiMessageStreamResponse", () => {
  it("SSE the way createUIMessageStreamResponse writes it; the AI SDK's own parser validates every frame and the reader rebuilds the same message", async () => {
    const { events } = await shopTurn();
    const chunks = await collect(toUIMessageStream(from(events)));
    const response = uiMessageStreamResponse(from(events), {
      headers: { "x-custom": "1", "cache-control": "no-store" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-custom")).toBe("1");
    const [forText, forParser] = response.body!.tee();
    const text = await new Response(forText).text();
    expect(text.startsWith('data: {"type":"start"}\n\n')).toBe(true);
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(text.split("\n\n").filter(Boolean)).toHaveLength(chunks.length + 1);

    const parsed = await collect(
      parseJsonEventStream({ stream: forParser, schema: uiMessageChunkSchema }),
    );
    expect(parsed.every((r) => r.success)).toBe(true);
    const received = parsed.flatMap((r) => (r.success ? [r.value] : []));
    expect(received).toEqual(chunks);
    const { message, errors } = await readMessage(received as UiMessageChunk[]);
    expect(errors).toEqual([]);
    expect((await readMessage(chunks)).message).toEqual(message);
  });

  it("agentEventChannel connects a running turn to the response", async () => {
    const channel = agentEventChannel();
    const model = fakeModel([buildStreamEvents(ROUND_1), buildStreamEvents(ROUND_2)]);
    const turn = runAgentTurn({
      model,
      executor: shopTools(1),
      messages: [{ role: "user", content: "Go." }],
      sink: channel.sink,
    });
    const response = uiMessageStreamResponse(channel.events);
    const parsed = await collect(
      parseJsonEventStream({ stream: response.body!, schema: uiMessageChunkSchema }),
    );
    await turn;
    const chunks = parsed.flatMap((r) => (r.success ? [r.value] : []));
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    const { message } = await readMessage(chunks as UiMessageChunk[]);
    expect(message.parts.filter((p) => p.type === "text")).toHaveLength(2);
  });
});

describe("openJson", () => {
  const values: unknown[] = [
    {
      sku: "SHOE-42",
      qty: 2,
      note: 'gift "wrap"\n, please',
      tags: ["a", "b"],
      nested: { x: [1, { y: null }] },
    },
    [1, 2.5, -3, true, false, null, "naïve 你好 🎉", { a: {} }, []],
    { empty: {}, list: [], deep: [[[]]], unicode: "\u00e9\\" },
  ];
  for (const value of values) {
    it(`every prefix of ${JSON.stringify(value).slice(0, 40)}…: the AI SDK's reader parses the text back to our preview, and the text only grows`, async () => {
      const json = JSON.stringify(value);
      const parser = new PartialJsonParser();
      let sent = "";
      let restarts = 0;
      for (const char of json) {
        parser.push(char);
        const preview: JsonPreview | undefined = parser.snapshot();
        const text = openJson(preview);
        if (preview !== undefined) {
          expect((await parsePartialJson(text)).value, text).toEqual(preview);
        }
        if (!text.startsWith(sent)) restarts++;
        sent = text;
      }
      expect(restarts).toBe(0);
      expect((await parsePartialJson(sent)).value).toEqual(value);
    });
  }
});
