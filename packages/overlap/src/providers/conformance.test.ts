/**
 * Conformance with the official SDKs, through real HTTP against overlap-sim: for every scenario the
 * SDK's own accumulation (`messages.stream().finalMessage()`, `chat.completions.stream()
 * .finalChatCompletion()`) and the message overlap assembles (StreamedRound over `anthropicModel` /
 * `openaiChatModel`) are built from the very same bytes, and must agree.
 *
 * Same bytes: the sim derives one seed per request from its own seed and the request body, so both
 * requests send an identical body (checked) to a sim with a fixed seed, a policy answering the same
 * script every time and no pacing; the responses are then byte-identical (checked; OpenAI's
 * `created` timestamp aside).
 *
 * Normalisations, only where the formats differ:
 * - Anthropic: the SDK's final message is compared by `content` (after a JSON round trip, which
 *   drops the SDK's non-enumerable `__json_buf` bookkeeping) and `stop_reason`; its envelope (id,
 *   model, usage...) has no place in an assistant message (token counts are compared separately).
 * - OpenAI: the SDK's `choices[0].message` becomes blocks: the text, then one tool_use per call
 *   with `arguments` JSON-parsed (`""`, a call without parameters, means `{}`); `finish_reason` is
 *   mapped to the Messages API stop reason (stop → end_turn, tool_calls → tool_use, length →
 *   max_tokens).
 *
 * Where the SDKs themselves cannot give the message, the test says so and compares with the script
 * instead: the Anthropic SDK's finalMessage() rejects `invalid-json` (its partial-JSON parser
 * throws on `, }`); the OpenAI SDK keeps unparsed argument text (non-strict tools) and merges the
 * `index-zero` quirk's calls into one (it keys calls by index).
 *
 * Also here: the sim's raw SSE for each OpenAI quirk replayed through ChatChunkTranslator in many
 * seeded chunkings.
 */

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { SimScript, SimServer } from "overlap-sim";
import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../agent/model-client.js";
import { type RoundResult, StreamedRound } from "../round/streamed-round.js";
import { SseDecoder } from "../sse/sse-decoder.js";
import { BlockAssembler } from "../stream/block-assembler.js";
import type { UserMessage } from "../stream/message.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { replayChatChunks, splitSeeded } from "../testing/replay.js";
import { anthropicModel, anthropicParams } from "./anthropic/anthropic.js";
import { chatParams, openaiChatModel } from "./openai/openai.js";
import {
  type Capture,
  capturingFetch,
  expectValidContinuation,
  neverAborted,
  recordingTools,
  simRunner,
  toolUses,
} from "./provider-sim.testkit.js";

// ---------------------------------------------------------------------------------------------
// Scripts

const SEED = 20_240_611;
const MODEL = "scripted-conformance";
const ASK: UserMessage = { role: "user", content: "Please do the scripted thing." };
const withSim = simRunner({ pacing: { fast: true }, seed: SEED });

const TEXT_ONLY: SimScript = {
  blocks: [
    {
      type: "text",
      text: "Here is a plain answer, long enough to arrive in many deltas: café, naïve, 你好, 🎉 and done.",
    },
  ],
};

const THREE_CALLS: SimScript = {
  blocks: [
    { type: "text", text: "Adding the shoes, totalling the cart, then searching." },
    { type: "tool_use", name: "add_to_cart", input: { sku: "SHOE-42", qty: 2, note: "gift" } },
    { type: "tool_use", name: "cart_total", input: {} },
    {
      type: "tool_use",
      name: "search",
      input: { query: "red shoes", filters: { size: [41, 42], inStock: true } },
    },
  ],
};

const THINKING: SimScript = {
  blocks: [
    { type: "thinking", thinking: "The user wants shoes. I will add them, then answer briefly." },
    { type: "text", text: "Adding them now." },
    { type: "tool_use", name: "add_to_cart", input: { sku: "SHOE-42", qty: 1 } },
  ],
};

const WEB_SEARCH: SimScript = {
  blocks: [
    { type: "server_tool_use", name: "web_search", input: { query: "red running shoes 2025" } },
    {
      type: "web_search_tool_result",
      results: [
        { title: "Best red shoes", url: "https://example.com/red", pageAge: "May 1, 2025" },
        { title: "Running shoe guide", url: "https://example.com/guide" },
      ],
    },
    { type: "text", text: "I found two pages; searching our catalogue too." },
    { type: "tool_use", name: "search", input: { query: "red running shoes" } },
  ],
};

