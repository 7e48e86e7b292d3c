/**
 * Real recorded streams (the directory `OVERLAP_REALSTREAMS_DIR` names, else `../shared/realstreams`
 * relative to the repository root; read in place, never copied) replayed through the real adapters and the official SDKs, the way a server would
 * send them: every response of every recorded conversation is served, as raw bytes, by a fake
 * `fetch` given to `new Anthropic(...)` / `new OpenAI(...)`; `anthropicModel` / `openaiChatModel`
 * read it like any HTTP answer, and `runAgentTurn` drives the conversation (response K answers
 * the K-th request of the turn). The bytes are delivered whole and in three seeded random
 * chunkings (1..7, 1..64 and 1..512 bytes per read), which also cut inside multi-byte UTF-8
 * characters (checked below).
 *
 * The truth for each response is an accumulation of the same bytes that owes nothing to overlap:
 * - Anthropic: the official SDK's own, `client.beta.messages.stream(...).finalMessage()`. The beta
 *   stream, because the non-beta `MessageStream` ignores `input_json_delta` of `mcp_tool_use`
 *   blocks and `compaction_delta` (both handled by the beta one, which is otherwise the same).
 *   Its blocks are compared block by block after a JSON round trip (which drops the SDK's
 *   non-enumerable `__json_buf` / `parsed_output`): every field the API sent, same value.
 * - Chat Completions: our own careful accumulation ({@link accumulateChat}), not the SDK's
 *   `chat.completions.stream().finalChatCompletion()`, which mishandles two recordings (asserted
 *   at the end of this file): `vercel-mistral-tool` sends its call without `index` (and without
 *   `type`), which the SDK files under `tool_calls["undefined"]` and then loses;
 *   `vercel-mistral-incremental-tool` never sends `role`, and the SDK rejects the whole message
 *   ("missing role for choice 0"). Everywhere else the two accumulations agree (also asserted).
 *   Our message is mapped back for the comparison: text blocks joined = `content` (whitespace-only
 *   stretches between calls are not kept as blocks), thinking blocks joined = reasoning, refusal
 *   (a text or a refusal block) = `refusal`, tool_use blocks = the calls in order with their ids,
 *   names and `JSON.parse` of their argument text.
 *
 * Per fixture and chunking, the turn must: give each response's message as the truth has it (and
 * store it so in `turn.messages`, continuing the assistant message after `pause_turn`), with the
 * truth's stop reason; run every client tool exactly once, in call order, with its input; answer
 * every call in the next request; end as the recording does (the last response's stop reason; a
 * conversation whose recording stops after a tool_use ends at `maxRounds`, which is the number of
 * recorded responses; a stream `error` ends the turn with `stream_error`); and leave a conversation
 * that passes `validateConversation`.
 *
 * The one normalisation: whitespace-only text blocks are left out of the truth (the runtime never
 * keeps them: the API rejects them in a request). The recordings hold one, in
 * `pydantic-anthropic-pause-turn` r2, a `" "` between two cited sentences.
 *
 * Before commit 7daeecf ("Real-stream fidelity") 12 fixtures failed here: `caller` dropped from
 * tool_use / server_tool_use blocks (9 Anthropic fixtures), `compaction_delta` ignored,
 * `pydantic-anthropic-mcp` (input_json_delta of mcp_tool_use: stream_protocol),
 * `vercel-anthropic-programmatic-tools` (tool_use blocks and stop_reason inside message_start
 * dropped: the turn ended after two requests instead of 15) and `openai-node-refusal`
 * (delta.refusal dropped).
 */

import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runAgentTurn } from "../agent/run-agent-turn.js";
import { validateConversation } from "../agent/validate-conversation.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import type { AssistantContentBlock, Message, UserMessage } from "../stream/message.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { anthropicModel } from "./anthropic/anthropic.js";
import { openaiChatModel } from "./openai/openai.js";
import { openaiResponsesModel, responsesParams } from "./openai/openai-responses.js";
import {
  type Chunking,
  deliveries,
  REALSTREAMS_DIR,
  recordedFetch,
  seedOf,
  splitBytes,
} from "./realstreams.testkit.js";

// ---------------------------------------------------------------------------------------------
// The recordings

const FIXTURES = resolve(REALSTREAMS_DIR, "fixtures");

type Format = "anthropic" | "chat";

interface Fixture {
  name: string;
  format: Format;
  /** Raw SSE bodies, response 1 first. */
  bodies: Uint8Array[];
}

function loadFixtures(): Fixture[] | undefined {
  const manifest = resolve(FIXTURES, "manifest.json");
  if (!existsSync(manifest)) return undefined;
  const entries = JSON.parse(readFileSync(manifest, "utf8")) as Array<{
    name: string;
    format: string;
    responses: string[];
  }>;
  return entries.map((entry) => {
    if (entry.format !== "anthropic" && entry.format !== "chat") {
      throw new Error(`${entry.name}: unknown format "${entry.format}" in the manifest`);
    }
    return {
      name: entry.name,
      format: entry.format,
      bodies: entry.responses.map((path) => new Uint8Array(readFileSync(resolve(FIXTURES, path)))),
    };
  });
}

