/**
 * The Chat Completions wire format, from a resolved script and its pacing: `chat.completion.chunk`
 * frames as OpenAI sends them, and the non-streaming `chat.completion` body. Pure.
 *
 * Stream: the first chunk carries `role: "assistant"` (with `content: ""`, or `content: null`
 * and the first call when the answer starts with a call); text as `content` deltas; a call as
 * `tool_calls: [{ index, id, type: "function", function: { name, arguments: "" } }]` then
 * `{ index, function: { arguments } }` fragments; a last chunk with an empty delta and the
 * `finish_reason`; a usage chunk (`choices: []`) when `stream_options.include_usage` is true
 * (every other chunk then has `usage: null`); then `data: [DONE]`. Thinking and code execution
 * have no equivalent here and never reach this encoder; a web search sends nothing of its own
 * (the search models search unseen: only its time passes), and a text's citations are
 * `url_citation` annotations (`start_index` / `end_index` in the message's content) in one
 * `{ annotations }` delta after that text, as the search models send them. The quirk modes bend
 * this shape the way some OpenAI-compatible servers do (see `quirks.ts`).
 */

import type { PacedItem } from "./pacing.js";
import type { SimQuirks } from "./quirks.js";
import { outputTokens, type ResolvedBlock, type ResolvedScript } from "./resolve-script.js";
import type { SimStopReason } from "./script.js";
import { sseData, type WireFrame } from "./wire-frame.js";

/** What the OpenAI encoders need besides the script. */
export interface OpenAIWireContext {
  id: string;
  model: string;
  /** Unix seconds, the same in every chunk. */
  created: number;
  systemFingerprint: string;
  promptTokens: number;
  /** `stream_options.include_usage` of the request. */
  includeUsage: boolean;
  quirks: SimQuirks;
}

/** The `data: {"error":…}` frame sent mid-stream by the `error-after` fault. */
export const OPENAI_STREAM_ERROR_FRAME = sseData({
  error: {
    message: "The server had an error while processing your request. Sorry about that!",
    type: "server_error",
    param: null,
    code: null,
  },
});

/** The Chat Completions `finish_reason` for a stop reason. */
export function finishReason(
  stop: SimStopReason,
): "stop" | "tool_calls" | "length" | "content_filter" {
  switch (stop) {
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
      return "length";
    case "refusal":
      return "content_filter";
    default:
      return "stop";
  }
}