// ---------------------------------------------------------------------------------------------
// Helpers

interface ClientSetup {
  fault?: string | undefined;
  quirk?: string | undefined;
  capture?: Capture;
}

function simHeaders({ fault, quirk }: ClientSetup): Record<string, string> {
  return {
    ...(fault ? { "x-sim-fault": fault } : {}),
    ...(quirk ? { "x-sim-quirk": quirk } : {}),
  };
}

function anthropicClient(sim: SimServer, setup: ClientSetup = {}) {
  return new Anthropic({
    baseURL: sim.url,
    apiKey: "test",
    maxRetries: 0,
    defaultHeaders: simHeaders(setup),
    ...(setup.capture ? { fetch: capturingFetch(setup.capture) } : {}),
  });
}

function openaiClient(sim: SimServer, setup: ClientSetup = {}) {
  return new OpenAI({
    baseURL: `${sim.url}/v1`,
    apiKey: "test",
    maxRetries: 0,
    defaultHeaders: simHeaders(setup),
    ...(setup.capture ? { fetch: capturingFetch(setup.capture) } : {}),
  });
}

/** Normalises the Anthropic SDK's blocks: a JSON round trip (drops `__json_buf`, nothing else). */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** `""` (no parameters) is `{}`; arguments that do not parse stay the raw string. */
function parseArguments(args: string): unknown {
  if (args === "") return {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

interface ChatCallLike {
  id?: string | undefined;
  type?: string | undefined;
  function?: { name?: string | undefined; arguments?: string | undefined } | undefined;
}

/** The OpenAI SDK's message as overlap's blocks (see the module comment). */
function chatBlocks(message: {
  content?: string | null | undefined;
  tool_calls?: ChatCallLike[] | undefined;
}): unknown[] {
  const blocks: unknown[] = [];
  if (message.content) blocks.push({ type: "text", text: message.content });
  for (const call of message.tool_calls ?? []) {
    blocks.push({
      type: "tool_use",
      id: call.id,
      name: call.function?.name,
      input: parseArguments(call.function?.arguments ?? ""),
    });
  }
  return blocks;
}

const FINISH_TO_STOP: Record<string, string> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  length: "max_tokens",
};

/**
 * The round's messages are a valid continuation and answer each call exactly once, in order: the
 * kit's check, and the tool results answer the calls in call order.
 */
function expectAnsweredContinuation(result: RoundResult, label: string): void {
  expectValidContinuation(ASK, result, label);
  const ids = toolUses(result.assistant.content).map((b) => b.id);
  const answered = result.toolResults?.content;
  expect(
    Array.isArray(answered) ? answered.map((b) => b.type === "tool_result" && b.tool_use_id) : [],
    label,
  ).toEqual(ids);
}

/** The block indexes whose content_block_stop is in an Anthropic SSE text. */
function stoppedIndexes(sse: string): Set<number> {
  const stopped = new Set<number>();
  const decoder = new SseDecoder((frame) => {
    const event = JSON.parse(frame.data) as { type: string; index?: number };
    if (event.type === "content_block_stop" && event.index !== undefined) stopped.add(event.index);
  });
  decoder.push(sse);
  decoder.end();
  return stopped;
}

// ---------------------------------------------------------------------------------------------
// Both sides of one response

async function anthropicBoth(script: SimScript, fault?: string) {
  return withSim({ policy: () => script }, async (sim) => {
    const capture: Capture = { requests: [], responses: [] };
    const client = anthropicClient(sim, { fault, capture });
    const { executor, runs } = recordingTools();
    const request: ModelRequest = { messages: [ASK], tools: executor.specs() };
    const stream = client.messages.stream(anthropicParams(request, { model: MODEL }));
    const sdk = await stream.finalMessage().then(
      (message) => ({ ok: true as const, message }),
      (error: unknown) => ({ ok: false as const, error, snapshot: stream.currentMessage }),
    );
    const round = new StreamedRound({ executor, sink: () => {} });
    const ours = await round.relay(
      anthropicModel({ client, model: MODEL }).stream(request, { signal: neverAborted() }),
    );
    const [sdkBytes = "", ourBytes = ""] = await Promise.all(capture.responses);
    // The premise: both requests identical, so both answers are the same bytes.
    expect(capture.requests).toHaveLength(2);
    expect(capture.requests[1]).toBe(capture.requests[0]);
    expect(ourBytes).toBe(sdkBytes);
    expect(sdkBytes.length).toBeGreaterThan(0);
    return { sdk, ours, runs, bytes: sdkBytes };
  });
}

async function openaiBoth(script: SimScript, setup: { fault?: string; quirk?: string } = {}) {
  return withSim({ policy: () => script }, async (sim) => {
    const capture: Capture = { requests: [], responses: [] };
    const client = openaiClient(sim, { ...setup, capture });
    const { executor, runs } = recordingTools();
    const request: ModelRequest = { messages: [ASK], tools: executor.specs() };
    const stream = client.chat.completions.stream(chatParams(request, { model: MODEL }));
    const sdk = await stream.finalChatCompletion().then(
      (completion) => ({ ok: true as const, completion }),
      (error: unknown) => ({
        ok: false as const,
        error,
        snapshot: stream.currentChatCompletionSnapshot,
      }),
    );
    const round = new StreamedRound({ executor, sink: () => {} });
    const ours = await round.relay(
      openaiChatModel({ client, model: MODEL }).stream(request, { signal: neverAborted() }),
    );
    const [sdkBytes = "", ourBytes = ""] = await Promise.all(capture.responses);
    expect(capture.requests).toHaveLength(2);
    expect(capture.requests[1]).toBe(capture.requests[0]);
    expect(withoutCreated(ourBytes)).toBe(withoutCreated(sdkBytes));
    expect(sdkBytes.length).toBeGreaterThan(0);
    return { sdk, ours, runs, bytes: sdkBytes };
  });
}

/** OpenAI's `created` (Unix seconds) is the one field the sim does not derive from the seed. */
function withoutCreated(sse: string): string {
  return sse.replace(/"created":\d+/g, '"created":0');
}

// ---------------------------------------------------------------------------------------------
// Anthropic

/**
 * Where the faults cut THREE_CALLS' 36 Anthropic frames (the fault fires after N frames): after
 * message_start; mid-text; mid add_to_cart arguments; after add_to_cart's stop; cart_total started
 * but not stopped; mid search arguments; every block stopped but no message_delta; no message_stop.
 */
const ANTHROPIC_CUTS = [1, 5, 13, 18, 20, 27, 34, 35];

/**
 * Where the faults cut THREE_CALLS' 30 Chat Completions frames: after the role chunk; mid-text; mid
 * add_to_cart arguments; add_to_cart's arguments complete (and parseable) but no later call yet;
 * cart_total's `{}` complete, search not started; mid search arguments; all arguments sent but no
 * finish_reason; after finish_reason; after the usage chunk (no `[DONE]`).
 */
const OPENAI_CUTS = [1, 4, 10, 15, 17, 22, 27, 28, 29];

describe("conformance with the Anthropic SDK (messages.stream().finalMessage())", () => {
  const complete: Array<[string, SimScript]> = [
    ["text only", TEXT_ONLY],
    ["several tool calls", THREE_CALLS],
    ["thinking", THINKING],
    ["server tool (web search)", WEB_SEARCH],
  ];
  for (const [name, script] of complete) {
    it(`${name}: the same content, stop reason and token counts`, async () => {
      const { sdk, ours, runs } = await anthropicBoth(script);
      if (!sdk.ok) throw sdk.error;
      expect(ours.error).toBeUndefined();
      expect(ours.assistant.content).toEqual(plain(sdk.message.content));
      expect(ours.assistant.content.length).toBe(script.blocks.length);
      expect(ours.stopReason).toBe(sdk.message.stop_reason);
      expect(ours.usage.input_tokens).toBe(sdk.message.usage.input_tokens);
      expect(ours.usage.output_tokens).toBe(sdk.message.usage.output_tokens);
      // Each local call ran once, with exactly the input the SDK accumulated.
      const sdkCalls = plain(sdk.message.content).flatMap((b) =>
        b.type === "tool_use" ? [b] : [],
      );
      expect(runs.map(({ callId, name, input }) => ({ callId, name, input }))).toEqual(
        sdkCalls.map((b) => ({ callId: b.id, name: b.name, input: b.input })),
      );
      expectAnsweredContinuation(ours, name);
    });
  }

  for (const [fault, code, cuts] of [
    ["error-after", "stream_error", ANTHROPIC_CUTS],
    ["drop-after", "stream_interrupted", ANTHROPIC_CUTS],
  ] as const) {
    it(`${fault}=N: the SDK rejects, the round reports ${code} and keeps what the SDK had`, async () => {
      for (const n of cuts) {
        const label = `${fault}=${n}`;
        const { sdk, ours, runs, bytes } = await anthropicBoth(THREE_CALLS, `${fault}=${n}`);
        if (sdk.ok) throw new Error(`${label}: the SDK accepted a failed stream`);
        if (fault === "error-after") {
          expect(sdk.error, label).toBeInstanceOf(Anthropic.APIError);
          expect(String(sdk.error), label).toContain("overloaded_error");
        } else {
          expect(sdk.error, label).toBeInstanceOf(Anthropic.AnthropicError);
        }
        expect(ours.error?.code, label).toBe(code);
        expect(ours.stopReason, label).toBe("error");
        expectAnsweredContinuation(ours, label);

        // What overlap kept agrees with the SDK's snapshot at the failure.
        const snapshot = sdk.snapshot?.content ?? [];
        const texts = (blocks: readonly { type: string; text?: string }[]) =>
          plain(blocks).filter((b) => b.type === "text" && b.text?.trim());
        expect(texts(ours.assistant.content), label).toEqual(texts(snapshot));
        const sdkCalls = snapshot.flatMap((b, index) =>
          b.type === "tool_use" ? [{ index, id: b.id, name: b.name, block: b }] : [],
        );
        const ourCalls = toolUses(ours.assistant.content);
        expect(
          ourCalls.map((b) => [b.id, b.name]),
          label,
        ).toEqual(sdkCalls.map((c) => [c.id, c.name]));
        const stopped = stoppedIndexes(bytes);
        for (const call of sdkCalls) {
          const mine = ourCalls.find((b) => b.id === call.id)!;
          if (stopped.has(call.index)) {
            expect(mine.input, label).toEqual(plain(call.block.input));
          } else {
            // Arguments never completed: `{}`, an error result, never run.
            expect(mine.input, label).toEqual({});
            expect(
              runs.map((r) => r.callId),
              label,
            ).not.toContain(call.id);
            expect(ours.outcomes.find((o) => o.callId === call.id)?.isError, label).toBe(true);
          }
        }
        for (const run of runs) {
          expect(run.input, label).toEqual(ourCalls.find((b) => b.id === run.callId)?.input);
        }
      }
    });
  }

  it("invalid-json: the SDK's partial-JSON parser rejects the message; ours keeps it, answers the bad call with an error and never runs it", async () => {
    const { sdk, ours, runs } = await anthropicBoth(THREE_CALLS, "invalid-json");
    // `{"query": …, "filters": {…}, }`: the SDK's finalMessage() fails on the trailing comma.
    if (sdk.ok) throw new Error("the SDK accepted the invalid arguments");
    expect(String(sdk.error)).toMatch(/JSON/);
    expect(ours.error).toBeUndefined();
    expect(ours.stopReason).toBe("tool_use");
    const snapshot = sdk.snapshot!.content;
    expect(snapshot).toHaveLength(4);
    // Every block before the broken call is the same as the SDK's.
    expect(ours.assistant.content.slice(0, 3)).toEqual(plain(snapshot.slice(0, 3)));
    const bad = snapshot[3]!;
    if (bad.type !== "tool_use") throw new Error("the last block is not the call");
    expect(ours.assistant.content[3]).toEqual({
      type: "tool_use",
      id: bad.id,
      name: bad.name,
      input: {},
    });
    const result = ours.outcomes.at(-1)!;
    expect(result).toMatchObject({ callId: bad.id, isError: true, status: "invalid_input" });
    // The model is told exactly what it sent.
    expect(result.resultText).toContain(
      JSON.stringify('{"query": "red shoes", "filters": {"size": [41, 42], "inStock": true}, }'),
    );
    expect(runs.map((r) => r.name)).toEqual(["add_to_cart", "cart_total"]);
    expectAnsweredContinuation(ours, "invalid-json");
  });

  it("max-tokens: the SDK keeps a tolerant partial input; ours keeps {} plus an error result and never runs the call", async () => {
    const { sdk, ours, runs } = await anthropicBoth(THREE_CALLS, "max-tokens");
    if (!sdk.ok) throw sdk.error;
    expect(sdk.message.stop_reason).toBe("max_tokens");
    expect(ours.stopReason).toBe("max_tokens");
    expect(ours.error).toBeUndefined();
    const theirs = plain(sdk.message.content);
    const last = theirs.at(-1)!;
    if (last.type !== "tool_use") throw new Error("the last block is not the call");
    // The cut arguments `{"query": "red shoes", "filters": {` read tolerantly by the SDK…
    expect(last.input).toEqual({ query: "red shoes", filters: {} });
    // …and strictly by overlap: exactly that one difference.
    expect(ours.assistant.content).toEqual(theirs.with(-1, { ...last, input: {} }));
    expect(ours.outcomes.at(-1)).toMatchObject({
      callId: last.id,
      isError: true,
      status: "invalid_input",
    });
    expect(runs.map((r) => r.name)).toEqual(["add_to_cart", "cart_total"]);
    expectAnsweredContinuation(ours, "max-tokens");
  });
});

// ---------------------------------------------------------------------------------------------
// OpenAI

describe("conformance with the OpenAI SDK (chat.completions.stream().finalChatCompletion())", () => {
  // Thinking and server tools have no Chat Completions form: the sim leaves them out, and both
  // sides must agree on what remains.
  const complete: Array<[string, SimScript, string | undefined]> = [
    ["text only", TEXT_ONLY, undefined],
    ["several tool calls", THREE_CALLS, undefined],
    ["thinking (left out by Chat Completions)", THINKING, undefined],
    ["server tool (left out by Chat Completions)", WEB_SEARCH, undefined],
    ["quirk whole-call", THREE_CALLS, "whole-call"],
    ["quirk no-args (arguments omitted)", THREE_CALLS, "no-args"],
    ["quirk no-args=empty", THREE_CALLS, "no-args=empty"],
  ];
  for (const [name, script, quirk] of complete) {
    it(`${name}: the same text, calls, stop reason and token counts`, async () => {
      const { sdk, ours, runs } = await openaiBoth(script, quirk ? { quirk } : {});
      if (!sdk.ok) throw sdk.error;
      const choice = sdk.completion.choices[0]!;
      expect(ours.error).toBeUndefined();
      expect(ours.assistant.content).toEqual(chatBlocks(choice.message));
      expect(ours.stopReason).toBe(FINISH_TO_STOP[choice.finish_reason]);
      expect(ours.usage.input_tokens).toBe(sdk.completion.usage?.prompt_tokens);
      expect(ours.usage.output_tokens).toBe(sdk.completion.usage?.completion_tokens);
      const calls = toolUses(ours.assistant.content);
      expect(runs.map(({ callId, name, input }) => ({ callId, name, input }))).toEqual(
        calls.map((b) => ({ callId: b.id, name: b.name, input: b.input })),
      );
      expectAnsweredContinuation(ours, name);
    });
  }

  it("quirk index-zero: the SDK merges every call into one (it keys calls by index); ours keeps the three calls of the script", async () => {
    const { sdk, ours, runs, bytes } = await openaiBoth(THREE_CALLS, { quirk: "index-zero" });
    if (!sdk.ok) throw sdk.error;
    const ids = [...bytes.matchAll(/"id":"(call_[^"]+)"/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(3);
    // Compared with the script instead of the SDK, which cannot represent this stream.
    expect(ours.error).toBeUndefined();
    expect(ours.stopReason).toBe("tool_use");
    expect(ours.assistant.content).toEqual([
      THREE_CALLS.blocks[0],
      ...THREE_CALLS.blocks.slice(1).map((b, i) => ({ ...b, id: ids[i] })),
    ]);
    expect(runs.map((r) => [r.callId, r.name])).toEqual([
      [ids[0], "add_to_cart"],
      [ids[1], "cart_total"],
      [ids[2], "search"],
    ]);
    // The SDK's view, for the record: one call with the last id and name, arguments concatenated.
    const message = sdk.completion.choices[0]!.message;
    expect(message.tool_calls).toHaveLength(1);
    expect(message.tool_calls?.[0]).toMatchObject({
      id: ids[2],
      function: {
        name: "search",
        arguments:
          '{"sku":"SHOE-42","qty":2,"note":"gift"}{}{"query":"red shoes","filters":{"size":[41,42],"inStock":true}}',
      },
    });
    expectAnsweredContinuation(ours, "index-zero");
  });

  // Interleaved fragments (all calls started in one chunk, then their arguments side by side): a
  // call completes only once a chunk brings nothing more for it, so no argument is lost. Calls
  // may then start in another order than the call order (each starts when complete); each runs
  // once with its full input, and results still come back in call order.
  it("quirk multi-call-chunk: the same text, calls and stop reason as the SDK", async () => {
    const { sdk, ours, runs } = await openaiBoth(THREE_CALLS, { quirk: "multi-call-chunk" });
    if (!sdk.ok) throw sdk.error;
    const choice = sdk.completion.choices[0]!;
    expect(ours.error).toBeUndefined();
    expect(ours.assistant.content).toEqual(chatBlocks(choice.message));
    expect(ours.stopReason).toBe(FINISH_TO_STOP[choice.finish_reason]);
    const sorted = (inputs: unknown[]) => inputs.map((i) => JSON.stringify(i)).sort();
    expect(sorted(runs.map((r) => r.input))).toEqual(
      sorted(THREE_CALLS.blocks.flatMap((b) => (b.type === "tool_use" ? [b.input] : []))),
    );
    expect(ours.outcomes.map((o) => o.callId)).toEqual(
      ours.assistant.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])),
    );
  });

  for (const [fault, code, cuts] of [
    ["error-after", "stream_error", OPENAI_CUTS],
    ["drop-after", "stream_interrupted", OPENAI_CUTS],
  ] as const) {
    it(`${fault}=N: the SDK rejects, the round reports ${code} and keeps what the SDK had`, async () => {
      for (const n of cuts) {
        const label = `${fault}=${n}`;
        const { sdk, ours, runs } = await openaiBoth(THREE_CALLS, { fault: `${fault}=${n}` });
        if (sdk.ok) throw new Error(`${label}: the SDK accepted a failed stream`);
        if (fault === "error-after") expect(sdk.error, label).toBeInstanceOf(OpenAI.APIError);
        else expect(sdk.error, label).toBeInstanceOf(OpenAI.OpenAIError);
        expect(ours.error?.code, label).toBe(code);
        expect(ours.stopReason, label).toBe("error");
        expectAnsweredContinuation(ours, label);

        const snapshot = sdk.snapshot?.choices[0]?.message ?? {};
        const finished = sdk.snapshot?.choices[0]?.finish_reason != null;
        const theirs = chatBlocks(snapshot) as Array<{ type: string; input?: unknown }>;
        const mine = ours.assistant.content;
        // Same text and the same calls (ids, names) as the SDK's snapshot…
        expect(
          mine.map((b) => (b.type === "tool_use" ? { ...b, input: "?" } : b)),
          label,
        ).toEqual(theirs.map((b) => (b.type === "tool_use" ? { ...b, input: "?" } : b)));
        // …with the inputs of completed calls; the last call completes only with finish_reason
        // (never because its arguments happen to parse), so before it: `{}`, never run.
        mine.forEach((block, i) => {
          if (block.type !== "tool_use") return;
          const isLast = i === mine.length - 1;
          if (isLast && !finished) {
            expect(block.input, label).toEqual({});
            expect(
              runs.map((r) => r.callId),
              label,
            ).not.toContain(block.id);
          } else {
            expect(block.input, label).toEqual(theirs[i]?.input);
          }
        });
        for (const run of runs) {
          expect(run.input, label).toEqual(toolUses(mine).find((b) => b.id === run.callId)?.input);
        }
      }
    });
  }

  for (const fault of ["invalid-json", "max-tokens"] as const) {
    it(`${fault}: the SDK keeps the raw arguments text; ours keeps {} plus an error result and never runs the call`, async () => {
      const { sdk, ours, runs } = await openaiBoth(THREE_CALLS, { fault });
      if (!sdk.ok) throw sdk.error;
      const choice = sdk.completion.choices[0]!;
      expect(ours.stopReason).toBe(FINISH_TO_STOP[choice.finish_reason]);
      expect(ours.stopReason).toBe(fault === "max-tokens" ? "max_tokens" : "tool_use");
      expect(ours.error).toBeUndefined();
      const theirs = chatBlocks(choice.message) as Array<{ type: string; input: unknown }>;
      const last = theirs.at(-1)!;
      // The OpenAI SDK does not parse arguments of non-strict tools: the text as received.
      const raw = last.input;
      expect(typeof raw).toBe("string");
      expect(raw).toBe(
        fault === "invalid-json"
          ? '{"query":"red shoes","filters":{"size":[41,42],"inStock":true}, }'
          : '{"query":"red shoes","filters":',
      );
      expect(ours.assistant.content).toEqual(theirs.with(-1, { ...last, input: {} }));
      const outcome = ours.outcomes.at(-1)!;
      expect(outcome).toMatchObject({ isError: true, status: "invalid_input" });
      expect(outcome.resultText).toContain(JSON.stringify(raw));
      expect(runs.map((r) => r.name)).toEqual(["add_to_cart", "cart_total"]);
      expectAnsweredContinuation(ours, fault);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// OpenAI quirks: the sim's raw bytes in many chunkings

function assemble(events: readonly StreamEvent[]) {
  const assembler = new BlockAssembler();
  const reports = events.flatMap((e) => [...assembler.push(e)]);
  const end = reports.find((r) => r.type === "message-end");
  if (end?.type !== "message-end") throw new Error("the message never ended");
  const calls = reports.flatMap((r) => (r.type === "tool-call" ? [r.callId] : []));
  return { message: end.message, stopReason: end.stopReason, calls };
}

const CHUNKINGS = 40;

/** Records the sim's raw SSE for a quirk (fetch) and the SDK's accumulation of the same bytes. */
async function recordQuirk(quirk: string) {
  return withSim({ policy: () => THREE_CALLS }, async (sim) => {
    const { executor } = recordingTools();
    const params = chatParams({ messages: [ASK], tools: executor.specs() }, { model: MODEL });
    const headers: Record<string, string> = quirk ? { "x-sim-quirk": quirk } : {};
    const response = await fetch(`${sim.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(params),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const capture: Capture = { requests: [], responses: [] };
    const client = openaiClient(sim, { quirk, capture });
    const completion = await client.chat.completions.stream(params).finalChatCompletion();
    expect(capture.requests[0]).toBe(JSON.stringify(params));
    expect(withoutCreated(await capture.responses[0]!)).toBe(withoutCreated(text));
    return { text, completion };
  });
}

describe("OpenAI quirks: the sim's raw SSE through ChatChunkTranslator in many chunkings", () => {
  const quirks = ["", "index-zero", "whole-call", "multi-call-chunk", "no-args", "no-args=empty"];

  for (const quirk of quirks) {
    it(`${quirk || "no quirk"}: the same message, stop reason and call order in ${CHUNKINGS} chunkings`, async () => {
      const { text } = await recordQuirk(quirk);
      const whole = assemble(replayChatChunks([text]));
      for (let seed = 1; seed <= CHUNKINGS; seed++) {
        const pieces = splitSeeded(text, seed, 1 + (seed % 8) * 13);
        expect(pieces.length).toBeGreaterThan(1);
        expect(assemble(replayChatChunks(pieces)), `seed ${seed}`).toEqual(whole);
      }
    });
  }

  for (const quirk of ["", "whole-call", "no-args", "no-args=empty"]) {
    it(`${quirk || "no quirk"}: equals the SDK's finalChatCompletion()`, async () => {
      const { text, completion } = await recordQuirk(quirk);
      const choice = completion.choices[0]!;
      const ours = assemble(replayChatChunks(splitSeeded(text, 7, 29)));
      expect(ours.message.content).toEqual(chatBlocks(choice.message));
      expect(ours.stopReason).toBe(FINISH_TO_STOP[choice.finish_reason]);
    });
  }

  it("index-zero: the SDK cannot represent it; equals the script (ids from the stream)", async () => {
    const { text, completion } = await recordQuirk("index-zero");
    expect(completion.choices[0]!.message.tool_calls).toHaveLength(1); // the SDK's merge
    const ids = [...text.matchAll(/"id":"(call_[^"]+)"/g)].map((m) => m[1]);
    const ours = assemble(replayChatChunks(splitSeeded(text, 11, 17)));
    expect(ours.message.content).toEqual([
      THREE_CALLS.blocks[0],
      ...THREE_CALLS.blocks.slice(1).map((b, i) => ({ ...b, id: ids[i] })),
    ]);
    expect(ours.calls).toEqual(ids);
    expect(ours.stopReason).toBe("tool_use");
  });

  // Library bug (see the conformance test above): interleaved call fragments.
  it("multi-call-chunk: equals the SDK's finalChatCompletion()", async () => {
    const { text, completion } = await recordQuirk("multi-call-chunk");
    const choice = completion.choices[0]!;
    const ours = assemble(replayChatChunks(splitSeeded(text, 7, 29)));
    expect(ours.message.content).toEqual(chatBlocks(choice.message));
  });
});