const fixtures = loadFixtures();

/** Recordings whose stream carries an error: the turn must end with `stream_error`. */
const STREAM_ERROR_FIXTURES: ReadonlySet<string> = new Set([
  "pydantic-groq-error-event", // `event: error` (tool_use_failed) after reasoning
  "pydantic-openrouter-error-after-finish", // finish_reason twice, then a chunk carrying `error`
]);

/** The Chat recordings the openai SDK's finalChatCompletion() gets wrong (see the header). */
const SDK_MISHANDLED_CHAT: ReadonlySet<string> = new Set([
  "vercel-mistral-tool",
  "vercel-mistral-incremental-tool",
]);

// ---------------------------------------------------------------------------------------------
// Delivery: whole, or cut into seeded random byte chunks

const CHUNKINGS: readonly Chunking[] = [
  { label: "whole", maxChunk: undefined },
  { label: "1..7 bytes", maxChunk: 7 },
  { label: "1..64 bytes", maxChunk: 64 },
  { label: "1..512 bytes", maxChunk: 512 },
];

/** Chunk boundaries that fall inside a multi-byte UTF-8 character. */
function cutsInsideCharacters(chunks: readonly Uint8Array[]): number {
  let cuts = 0;
  for (const chunk of chunks.slice(1)) {
    const first = chunk[0];
    if (first !== undefined && (first & 0xc0) === 0x80) cuts++;
  }
  return cuts;
}

const MODEL = "recorded";
const PROMPT = "Replay the recorded conversation.";
const ASK: UserMessage = { role: "user", content: PROMPT };

function anthropicClient(responses: readonly (readonly Uint8Array[])[], requests: string[]) {
  return new Anthropic({
    apiKey: "x",
    maxRetries: 0,
    fetch: recordedFetch(responses, requests) as unknown as typeof fetch,
  });
}

function openaiClient(responses: readonly (readonly Uint8Array[])[], requests: string[]) {
  return new OpenAI({
    apiKey: "x",
    maxRetries: 0,
    fetch: recordedFetch(responses, requests) as unknown as typeof fetch,
  });
}

/** A JSON round trip: plain data only (drops the SDK's non-enumerable bookkeeping). */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

// ---------------------------------------------------------------------------------------------
// The truth, Anthropic: the official SDK's accumulation

type Block = Record<string, unknown> & { type: string };

interface Truth {
  /** The assistant content the response must produce, block by block (Anthropic). */
  blocks?: Block[];
  /** The Chat accumulation (Chat). */
  chat?: ChatTruth;
  /** The stop reason in the Messages API's vocabulary; "error" for a stream error. */
  stopReason: string;
  /** Client tool calls in call order, with the input each must run with. */
  calls: Array<{ id: string | undefined; name: string; input: unknown }>;
}

async function anthropicTruth(body: Uint8Array): Promise<Truth> {
  const client = anthropicClient([[body]], []);
  const message = await client.beta.messages
    .stream({ model: MODEL, max_tokens: 1024, messages: [{ role: "user", content: PROMPT }] })
    .finalMessage();
  // The one normalisation: a whitespace-only text block is never kept (the API rejects such
  // blocks in a request, so the runtime drops them and validateConversation flags them).
  const blocks = (plain(message.content) as unknown as Block[]).filter(
    (b) => !(b.type === "text" && String(b.text).trim() === ""),
  );
  return {
    blocks,
    stopReason: String(message.stop_reason),
    calls: blocks.flatMap((b) =>
      b.type === "tool_use" ? [{ id: String(b.id), name: String(b.name), input: b.input }] : [],
    ),
  };
}

// ---------------------------------------------------------------------------------------------
// The truth, Chat Completions: an independent accumulation of the chunks

interface ChatCallTruth {
  /** The server's id (absent when it sent none, or only `""`). */
  id: string | undefined;
  /** The first non-empty name: names are never appended (`name: ""` on later fragments). */
  name: string | undefined;
  /** Every `arguments` fragment, concatenated. */
  args: string;
}

interface ChatTruth {
  /** `content`, cut where a call starts (our text blocks end there). */
  segments: string[];
  refusal: string;
  /** `reasoning_content`, or `reasoning` for servers that call it so. */
  reasoning: string;
  calls: ChatCallTruth[];
  finishReason: string | undefined;
  /** An error the stream carried (`event: error`, or a chunk with `error`): the stream ends. */
  error: unknown;
}

/** The WHATWG event-stream rules, whole text at once: frames as { event, data }. */
function sseFrames(text: string): Array<{ event: string | undefined; data: string }> {
  const frames: Array<{ event: string | undefined; data: string }> = [];
  let event: string | undefined;
  let data: string[] = [];
  for (const line of text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/)) {
    if (line === "") {
      if (data.length > 0) frames.push({ event, data: data.join("\n") });
      event = undefined;
      data = [];
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") event = value;
  }
  if (data.length > 0) frames.push({ event, data: data.join("\n") });
  return frames;
}

