import type { LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { type AssemblerReport, BlockAssembler } from "../../stream/block-assembler.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { AiSdkStreamTranslator, toUsage } from "./ai-sdk-stream-translator.js";

const USAGE: LanguageModelV3Usage = {
  inputTokens: { total: 120, noCache: 100, cacheRead: 15, cacheWrite: 5 },
  outputTokens: { total: 42, text: 42, reasoning: undefined },
};

const finish = (
  unified: "stop" | "length" | "content-filter" | "tool-calls" | "error" | "other",
  raw?: string,
): LanguageModelV3StreamPart => ({ type: "finish", finishReason: { unified, raw }, usage: USAGE });

/** Translates the parts and assembles the events, recording which part caused what. */
function run(parts: readonly LanguageModelV3StreamPart[]) {
  const translator = new AiSdkStreamTranslator({ model: "fallback-model" });
  const assembler = new BlockAssembler();
  const events: StreamEvent[] = [];
  const reports: Array<AssemblerReport & { part: number }> = [];
  parts.forEach((part, i) => {
    for (const event of translator.push(part)) {
      events.push(event);
      for (const report of assembler.push(event)) reports.push({ ...report, part: i });
    }
  });
  const end = reports.find((r) => r.type === "message-end");
  return {
    translator,
    events,
    reports,
    end: end?.type === "message-end" ? end : undefined,
    partial: assembler.partial(),
    calls: reports.flatMap((r) =>
      r.type === "tool-call"
        ? [{ id: r.callId, name: r.name, server: r.server, input: r.input, part: r.part }]
        : [],
    ),
  };
}

const metadata = { type: "response-metadata", id: "msg_1", modelId: "claude-x" } as const;

/** As @ai-sdk/anthropic streams: each call ends at its own tool-input-end, then tool-call. */
const PER_CALL: LanguageModelV3StreamPart[] = [
  { type: "stream-start", warnings: [{ type: "other", message: "a warning" }] },
  metadata,
  { type: "text-start", id: "0" },
  { type: "text-delta", id: "0", delta: "Adding " },
  { type: "text-delta", id: "0", delta: "both." },
  { type: "text-end", id: "0" },
  { type: "tool-input-start", id: "toolu_a", toolName: "add_to_cart" },
  { type: "tool-input-delta", id: "toolu_a", delta: '{"sku": "A' },
  { type: "tool-input-delta", id: "toolu_a", delta: '-1", "qty": 2}' },
  { type: "tool-input-end", id: "toolu_a" },
  {
    type: "tool-call",
    toolCallId: "toolu_a",
    toolName: "add_to_cart",
    input: '{"sku":"A-1","qty":2}',
  },
  { type: "tool-input-start", id: "toolu_b", toolName: "cart_total" },
  { type: "tool-input-end", id: "toolu_b" },
  { type: "tool-call", toolCallId: "toolu_b", toolName: "cart_total", input: "{}" },
  finish("tool-calls", "tool_use"),
];

describe("AiSdkStreamTranslator", () => {
  it("per-call streams: moment 1 at tool-input-start, moment 2 at tool-input-end; tool-call is the same call, never a second one", () => {
    const { end, calls, reports, translator } = run(PER_CALL);
    expect(translator.warnings).toEqual([{ type: "other", message: "a warning" }]);
    expect(reports[0]).toMatchObject({ type: "message-start", id: "msg_1", model: "claude-x" });
    expect(end?.message.content).toEqual([
      { type: "text", text: "Adding both." },
      { type: "tool_use", id: "toolu_a", name: "add_to_cart", input: { sku: "A-1", qty: 2 } },
      { type: "tool_use", id: "toolu_b", name: "cart_total", input: {} },
    ]);
    // Each call completed at its tool-input-end (parts 9 and 12), before the next call started.
    expect(calls.map((c) => [c.id, c.part])).toEqual([
      ["toolu_a", 9],
      ["toolu_b", 12],
    ]);
    const starts = reports.filter((r) => r.type === "block-start");
    expect(starts.map((r) => [r.index, r.part])).toEqual([
      [0, 2],
      [1, 6],
      [2, 11],
    ]);
    expect(end?.stopReason).toBe("tool_use");
    expect(end?.toolUses.map((t) => t.id)).toEqual(["toolu_a", "toolu_b"]);
  });

  it("whole-call providers: a tool-call without tool-input-* starts and completes the call at once", () => {
    const { end, calls } = run([
      metadata,
      { type: "tool-call", toolCallId: "c1", toolName: "search", input: '{"q":"red"}' },
      { type: "tool-call", toolCallId: "c2", toolName: "cart_total", input: "" },
      { type: "tool-call", toolCallId: "c3", toolName: "search", input: '{"q": }' },
      { type: "tool-call", toolCallId: "c1", toolName: "search", input: '{"q":"red"}' }, // repeated
      finish("tool-calls"),
    ]);
    expect(calls.map((c) => [c.id, c.part, c.input.ok])).toEqual([
      ["c1", 1, true],
      ["c2", 2, true],
      ["c3", 3, false],
    ]);
    expect(end?.message.content).toEqual([
      { type: "tool_use", id: "c1", name: "search", input: { q: "red" } },
      { type: "tool_use", id: "c2", name: "cart_total", input: {} },
      { type: "tool_use", id: "c3", name: "search", input: {} },
    ]);
  });

  it("calls that only end at the end of the stream (as @ai-sdk/openai's chat model sends them): text ends when the first call starts", () => {
    const { end, calls, reports } = run([
      { type: "stream-start", warnings: [] },
      { type: "response-metadata", id: "chatcmpl-1", modelId: "gpt-x" },
      { type: "text-start", id: "0" },
      { type: "text-delta", id: "0", delta: "Two calls." },
      { type: "tool-input-start", id: "call_1", toolName: "add_to_cart" },
      { type: "tool-input-delta", id: "call_1", delta: '{"sku":"A"}' },
      { type: "tool-input-start", id: "call_2", toolName: "search" },
      { type: "tool-input-delta", id: "call_2", delta: '{"q":"b"}' },
      { type: "text-end", id: "0" }, // flush: already ended
      { type: "tool-input-end", id: "call_1" },
      { type: "tool-call", toolCallId: "call_1", toolName: "add_to_cart", input: '{"sku":"A"}' },
      { type: "tool-input-end", id: "call_2" },
      { type: "tool-call", toolCallId: "call_2", toolName: "search", input: '{"q":"b"}' },
      finish("tool-calls", "tool_calls"),
    ]);
    expect(reports.find((r) => r.type === "block-stop")?.part).toBe(4);
    expect(calls.map((c) => [c.id, c.part])).toEqual([
      ["call_1", 9],
      ["call_2", 11],
    ]);
    expect(end?.message.content).toEqual([
      { type: "text", text: "Two calls." },
      { type: "tool_use", id: "call_1", name: "add_to_cart", input: { sku: "A" } },
      { type: "tool_use", id: "call_2", name: "search", input: { q: "b" } },
    ]);
  });

  it("text after a call opens a new text block for the same part id", () => {
    const { end } = run([
      { type: "text-start", id: "0" },
      { type: "text-delta", id: "0", delta: "Before." },
      { type: "tool-call", toolCallId: "c1", toolName: "search", input: "{}" },
      { type: "text-delta", id: "0", delta: "After." },
      { type: "text-end", id: "0" },
      finish("stop", "stop"),
    ]);
    expect(end?.message.content).toEqual([
      { type: "text", text: "Before." },
      { type: "tool_use", id: "c1", name: "search", input: {} },
      { type: "text", text: "After." },
    ]);
    expect(end?.stopReason).toBe("end_turn");
  });

  it("a call whose end is never signalled ends at its tool-call; arguments streamed win, the whole input fills in when none were", () => {
    const { end, calls } = run([
      metadata,
      { type: "tool-input-start", id: "a", toolName: "search" },
      { type: "tool-input-delta", id: "a", delta: '{"q":"streamed"}' },
      { type: "tool-call", toolCallId: "a", toolName: "search", input: '{"q":"normalised"}' },
      { type: "tool-input-start", id: "b", toolName: "search" },
      { type: "tool-call", toolCallId: "b", toolName: "search", input: '{"q":"whole"}' },
      finish("tool-calls"),
    ]);
    expect(calls.map((c) => [c.id, c.part])).toEqual([
      ["a", 3],
      ["b", 5],
    ]);
    expect(end?.message.content).toEqual([
      { type: "tool_use", id: "a", name: "search", input: { q: "streamed" } },
      { type: "tool_use", id: "b", name: "search", input: { q: "whole" } },
    ]);
  });

  it("text-encoded input deltas are not JSON: the call completes with its tool-call's JSON", () => {
    const { end, calls } = run([
      { type: "tool-input-start", id: "t", toolName: "shell", inputEncoding: "text" },
      { type: "tool-input-delta", id: "t", delta: "ls -la" },
      { type: "tool-input-end", id: "t" },
      { type: "tool-call", toolCallId: "t", toolName: "shell", input: '"ls -la"' },
      finish("tool-calls"),
    ]);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.part).toBe(3);
    // A JSON string is not an object: the round answers it as invalid input, never runs it.
    expect(calls[0]?.input.ok).toBe(false);
    expect(end?.message.content).toEqual([{ type: "tool_use", id: "t", name: "shell", input: {} }]);
    // Without its tool-call, the raw text is parsed strictly at finish: never run as `{}`.
    const cut = run([
      { type: "tool-input-start", id: "t", toolName: "shell", inputEncoding: "text" },
      { type: "tool-input-delta", id: "t", delta: "ls -la" },
      finish("tool-calls"),
    ]);
    expect(cut.calls.map((c) => [c.id, c.input.ok])).toEqual([["t", false]]);
  });

  it("reasoning: a signature arriving in a reasoning-delta is the thinking block's signature; redacted reasoning is a redacted_thinking block; start metadata rides on the block", () => {
    const { end } = run([
      metadata,
      { type: "reasoning-start", id: "0" },
      { type: "reasoning-delta", id: "0", delta: "Let me think. " },
      { type: "reasoning-delta", id: "0", delta: "Done." },
      {
        type: "reasoning-delta",
        id: "0",
        delta: "",
        providerMetadata: { anthropic: { signature: "sig-123" } },
      },
      { type: "reasoning-end", id: "0" },
      {
        type: "reasoning-start",
        id: "1",
        providerMetadata: { anthropic: { redactedData: "opaque==" } },
      },
      { type: "reasoning-end", id: "1" },
      {
        type: "reasoning-start",
        id: "rs_1",
        providerMetadata: { openai: { itemId: "rs_1", reasoningEncryptedContent: null } },
      },
      { type: "reasoning-delta", id: "rs_1", delta: "Summary." },
      { type: "reasoning-end", id: "rs_1" },
      {
        type: "text-start",
        id: "msg_1",
        providerMetadata: { openai: { itemId: "msg_1" } },
      },
      { type: "text-delta", id: "msg_1", delta: "Hi." },
      { type: "text-end", id: "msg_1" },
      finish("stop", "end_turn"),
    ]);
    expect(end?.message.content).toEqual([
      { type: "thinking", thinking: "Let me think. Done.", signature: "sig-123" },
      { type: "redacted_thinking", data: "opaque==" },
      {
        type: "thinking",
        thinking: "Summary.",
        signature: "",
        ai_sdk_metadata: { openai: { itemId: "rs_1", reasoningEncryptedContent: null } },
      },
      { type: "text", text: "Hi.", ai_sdk_metadata: { openai: { itemId: "msg_1" } } },
    ]);
  });

  it("metadata a call brings after its block started goes to onCallMetadata, merged with the start's", () => {
    const seen: Array<[string, unknown]> = [];
    const translator = new AiSdkStreamTranslator({
      onCallMetadata: (id, metadata) => seen.push([id, metadata]),
    });
    const parts: LanguageModelV3StreamPart[] = [
      { type: "tool-input-start", id: "a", toolName: "x", providerMetadata: { p: { s: 1 } } },
      { type: "tool-input-end", id: "a", providerMetadata: { p: { ns: "n" } } },
      {
        type: "tool-call",
        toolCallId: "a",
        toolName: "x",
        input: "{}",
        providerMetadata: { p: { itemId: "fc_1" } },
      },
      { type: "tool-input-start", id: "b", toolName: "x", providerMetadata: { p: { s: 2 } } },
      {
        type: "tool-call",
        toolCallId: "b",
        toolName: "x",
        input: "{}",
        providerMetadata: { p: { s: 2 } },
      },
    ];
    for (const part of parts) translator.push(part);
    expect(seen).toEqual([
      ["a", { p: { s: 1, ns: "n" } }],
      ["a", { p: { s: 1, ns: "n", itemId: "fc_1" } }],
    ]);
  });

  it("provider-executed calls are server_tool_use blocks with their result block: recorded, never local calls", () => {
    const { end, calls, reports } = run([
      metadata,
      { type: "tool-input-start", id: "srv_1", toolName: "web_search", providerExecuted: true },
      { type: "tool-input-delta", id: "srv_1", delta: '{"query":"red shoes"}' },
      { type: "tool-input-end", id: "srv_1" },
      {
        type: "tool-call",
        toolCallId: "srv_1",
        toolName: "web_search",
        input: '{"query":"red shoes"}',
        providerExecuted: true,
      },
      {
        type: "tool-result",
        toolCallId: "srv_1",
        toolName: "web_search",
        result: [{ url: "https://a" }],
        preliminary: true,
      },
      {
        type: "tool-result",
        toolCallId: "srv_1",
        toolName: "web_search",
        result: [{ url: "https://a" }, { url: "https://b" }],
      },
      { type: "source", sourceType: "url", id: "s1", url: "https://a" },
      { type: "tool-call", toolCallId: "local", toolName: "search", input: "{}" },
      finish("tool-calls", "tool_use"),
    ]);
    expect(calls.map((c) => [c.id, c.server])).toEqual([
      ["srv_1", true],
      ["local", false],
    ]);
    expect(end?.message.content).toEqual([
      { type: "server_tool_use", id: "srv_1", name: "web_search", input: { query: "red shoes" } },
      {
        type: "ai_sdk_tool_result",
        tool_use_id: "srv_1",
        name: "web_search",
        content: [{ url: "https://a" }, { url: "https://b" }],
      },
      { type: "tool_use", id: "local", name: "search", input: {} },
    ]);
    expect(end?.toolUses.map((t) => t.id)).toEqual(["local"]);
    expect(reports.filter((r) => r.type === "block-start")).toHaveLength(3);
  });

  it("finish reasons: unified mapped to stop reasons, the Messages API's own raw reasons kept", () => {
    const stop = (parts: LanguageModelV3StreamPart[]) => run(parts).end?.stopReason;
    const text: LanguageModelV3StreamPart[] = [
      { type: "text-start", id: "0" },
      { type: "text-delta", id: "0", delta: "x" },
    ];
    const call: LanguageModelV3StreamPart = {
      type: "tool-call",
      toolCallId: "c",
      toolName: "t",
      input: "{}",
    };
    expect(stop([...text, finish("stop", "stop")])).toBe("end_turn");
    expect(stop([...text, finish("stop")])).toBe("end_turn");
    expect(stop([call, finish("tool-calls", "TOOL_CALLS")])).toBe("tool_use");
    expect(stop([...text, finish("length", "MAX_TOKENS")])).toBe("max_tokens");
    expect(stop([...text, finish("content-filter", "SAFETY")])).toBe("refusal");
    expect(stop([...text, finish("stop", "pause_turn")])).toBe("pause_turn");
    expect(stop([...text, finish("stop", "stop_sequence")])).toBe("stop_sequence");
    expect(stop([...text, finish("content-filter", "refusal")])).toBe("refusal");
    // `other` with a reason of its own: tool_use when the message has calls, else end_turn.
    expect(stop([...text, finish("other", "compaction")])).toBe("end_turn");
    expect(stop([call, finish("other", "UNKNOWN")])).toBe("tool_use");
  });

  it("finish `error` is a neutral error event; `other` without any reason is a cut stream", () => {
    const failed = run([
      { type: "tool-input-start", id: "a", toolName: "search" },
      finish("error"),
    ]);
    expect(failed.events.at(-1)).toMatchObject({ type: "error", error: { type: "finish_error" } });
    expect(failed.translator.failed).toBe(true);
    expect(failed.calls).toEqual([]);
    expect(() => run([{ type: "text-start", id: "0" }, finish("other")])).toThrow(
      expect.objectContaining({ code: "stream_interrupted" }),
    );
  });

  it("an error part becomes the neutral error event; nothing after it is translated (no call completes)", () => {
    const { events, calls, partial, translator } = run([
      metadata,
      { type: "tool-input-start", id: "a", toolName: "add_to_cart" },
      { type: "tool-input-delta", id: "a", delta: '{"sku":"A"}' },
      { type: "tool-input-end", id: "a" },
      { type: "tool-input-start", id: "b", toolName: "search" },
      { type: "tool-input-delta", id: "b", delta: '{"q":' },
      {
        type: "error",
        error: { message: "The server had an error", type: "server_error", code: null },
      },
      // What @ai-sdk/openai's chat model still sends after an error chunk.
      { type: "tool-input-end", id: "b" },
      { type: "tool-call", toolCallId: "b", toolName: "search", input: '{"q":' },
      finish("error"),
    ]);
    expect(translator.failed).toBe(true);
    expect(events.filter((e) => e.type === "error")).toEqual([
      { type: "error", error: { type: "server_error", message: "The server had an error" } },
    ]);
    expect(calls.map((c) => c.id)).toEqual(["a"]);
    expect(partial.toolUses.map((t) => [t.id, t.input?.ok ?? null])).toEqual([
      ["a", true],
      ["b", null],
    ]);
  });

  it("errors of every shape become { type, message }", () => {
    const error = (value: unknown) =>
      new AiSdkStreamTranslator().push({ type: "error", error: value })[0];
    expect(error({ type: "overloaded_error", message: "Overloaded" })).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });
    expect(error({ error: { type: "api_error", message: "Boom" } })).toMatchObject({
      error: { type: "api_error", message: "Boom" },
    });
    expect(error(new TypeError("bad chunk"))).toMatchObject({
      error: { type: "TypeError", message: "bad chunk" },
    });
    expect(error("plain")).toMatchObject({ error: { type: "error", message: "plain" } });
  });

  it("usage in the Messages API's terms; the message opens at the first part that has content", () => {
    expect(toUsage(USAGE)).toEqual({
      input_tokens: 100,
      output_tokens: 42,
      cache_read_input_tokens: 15,
      cache_creation_input_tokens: 5,
    });
    const { end, reports } = run([
      { type: "stream-start", warnings: [] },
      { type: "text-delta", id: "0", delta: "No start part." },
      { type: "response-metadata", id: "late", modelId: "late-model" },
      finish("stop", "stop"),
    ]);
    expect(reports[0]).toMatchObject({ type: "message-start", id: "", model: "fallback-model" });
    expect(end?.message.content).toEqual([{ type: "text", text: "No start part." }]);
    expect(end?.usage).toMatchObject({ input_tokens: 100, output_tokens: 42 });
  });

  it("calls still open at finish are ended there, in block order", () => {
    const { calls } = run([
      { type: "tool-input-start", id: "a", toolName: "x" },
      { type: "tool-input-start", id: "b", toolName: "y" },
      { type: "tool-input-delta", id: "b", delta: "{}" },
      { type: "tool-input-delta", id: "a", delta: "{}" },
      finish("tool-calls"),
    ]);
    expect(calls.map((c) => [c.id, c.part])).toEqual([
      ["a", 4],
      ["b", 4],
    ]);
  });

  it("parts after finish are ignored; deltas of a call that never started are a protocol error", () => {
    const translator = new AiSdkStreamTranslator();
    translator.push(finish("stop", "stop"));
    expect(translator.finished).toBe(true);
    expect(translator.push({ type: "text-delta", id: "0", delta: "late" })).toEqual([]);
    expect(() =>
      new AiSdkStreamTranslator().push({ type: "tool-input-delta", id: "nope", delta: "{" }),
    ).toThrow(expect.objectContaining({ code: "stream_protocol" }));
    const twice = new AiSdkStreamTranslator();
    twice.push({ type: "tool-input-start", id: "a", toolName: "x" });
    expect(() => twice.push({ type: "tool-input-start", id: "a", toolName: "x" })).toThrow(
      expect.objectContaining({ code: "stream_protocol" }),
    );
  });
});