function usage(script: ResolvedScript, context: OpenAIWireContext): unknown {
  const completion = outputTokens(script);
  return {
    prompt_tokens: context.promptTokens,
    completion_tokens: completion,
    total_tokens: context.promptTokens + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/** True when the quirk `no-args` applies to a call with these arguments. */
function argsLeftOut(args: string, quirks: SimQuirks): boolean {
  return quirks.noArgs !== undefined && (args === "" || args === "{}");
}

type ToolCallDelta = Record<string, unknown>;

/** The streamed chunks, each with the time to send it. */
export function encodeOpenAIStream(
  script: ResolvedScript,
  items: readonly PacedItem[],
  context: OpenAIWireContext,
): WireFrame[] {
  const { quirks } = context;
  const withUsage = context.includeUsage && quirks.noUsage !== true;
  const envelope = (choices: unknown[]): Record<string, unknown> => ({
    id: context.id,
    object: "chat.completion.chunk",
    created: context.created,
    model: context.model,
    service_tier: "default",
    system_fingerprint: context.systemFingerprint,
    choices,
  });
  const frames: WireFrame[] = [];
  const chunk = (
    atMs: number,
    delta: Record<string, unknown>,
    finish: string | null = null,
  ): void => {
    const body = envelope([{ index: 0, delta, logprobs: null, finish_reason: finish }]);
    if (withUsage) body.usage = null;
    frames.push({ atMs, text: sseData(body) });
  };
  let roleSent = false;
  /** The message's content so far (annotation offsets count in it). */
  let written = 0;
  const content = (atMs: number, text: string): void => {
    if (!roleSent) chunk(atMs, { role: "assistant", content: "", refusal: null });
    roleSent = true;
    written += text.length;
    if (text !== "") chunk(atMs, { content: text });
  };
  const calls = (atMs: number, toolCalls: ToolCallDelta[]): void => {
    if (roleSent) chunk(atMs, { tool_calls: toolCalls });
    else chunk(atMs, { role: "assistant", content: null, tool_calls: toolCalls, refusal: null });
    roleSent = true;
  };

  /** The call position of each tool_use block (its `index` on the wire). */
  const callIndex = new Map<number, number>();
  script.blocks.forEach((b, i) => {
    if (b.type === "tool_use") callIndex.set(i, quirks.indexZero === true ? 0 : callIndex.size);
  });
  // multi-call-chunk: each call's fragments (start first), emitted side by side.
  let grouped: { atMs: number; delta: ToolCallDelta }[][] = [];
  const flushGroups = (): void => {
    const longest = Math.max(0, ...grouped.map((g) => g.length));
    for (let j = 0; j < longest; j++) {
      const row = grouped.flatMap((g) => (g[j] === undefined ? [] : [g[j]!]));
      calls(
        Math.max(...row.map((r) => r.atMs)),
        row.map((r) => r.delta),
      );
    }
    grouped = [];
  };

  for (const item of items) {
    if (item.type === "message-end") {
      flushGroups();
      if (!roleSent) content(item.atMs, "");
      chunk(item.atMs, {}, finishReason(script.stopReason));
      if (withUsage) {
        frames.push({
          atMs: item.atMs,
          text: sseData({ ...envelope([]), usage: usage(script, context) }),
        });
      }
      frames.push({ atMs: item.atMs, text: sseData("[DONE]") });
      continue;
    }
    const block = script.blocks[item.index];
    if (block === undefined) continue;
    if (block.type === "text") {
      flushGroups();
      if (item.type === "delta") content(item.atMs, item.text);
      if (item.type === "block-stop" && block.citations) {
        chunk(item.atMs, { annotations: annotations(block, written - block.text.length) });
      }
      continue;
    }
    if (block.type !== "tool_use") continue;
    const index = callIndex.get(item.index) ?? 0;
    const leftOut = argsLeftOut(block.args, quirks);
    const fn: Record<string, unknown> = { name: block.name };
    if (quirks.wholeCall === true) {
      if (item.type !== "block-stop") continue;
      if (!(leftOut && quirks.noArgs === "omit")) fn.arguments = leftOut ? "" : block.args;
      calls(item.atMs, [{ index, id: block.id, type: "function", function: fn }]);
      continue;
    }
    let delta: ToolCallDelta | undefined;
    if (item.type === "block-start") {
      if (!(leftOut && quirks.noArgs === "omit")) fn.arguments = "";
      delta = { index, id: block.id, type: "function", function: fn };
    } else if (item.type === "delta" && !leftOut) {
      delta = { index, function: { arguments: item.text } };
    }
    if (delta === undefined) continue;
    if (quirks.multiCallChunk === true) {
      if (item.type === "block-start") grouped.push([]);
      grouped.at(-1)?.push({ atMs: item.atMs, delta });
    } else {
      calls(item.atMs, [delta]);
    }
  }
  return frames;
}

/** A text's citations as `url_citation` annotations over its span of the message's content. */
function annotations(block: Extract<ResolvedBlock, { type: "text" }>, start: number): unknown[] {
  return (block.citations ?? []).map((c) => ({
    type: "url_citation",
    url_citation: {
      end_index: start + block.text.length,
      start_index: start,
      title: c.title,
      url: c.url,
    },
  }));
}

/** The non-streaming `chat.completion` body. */
export function openaiCompletionBody(script: ResolvedScript, context: OpenAIWireContext): unknown {
  const { quirks } = context;
  const text = script.blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  const toolCalls = script.blocks.flatMap((b) => {
    if (b.type !== "tool_use") return [];
    const leftOut = argsLeftOut(b.args, quirks);
    const fn: Record<string, unknown> = { name: b.name };
    if (!(leftOut && quirks.noArgs === "omit")) fn.arguments = leftOut ? "" : b.args;
    return [{ id: b.id, type: "function", function: fn }];
  });
  let start = 0;
  const cited = script.blocks.flatMap((b) => {
    if (b.type !== "text") return [];
    start += b.text.length;
    return annotations(b, start - b.text.length);
  });
  const message: Record<string, unknown> = {
    role: "assistant",
    content: text === "" ? null : text,
    refusal: null,
    annotations: cited,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const body: Record<string, unknown> = {
    id: context.id,
    object: "chat.completion",
    created: context.created,
    model: context.model,
    choices: [
      { index: 0, message, logprobs: null, finish_reason: finishReason(script.stopReason) },
    ],
  };
  if (quirks.noUsage !== true) body.usage = usage(script, context);
  body.service_tier = "default";
  body.system_fingerprint = context.systemFingerprint;
  return body;
}