interface RawChunk {
  error?: unknown;
  choices?: Array<{
    index?: number;
    finish_reason?: string | null;
    delta?: {
      content?: string | null;
      refusal?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: Array<{
        index?: number;
        id?: string | null;
        function?: { name?: string | null; arguments?: string | null } | null;
      }> | null;
    } | null;
  }> | null;
}

/**
 * Accumulates a Chat Completions stream the way the API defines it, with the server variations
 * the translator documents (chat-chunk-translator.ts): only choice 0 is the conversation; a call
 * fragment belongs to the open call at its `index` (absent: 0) unless it brings a new, non-empty
 * id, which starts another call (servers that put every call at index 0); `id: ""` is no id; the
 * name is the first non-empty one; arguments are concatenated; after finish_reason every call is
 * closed. A chunk carrying `error`, or an `event: error` frame, ends the stream there (as both the
 * SDK and the adapter stop reading).
 */
function accumulateChat(body: Uint8Array): ChatTruth {
  const truth: ChatTruth = {
    segments: [""],
    refusal: "",
    reasoning: "",
    calls: [],
    finishReason: undefined,
    error: undefined,
  };
  const open = new Map<number, ChatCallTruth>();
  const append = (text: string) => {
    truth.segments[truth.segments.length - 1] += text;
  };
  for (const frame of sseFrames(new TextDecoder().decode(body))) {
    if (frame.data === "[DONE]") continue;
    const chunk = JSON.parse(frame.data) as RawChunk;
    if (frame.event === "error" || chunk.error != null) {
      truth.error = chunk.error ?? chunk;
      break;
    }
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      const delta = choice.delta ?? {};
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (reasoning) truth.reasoning += reasoning;
      if (delta.content) append(delta.content);
      if (delta.refusal) truth.refusal += delta.refusal;
      for (const fragment of delta.tool_calls ?? []) {
        const index = fragment.index ?? 0;
        const id = fragment.id || undefined;
        let call = open.get(index);
        if (!call || (id !== undefined && id !== call.id)) {
          call = { id, name: undefined, args: "" };
          truth.calls.push(call);
          open.set(index, call);
          truth.segments.push("");
        }
        if (call.name === undefined && fragment.function?.name) call.name = fragment.function.name;
        call.args += fragment.function?.arguments ?? "";
      }
      if (choice.finish_reason) {
        truth.finishReason = choice.finish_reason;
        open.clear();
        truth.segments.push("");
      }
    }
  }
  return truth;
}

/** Chat finish reasons in the Messages API's vocabulary. */
const FINISH_TO_STOP: Readonly<Record<string, string>> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  function_call: "tool_use",
  length: "max_tokens",
  content_filter: "refusal",
};

/** A call without parameters sends `""`: `{}`. */
function parseArguments(args: string): unknown {
  return args.trim() === "" ? {} : (JSON.parse(args) as unknown);
}

function chatTruth(body: Uint8Array): Truth {
  const chat = accumulateChat(body);
  let stopReason: string;
  if (chat.error !== undefined) stopReason = "error";
  else if (chat.refusal !== "") stopReason = "refusal";
  else stopReason = FINISH_TO_STOP[chat.finishReason ?? ""] ?? "end_turn";
  return {
    chat,
    stopReason,
    // A stream error leaves no complete call (checked in the test: the recordings have none).
    calls:
      chat.error !== undefined
        ? []
        : chat.calls.map((c) => ({
            id: c.id,
            name: c.name ?? "unnamed_tool",
            input: parseArguments(c.args),
          })),
  };
}

/** Our Chat message mapped back to the accumulation's terms. */
function chatView(content: readonly AssistantContentBlock[]) {
  const blocks = content as unknown as Block[];
  const textOf = (b: Block) => String(b.text ?? b.refusal ?? "");
  return {
    text: blocks
      .filter((b) => b.type === "text")
      .map(textOf)
      .join(""),
    refusal: blocks
      .filter((b) => b.type === "refusal")
      .map(textOf)
      .join(""),
    thinking: blocks
      .filter((b) => b.type === "thinking")
      .map((b) => String(b.thinking))
      .join(""),
    calls: blocks
      .filter((b) => b.type === "tool_use")
      .map((b) => ({ id: b.id, name: b.name, input: b.input })),
    others: blocks
      .map((b) => b.type)
      .filter((t) => !["text", "refusal", "thinking", "tool_use"].includes(t)),
  };
}

/** What our Chat message must look like, in {@link chatView}'s terms. */
function expectedChatView(truth: ChatTruth, errored: boolean) {
  // Whitespace-only text is never kept as a block; an interrupted message keeps no unsigned
  // thinking (Chat reasoning has no signature).
  const text = truth.segments.filter((s) => s.trim() !== "").join("");
  return {
    visible: text + truth.refusal,
    thinking: errored ? "" : truth.reasoning,
  };
}

const truths = new Map<string, Promise<Truth>>();

/** The truth of one response, computed once from its whole bytes. */
function truthOf(fixture: Fixture, k: number): Promise<Truth> {
  const key = `${fixture.name}/${k}`;
  let truth = truths.get(key);
  if (!truth) {
    const body = fixture.bodies[k]!;
    truth =
      fixture.format === "anthropic" ? anthropicTruth(body) : Promise.resolve(chatTruth(body));
    truths.set(key, truth);
  }
  return truth;
}

/** The call ids a request body answers: Messages `tool_result` blocks, or Chat `tool` messages. */
function resultIdsIn(body: string): string[] {
  const { messages } = JSON.parse(body) as {
    messages: Array<{ role: string; tool_call_id?: string; content?: unknown }>;
  };
  return messages.flatMap((message) => {
    if (message.role === "tool" && message.tool_call_id) return [message.tool_call_id];
    if (message.role !== "user" || !Array.isArray(message.content)) return [];
    return (message.content as Block[]).flatMap((b) =>
      b.type === "tool_result" ? [String(b.tool_use_id)] : [],
    );
  });
}

// ---------------------------------------------------------------------------------------------
// The turn

interface Run {
  callId: string;
  name: string;
  input: unknown;
}

function recordingExecutor(names: ReadonlySet<string>) {
  const runs: Run[] = [];
  const tools = [...names].map((name) =>
    defineTool({
      name,
      description: `Recorded tool ${name}.`,
      input: z.looseObject({}),
      run: (input, ctx) => {
        runs.push({ callId: ctx.callId, name, input });
        return `${name} ok`;
      },
    }),
  );
  return { executor: new ToolExecutor(tools, { abortGraceMs: 5 }), runs };
}

async function replayTurn(fixture: Fixture, chunking: Chunking) {
  const truth = await Promise.all(fixture.bodies.map((_, k) => truthOf(fixture, k)));
  const names = new Set(truth.flatMap((t) => t.calls.map((c) => c.name)));
  const { executor, runs } = recordingExecutor(names);
  const requests: string[] = [];
  const responses = deliveries(fixture, chunking);
  const model =
    fixture.format === "anthropic"
      ? anthropicModel({ client: anthropicClient(responses, requests), model: MODEL })
      : openaiChatModel({ client: openaiClient(responses, requests), model: MODEL });
  const events: AgentEvent[] = [];
  const turn = await runAgentTurn({
    model,
    executor,
    messages: [ASK],
    sink: (event) => events.push(event),
    // A recording that ends after a tool_use would be asked again: stop at its last response.
    maxRounds: fixture.bodies.length,
  });
  return { truth, turn, runs, requests, events };
}

// ---------------------------------------------------------------------------------------------
// Tests

if (!fixtures) {
  const message = `Real recorded streams not found at ${FIXTURES} (set OVERLAP_REALSTREAMS_DIR to the directory holding fixtures/): realstreams.test.ts tests nothing.`;
  if (process.env.CI === "true") {
    it("the real recorded streams are present (required under CI)", () => {
      throw new Error(message);
    });
  } else {
    console.warn(`\n!!! ${message}\n`);
    it.skip(`real recorded streams (missing: ${FIXTURES})`, () => {});
  }
} else {
  const all = fixtures;

  describe("real recorded streams through the SDKs, the adapters and runAgentTurn", () => {
    it("the recordings: 40 conversations; errors only where tagged; no call id reused", async () => {
      expect(all).toHaveLength(40);
      for (const fixture of all) {
        const truth = await Promise.all(fixture.bodies.map((_, k) => truthOf(fixture, k)));
        const stops = truth.map((t) => t.stopReason);
        // A stream error only in the tagged fixtures, in their last response, before any call.
        expect(stops.includes("error"), fixture.name).toBe(STREAM_ERROR_FIXTURES.has(fixture.name));
        expect(stops.slice(0, -1), fixture.name).not.toContain("error");
        for (const t of truth) if (t.stopReason === "error") expect(t.chat?.calls).toEqual([]);
        // Ids are compared as the server sent them: none needs the `_dup` renaming.
        const ids = truth.flatMap((t) => t.calls.flatMap((c) => (c.id ? [c.id] : [])));
        expect(new Set(ids).size, fixture.name).toBe(ids.length);
      }
    });

    it("the random chunkings cut inside multi-byte UTF-8 characters", () => {
      const cuts = CHUNKINGS.filter((c) => c.maxChunk !== undefined).map((chunking) =>
        all
          .flatMap((fixture) => deliveries(fixture, chunking))
          .reduce((sum, chunks) => sum + cutsInsideCharacters(chunks), 0),
      );
      // Non-ASCII is rare in the recordings: 37 cuts inside characters with 1..7-byte reads.
      expect(cuts[0], "1..7 bytes").toBeGreaterThan(20);
      for (const n of cuts) expect(n).toBeGreaterThan(0);
    });

    for (const fixture of all) {
      for (const chunking of CHUNKINGS) {
        it(`${fixture.name} (${fixture.format}, ${fixture.bodies.length} responses), ${chunking.label}`, async () => {
          const { truth, turn, runs, requests, events } = await replayTurn(fixture, chunking);
          const last = truth.at(-1)!;
          const errored = last.stopReason === "error";
          const rounds = fixture.bodies.length;

          const expectedConversation: Message[] = [ASK];
          let continuesPause = false;
          turn.rounds.forEach((round, k) => {
            const label = `${fixture.name} r${k + 1} (${chunking.label})`;
            const t = truth[k]!;
            expect(round.stopReason, `${label}: stop reason`).toBe(t.stopReason);
            let content: AssistantContentBlock[];
            if (t.blocks) {
              // Anthropic: the SDK's blocks, block by block, every field with its value.
              const ours = plain(round.assistant.content) as unknown as Block[];
              for (let b = 0; b < Math.max(ours.length, t.blocks.length); b++) {
                expect(ours[b], `${label}: block ${b}`).toEqual(t.blocks[b]);
              }
              content = t.blocks as unknown as AssistantContentBlock[];
            } else {
              const chat = t.chat!;
              const view = chatView(round.assistant.content);
              const want = expectedChatView(chat, t.stopReason === "error");
              expect(view.others, `${label}: block types`).toEqual([]);
              expect(view.text + view.refusal, `${label}: content + refusal`).toBe(want.visible);
              if (view.refusal !== "") expect(view.refusal, `${label}: refusal`).toBe(chat.refusal);
              expect(view.thinking, `${label}: reasoning`).toBe(want.thinking);
              expect(view.calls, `${label}: calls`).toEqual(
                t.calls.map((c) => ({
                  id: c.id ?? expect.any(String),
                  name: c.name,
                  input: c.input,
                })),
              );
              content = round.assistant.content;
            }
            // The conversation as stored: after pause_turn the same assistant message continues.
            const previous = expectedConversation.at(-1);
            if (content.length > 0) {
              if (continuesPause && previous?.role === "assistant") {
                expectedConversation[expectedConversation.length - 1] = {
                  role: "assistant",
                  content: [...previous.content, ...content],
                };
              } else {
                expectedConversation.push({ role: "assistant", content });
              }
            }
            const calls = content.flatMap((b) => (b.type === "tool_use" ? [b] : []));
            if (calls.length > 0) {
              expectedConversation.push({
                role: "user",
                content: calls.map((c) => ({
                  type: "tool_result" as const,
                  tool_use_id: c.id,
                  content: `${c.name} ok`,
                })),
              });
              // The next request carries the results (the last round's, when the recording
              // stops after a tool_use, are stored but never sent: maxRounds).
              const next = requests[k + 1];
              if (next !== undefined) {
                expect(resultIdsIn(next), `${label}: results sent`).toEqual(
                  expect.arrayContaining(calls.map((c) => c.id)),
                );
              }
            }
            continuesPause = t.stopReason === "pause_turn";
          });
          // One request per recorded response, each round answering the one before.
          expect(turn.rounds, "rounds").toHaveLength(rounds);
          expect(requests, "requests").toHaveLength(rounds);
          expect(plain(turn.messages), "the stored conversation").toEqual(
            plain(expectedConversation),
          );

          // Every client tool ran exactly once, in call order, with the input the API sent.
          const ids = turn.rounds.flatMap((round) =>
            round.assistant.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])),
          );
          expect(runs, "tool runs").toEqual(
            truth
              .flatMap((t) => t.calls)
              .map((c, i) => ({ callId: c.id ?? ids[i], name: c.name, input: c.input })),
          );
          expect(new Set(runs.map((r) => r.callId)).size).toBe(runs.length);

          // The turn ends as the recording does.
          if (errored) {
            // A provider `error` mid-stream: a neutral error event, the round repairs, the turn
            // stops with stream_error (never a crash, never a retry).
            expect(turn.error?.code, "turn error").toBe("stream_error");
            expect(turn.stopReason).toBe("error");
            expect(events.at(-2)).toMatchObject({ type: "error", code: "stream_error" });
          } else if (last.stopReason === "tool_use") {
            expect(turn.error?.code, "turn error").toBe("max_rounds");
            expect(turn.stopReason).toBe("tool_use");
          } else {
            expect(turn.error, "turn error").toBeUndefined();
            expect(turn.stopReason).toBe(last.stopReason);
          }
          expect(events.at(-1)).toMatchObject({
            type: "done",
            roundCount: rounds,
            stopReason: turn.stopReason,
          });
          expect(validateConversation(turn.messages), "validateConversation").toEqual([]);
        });
      }
    }
  });

  describe("the openai SDK's own accumulation (finalChatCompletion) against ours", () => {
    /** The SDK's message in our accumulation's terms (reasoning aside: the SDK overwrites it). */
    const sdkView = (completion: OpenAI.Chat.ChatCompletion) => {
      const choice = completion.choices[0];
      return {
        content: choice?.message.content ?? "",
        refusal: choice?.message.refusal ?? "",
        calls: (choice?.message.tool_calls ?? []).map((c) =>
          c.type === "function"
            ? { id: c.id, name: c.function.name, args: c.function.arguments }
            : c,
        ),
        finish: choice?.finish_reason,
      };
    };
    const oursView = (truth: ChatTruth) => ({
      content: truth.segments.join(""),
      refusal: truth.refusal,
      calls: truth.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
      finish: truth.finishReason,
    });

    for (const fixture of all.filter((f) => f.format === "chat")) {
      const what = SDK_MISHANDLED_CHAT.has(fixture.name)
        ? "the SDK gets it wrong"
        : STREAM_ERROR_FIXTURES.has(fixture.name)
          ? "both stop at the stream's error"
          : "the same message";
      it(`${fixture.name}: ${what}`, async () => {
        for (const [k, body] of fixture.bodies.entries()) {
          const label = `${fixture.name} r${k + 1}`;
          const ours = accumulateChat(body);
          const sdk = await openaiClient([[body]], [])
            .chat.completions.stream({
              model: MODEL,
              messages: [{ role: "user", content: PROMPT }],
            })
            .finalChatCompletion()
            .then(
              (completion) => ({ ok: true as const, completion }),
              (error: unknown) => ({ ok: false as const, error }),
            );
          if (ours.error !== undefined) {
            if (sdk.ok) throw new Error(`${label}: the SDK accepted a stream carrying an error`);
            expect(sdk.error, label).toBeInstanceOf(OpenAI.APIError);
          } else if (fixture.name === "vercel-mistral-tool") {
            // The call has no `index`: the SDK keeps it at tool_calls["undefined"], then drops it.
            if (!sdk.ok) throw sdk.error;
            expect(sdkView(sdk.completion).calls, label).toEqual([]);
            expect(oursView(ours).calls, label).toEqual([
              {
                id: "gSIMJiOkT",
                name: "weather",
                args: '{"location": "San Francisco"}',
              },
            ]);
          } else if (fixture.name === "vercel-mistral-incremental-tool") {
            // No chunk carries `role`: the SDK rejects the message.
            if (sdk.ok) throw new Error(`${label}: the SDK now accepts it`);
            expect(String(sdk.error), label).toContain("missing role for choice 0");
            expect(ours.calls, label).toHaveLength(1);
          } else {
            if (!sdk.ok) throw sdk.error;
            expect(oursView(ours), label).toEqual(sdkView(sdk.completion));
          }
        }
      });
    }
  });
}

// ---------------------------------------------------------------------------------------------
// formats/: the OpenAI Responses recordings, through the SDK, openaiResponsesModel and
// runAgentTurn, against the outcome read off their bytes (expected.json) and the items they hold

const FORMATS = resolve(REALSTREAMS_DIR, "formats");

/** One response of an `expected.json` (see formats/README.md). */
interface ExpectedRound {
  /** The text of each message part. */
  text: string[];
  thinking: string;
  calls: Array<{ id: string; name: string; input: unknown }>;
  /** Provider-side items, in output order. */
  server: Array<{ type: string; id: string; name?: string }>;
  reasoningItems: number;
  /** null for a stream error. */
  stop: string | null;
  error: { type: string; message: string } | null;
  usage: { input: number; output: number } | null;
  /** Reasoning items carrying `encrypted_content`. */
  signatures: number;
  /** `output_text` annotations; absent when none. */
  citations?: number;
}

interface ResponsesFixture {
  name: string;
  bodies: Uint8Array[];
  expected: ExpectedRound[];
}

function loadResponsesFixtures(): ResponsesFixture[] | undefined {
  const manifest = resolve(FORMATS, "manifest.json");
  if (!existsSync(manifest)) return undefined;
  const entries = JSON.parse(readFileSync(manifest, "utf8")) as Array<{
    name: string;
    format: string;
    responses: string[];
  }>;
  return entries
    .filter((entry) => entry.format === "responses")
    .map((entry) => ({
      name: entry.name,
      bodies: entry.responses.map((path) => new Uint8Array(readFileSync(resolve(FORMATS, path)))),
      expected: (
        JSON.parse(readFileSync(resolve(FORMATS, entry.name, "expected.json"), "utf8")) as {
          rounds: ExpectedRound[];
        }
      ).rounds,
    }));
}

const responsesFixtures = loadResponsesFixtures();

/** Whole, byte by byte, and two seeded random chunkings. */
const RESPONSES_CHUNKINGS: readonly Chunking[] = [
  { label: "whole", maxChunk: undefined },
  { label: "1 byte", maxChunk: 1 },
  { label: "1..7 bytes", maxChunk: 7 },
  { label: "1..512 bytes", maxChunk: 512 },
];

type Item = Record<string, unknown> & { type: string; id?: string };

/** Item types overlap reads or writes as such; every other one is a provider-side item. */
const CLIENT_ITEM_TYPES: ReadonlySet<string> = new Set([
  "message",
  "function_call",
  "function_call_output",
  "reasoning",
]);
/** A message given as `{ role, content }` has no type. */
const isProviderItem = (item: Item) => !CLIENT_ITEM_TYPES.has(item.type ?? "message");

/**
 * The output items of one recorded response, exactly as sent, in output order: each
 * `response.output_item.done` item, and those only the final response lists.
 */
function recordedItems(body: Uint8Array): Item[] {
  const byIndex = new Map<number, Item>();
  for (const frame of sseFrames(new TextDecoder().decode(body))) {
    if (frame.data === "[DONE]") continue;
    const event = JSON.parse(frame.data) as {
      type: string;
      output_index?: number;
      item?: Item;
      response?: { output?: Item[] };
    };
    if (event.type === "response.output_item.done" && event.item) {
      byIndex.set(event.output_index ?? byIndex.size, event.item);
    } else if (event.type === "response.completed" || event.type === "response.incomplete") {
      event.response?.output?.forEach((item, i) => {
        if (!byIndex.has(i)) byIndex.set(i, item);
      });
    }
  }
  return [...byIndex.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
}

/** The annotations of a message item's parts, in order. */
const annotationsOf = (item: Item): unknown[] =>
  item.type === "message" && Array.isArray(item.content)
    ? (item.content as Array<{ annotations?: unknown[] }>).flatMap((p) => p.annotations ?? [])
    : [];

/** The item a block came from: its id (reasoning, provider item, message, function call). */
function itemIdOf(block: Block): unknown {
  if (block.type === "openai_reasoning") return (block.item as Item).id;
  if (block.type === "openai_tool_result") return (block.content as Item).id;
  if (block.type === "server_tool_use") return block.id;
  return (block.openai_item as { id?: unknown } | undefined)?.id;
}

async function replayResponsesTurn(fixture: ResponsesFixture, chunking: Chunking) {
  const names = new Set(fixture.expected.flatMap((round) => round.calls.map((c) => c.name)));
  const { executor, runs } = recordingExecutor(names);
  const requests: string[] = [];
  const responses = fixture.bodies.map((body, k) =>
    splitBytes(body, seedOf(`${fixture.name}/r${k + 1}/${chunking.label}`), chunking.maxChunk),
  );
  const model = openaiResponsesModel({ client: openaiClient(responses, requests), model: MODEL });
  const events: AgentEvent[] = [];
  const turn = await runAgentTurn({
    model,
    executor,
    messages: [ASK],
    sink: (event) => events.push(event),
    maxRounds: fixture.bodies.length,
  });
  return { turn, runs, requests, events, executor };
}

if (!responsesFixtures) {
  const message = `Real recorded streams not found at ${FORMATS} (formats/manifest.json): the Responses recordings are not replayed.`;
  if (process.env.CI === "true") {
    it("the real recorded Responses streams are present (required under CI)", () => {
      throw new Error(message);
    });
  } else {
    console.warn(`\n!!! ${message}\n`);
    it.skip(`real recorded Responses streams (missing: ${FORMATS})`, () => {});
  }
} else {
  const all = responsesFixtures;

  describe("real recorded OpenAI Responses streams (formats/) through the SDK, openaiResponsesModel and runAgentTurn", () => {
    it("the recordings: 23 conversations, 24 provider-side items, 41 annotations, 31 reasoning items; expected.json agrees with the items", () => {
      expect(all).toHaveLength(23);
      let provider = 0;
      let annotations = 0;
      let reasoning = 0;
      for (const fixture of all) {
        expect(fixture.expected, fixture.name).toHaveLength(fixture.bodies.length);
        fixture.bodies.forEach((body, k) => {
          const items = recordedItems(body);
          const want = fixture.expected[k]!;
          const label = `${fixture.name} r${k + 1}`;
          expect(
            items.filter(isProviderItem).map((i) => ({ type: i.type, id: i.id })),
            label,
          ).toEqual(want.server.map((s) => ({ type: s.type, id: s.id })));
          expect(
            items.filter((i) => i.type === "reasoning"),
            label,
          ).toHaveLength(want.reasoningItems);
          expect(items.flatMap(annotationsOf), label).toHaveLength(want.citations ?? 0);
          provider += want.server.length;
          annotations += want.citations ?? 0;
          reasoning += want.reasoningItems;
        });
      }
      expect({ provider, annotations, reasoning }).toEqual({
        provider: 24,
        annotations: 41,
        reasoning: 31,
      });
    });

    for (const fixture of all) {
      for (const chunking of RESPONSES_CHUNKINGS) {
        it(`${fixture.name} (${fixture.bodies.length} responses), ${chunking.label}`, async () => {
          const { turn, runs, requests, events, executor } = await replayResponsesTurn(
            fixture,
            chunking,
          );
          const rounds = fixture.bodies.length;
          const recorded = fixture.bodies.map(recordedItems);
          expect(turn.rounds, "rounds").toHaveLength(rounds);
          expect(requests, "requests").toHaveLength(rounds);

          turn.rounds.forEach((round, k) => {
            const label = `${fixture.name} r${k + 1} (${chunking.label})`;
            const want = fixture.expected[k]!;
            const items = recorded[k]!;
            const blocks = plain(round.assistant.content) as unknown as Block[];
            const of = (type: string) => blocks.filter((b) => b.type === type);

            expect(round.stopReason, `${label}: stop reason`).toBe(want.stop ?? "error");
            if (want.error) {
              expect(round.error?.code, `${label}: error`).toBe("stream_error");
              expect(round.error?.details, `${label}: error type`).toMatchObject({
                errorType: want.error.type,
              });
            }
            if (want.usage) {
              expect(round.usage, `${label}: usage`).toMatchObject({
                input_tokens: want.usage.input,
                output_tokens: want.usage.output,
              });
            }
            // Text: each part's text (whitespace-only parts are never kept); no thinking.
            expect(
              of("text").map((b) => b.text),
              `${label}: text`,
            ).toEqual(want.text.filter((t) => t.trim() !== ""));
            expect(
              of("thinking")
                .map((b) => b.thinking)
                .join(""),
              `${label}: thinking`,
            ).toBe(want.thinking);
            expect(
              of("tool_use").map((b) => ({ id: b.id, name: b.name, input: b.input })),
              `${label}: calls`,
            ).toEqual(want.calls.map((c) => ({ id: c.id, name: c.name, input: c.input })));
            // Provider-side items: a server_tool_use and the item whole, in output order.
            const calls = of("server_tool_use");
            const results = of("openai_tool_result");
            expect(
              calls.map((b) => b.id),
              `${label}: provider calls`,
            ).toEqual(want.server.map((s) => s.id));
            want.server.forEach((s, i) => {
              if (s.name) expect(calls[i]?.name, `${label}: provider call ${i} name`).toBe(s.name);
            });
            expect(
              results.map((b) => b.content),
              `${label}: provider items, as received`,
            ).toEqual(items.filter(isProviderItem));
            for (const [i, result] of results.entries()) {
              expect(blocks[blocks.indexOf(result) - 1], `${label}: call before result ${i}`).toBe(
                calls[i],
              );
            }
            // Reasoning items, whole; those with encrypted content are the signatures.
            const reasoning = of("openai_reasoning").map((b) => b.item as Item);
            expect(reasoning, `${label}: reasoning items`).toEqual(
              items.filter((i) => i.type === "reasoning"),
            );
            expect(reasoning.filter((r) => typeof r.encrypted_content === "string")).toHaveLength(
              want.signatures,
            );
            // Annotations: the citations of their text blocks, as received.
            expect(
              of("text").flatMap((b) => (b.citations as unknown[] | undefined) ?? []),
              `${label}: citations`,
            ).toEqual(items.flatMap(annotationsOf));
            expect(
              of("text").flatMap((b) => (b.citations as unknown[] | undefined) ?? []),
            ).toHaveLength(want.citations ?? 0);
            // Blocks in the items' order (a relay that gives every event its own item id, as
            // vercel-responses-copilot-id-rotation's does, leaves its text out of this check).
            const ids = items.map((i) => i.id);
            const order = blocks
              .map(itemIdOf)
              .filter((id, i, all) => ids.includes(id as string) && id !== all[i - 1]);
            expect(order, `${label}: block order`).toEqual(ids.filter((id) => order.includes(id)));
          });

          // Shown as server-tool events (a call and a result each), never run here.
          const serverEvents = events.filter((e) => e.type === "server-tool");
          const server = fixture.expected.reduce((sum, round) => sum + round.server.length, 0);
          expect(
            serverEvents.filter((e) => e.phase === "call"),
            "server-tool calls",
          ).toHaveLength(server);
          expect(
            serverEvents.filter((e) => e.phase === "result"),
            "server-tool results",
          ).toHaveLength(server);
          expect(runs, "tool runs").toEqual(
            fixture.expected
              .flatMap((round) => round.calls)
              .map((c) => ({ callId: c.id, name: c.name, input: c.input })),
          );

          // The next request carries every reasoning and provider-side item of the recording, in
          // order and unchanged, and every annotation on its message's output_text.
          const sentBack = (input: readonly unknown[]) =>
            (input as Item[]).filter((i) => i.type === "reasoning" || isProviderItem(i));
          const message = (input: readonly unknown[]) =>
            (input as Item[]).filter((i) => i.type === "message" && i.role === "assistant");
          const next = responsesParams(
            {
              messages: [...turn.messages, { role: "user", content: "Go on." }],
              tools: executor.specs(),
            },
            { model: MODEL },
          );
          const input = next.input as unknown[];
          expect(sentBack(input), "next request: reasoning and provider items").toEqual(
            recorded.flat().filter((i) => i.type === "reasoning" || isProviderItem(i)),
          );
          expect(message(input).flatMap(annotationsOf), "next request: annotations").toEqual(
            recorded.flat().flatMap(annotationsOf),
          );
          // The recorded conversation's own later requests carried the earlier rounds' items.
          for (let k = 1; k < rounds; k++) {
            const sent = (JSON.parse(requests[k]!) as { input: unknown[] }).input;
            expect(sentBack(sent), `request ${k + 1}: reasoning and provider items`).toEqual(
              recorded
                .slice(0, k)
                .flat()
                .filter((i) => i.type === "reasoning" || isProviderItem(i)),
            );
          }
          expect(validateConversation(turn.messages), "validateConversation").toEqual([]);
        });
      }
    }
  });
}
