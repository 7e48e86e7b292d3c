/**
 * The Gemini API's wire format, from a resolved script and its pacing: the chunks of
 * `streamGenerateContent?alt=sse` (SSE `data:` lines, each a `GenerateContentResponse`) and the
 * `generateContent` body. Pure.
 *
 * Stream: one chunk per text delta (`{ text }` parts; thinking as `{ text, thought: true }`),
 * each with the envelope `candidates[0].content.role: "model"`, `usageMetadata`, `modelVersion`
 * and `responseId`. A function call is never streamed in pieces: its `functionCall` part (`name`
 * and `args` object, no id) comes whole in one chunk, sent when the call's block would have
 * finished. The first call of a response carries the `thoughtSignature` (as thinking models
 * do); a response without calls gets its signature in a last chunk with an empty text part.
 * The last chunk has the `finishReason` (STOP, MAX_TOKENS, SAFETY for a refusal) and the full
 * usage. With the `multi-call-chunk` quirk, consecutive calls share one chunk. Provider-side
 * code execution: an `executableCode` part (`language: "PYTHON"`, `code`, `id`) comes whole when
 * its block would have finished, always signed (as Gemini 3 signs it; the first call and the
 * last part are signed as before), and its
 * `codeExecutionResult` part (`outcome`, `output`, `id`) after the server-side delay.
 *
 * Google Search grounding: a web search streams nothing of its own (its results come after the
 * server-side delay, before the text that follows); the last chunk's candidate carries
 * `groundingMetadata`: `webSearchQueries` (each search's query), `searchEntryPoint`,
 * `groundingChunks` (`web: { uri, title }`, the title being the page's domain, as Google sends
 * it: the searches' results, then any other page a text cites) and `groundingSupports` (per cited
 * text, its `segment` in UTF-8 bytes of the answer's text, thoughts excluded, and the
 * `groundingChunkIndices` of its sources).
 *
 * A call whose arguments are not a JSON object cannot be sent (`args` is an object): the
 * response ends there with `finishReason: MALFORMED_FUNCTION_CALL` (the `invalid-json` fault, a
 * raw-string input), or, when the response was cut inside it (the `max-tokens` fault, the
 * request's `maxOutputTokens`), the call is left out and the response ends with MAX_TOKENS.
 */

import type { ApiRejection } from "./api-rejection.js";
import type { PacedItem } from "./pacing.js";
import { blockTokens, type ResolvedBlock, type ResolvedScript } from "./resolve-script.js";
import type { SimStopReason } from "./script.js";
import { sseData, type WireFrame } from "./wire-frame.js";

/** What the Gemini encoders need besides the script. */
export interface GeminiWireContext {
  responseId: string;
  /** The `scripted-` model name reported as `modelVersion`. */
  model: string;
  promptTokens: number;
  /** The opaque thought signature of this response. */
  thoughtSignature: string;
  /** The `multi-call-chunk` quirk: consecutive calls in one chunk. */
  multiCallChunk: boolean;
}

/** The `data: {"error":…}` frame sent mid-stream by the `error-after` fault. */
export const GEMINI_STREAM_ERROR_FRAME = sseData({
  error: {
    code: 503,
    message: "The model is overloaded. Please try again later.",
    status: "UNAVAILABLE",
  },
});

/** The Gemini API's error body: `{ error: { code, message, status } }` (429 with a retry delay). */
export function geminiErrorBody(rejection: ApiRejection): unknown {
  const error: Record<string, unknown> = {
    code: rejection.status,
    message: rejection.message,
    status: rejection.type,
  };
  if (rejection.status === 429) {
    error.details = [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1s" }];
  }
  return { error };
}

/** The `finishReason` for a stop reason. */
export function geminiFinishReason(stop: SimStopReason): "STOP" | "MAX_TOKENS" | "SAFETY" {
  if (stop === "max_tokens") return "MAX_TOKENS";
  if (stop === "refusal") return "SAFETY";
  return "STOP";
}

/** The `args` object of a call, or undefined when its argument text is not a JSON object. */
export function callArgs(args: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(args === "" ? "{}" : args);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** How the response ends: its finish reason and the blocks that are sent. */
interface Ending {
  /** Blocks at or after this index are not sent. */
  sentBefore: number;
  /** Index of a call that is left out (cut by the token limit) but ends nothing. */
  leftOut: number | undefined;
  finishReason: string;
  finishMessage?: string;
}

function ending(script: ResolvedScript): Ending {
  const bad = script.blocks.findIndex(
    (b) => b.type === "tool_use" && callArgs(b.args) === undefined,
  );
  const block = script.blocks[bad];
  if (block?.type === "tool_use") {
    if (script.stopReason === "max_tokens") {
      return { sentBefore: script.blocks.length, leftOut: bad, finishReason: "MAX_TOKENS" };
    }
    return {
      sentBefore: bad,
      leftOut: undefined,
      finishReason: "MALFORMED_FUNCTION_CALL",
      finishMessage: `Malformed function call: call:${block.name}${block.args}`,
    };
  }
  return {
    sentBefore: script.blocks.length,
    leftOut: undefined,
    finishReason: geminiFinishReason(script.stopReason),
  };
}

function usage(script: ResolvedScript, context: GeminiWireContext, sentBefore: number) {
  const sent = script.blocks.slice(0, sentBefore);
  const thoughts = sent.reduce((n, b) => n + (b.type === "thinking" ? blockTokens(b) : 0), 0);
  const candidates = sent.reduce((n, b) => n + (b.type === "thinking" ? 0 : blockTokens(b)), 0);
  const out: Record<string, unknown> = {
    promptTokenCount: context.promptTokens,
    candidatesTokenCount: Math.max(1, candidates),
    totalTokenCount: context.promptTokens + Math.max(1, candidates) + thoughts,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: context.promptTokens }],
  };
  if (thoughts > 0) out.thoughtsTokenCount = thoughts;
  return out;
}

function callPart(
  block: Extract<ResolvedBlock, { type: "tool_use" }>,
  signature: string | undefined,
): Record<string, unknown> {
  const part: Record<string, unknown> = {
    functionCall: { name: block.name, args: callArgs(block.args) ?? {} },
  };
  if (signature !== undefined) part.thoughtSignature = signature;
  return part;
}

function codePart(
  block: Extract<ResolvedBlock, { type: "code_execution" }>,
  signature: string | undefined,
): Record<string, unknown> {
  const part: Record<string, unknown> = {
    executableCode: { language: "PYTHON", code: block.code, id: block.id },
  };
  if (signature !== undefined) part.thoughtSignature = signature;
  return part;
}

function codeResultPart(
  block: Extract<ResolvedBlock, { type: "code_execution_result" }>,
): Record<string, unknown> {
  return {
    codeExecutionResult: {
      outcome: block.failed ? "OUTCOME_FAILED" : "OUTCOME_OK",
      output: block.output,
      id: block.toolUseId,
    },
  };
}

/** The page's domain (`www.` left off), Google's title of a grounding chunk. */
function domainOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return url;
  }
}

/** The query a search's argument text names (the text itself when it is not `{ query }`). */
function queryOf(args: string): string {
  const value = callArgs(args);
  return typeof value?.query === "string" ? value.query : args;
}

/** The grounding metadata of the sent blocks, or undefined when nothing searched or cites. */
export function groundingMetadata(
  blocks: readonly ResolvedBlock[],
): Record<string, unknown> | undefined {
  const queries: string[] = [];
  const chunks: string[] = [];
  const titles = new Map<string, string>();
  const chunkOf = (url: string): number => {
    if (!titles.has(url)) {
      titles.set(url, domainOf(url));
      chunks.push(url);
    }
    return chunks.indexOf(url);
  };
  const supports: unknown[] = [];
  let bytes = 0;
  for (const block of blocks) {
    if (block.type === "server_tool_use") queries.push(queryOf(block.args));
    else if (block.type === "web_search_tool_result") for (const r of block.results) chunkOf(r.url);
    else if (block.type === "text") {
      const size = Buffer.byteLength(block.text, "utf8");
      if (block.citations && block.citations.length > 0) {
        supports.push({
          segment: { startIndex: bytes, endIndex: bytes + size, text: block.text },
          groundingChunkIndices: [...new Set(block.citations.map((c) => chunkOf(c.url)))],
        });
      }
      bytes += size;
    }
  }
  if (queries.length === 0 && supports.length === 0) return undefined;
  const metadata: Record<string, unknown> = {};
  if (queries.length > 0) {
    metadata.searchEntryPoint = {
      renderedContent: `<div class="container">${queries.map((q) => `<a class="chip">${q.replace(/[<>&"]/g, "")}</a>`).join("")}</div>`,
    };
  }
  metadata.groundingChunks = chunks.map((uri) => ({ web: { uri, title: titles.get(uri) } }));
  metadata.groundingSupports = supports;
  if (queries.length > 0) metadata.webSearchQueries = queries;
  return metadata;
}

/** The streamed chunks, each with the time to send it. */
export function encodeGeminiStream(
  script: ResolvedScript,
  items: readonly PacedItem[],
  context: GeminiWireContext,
): WireFrame[] {
  const end = ending(script);
  const frames: WireFrame[] = [];
  const chunk = (
    atMs: number,
    candidate: Record<string, unknown>,
    usageMetadata: Record<string, unknown>,
  ): void => {
    frames.push({
      atMs,
      text: sseData({
        candidates: [{ ...candidate, index: 0 }],
        usageMetadata,
        modelVersion: context.model,
        responseId: context.responseId,
      }),
    });
  };
  const running = {
    promptTokenCount: context.promptTokens,
    totalTokenCount: context.promptTokens,
  };
  const parts = (atMs: number, list: Record<string, unknown>[]): void => {
    if (list.length > 0) chunk(atMs, { content: { parts: list, role: "model" } }, running);
  };
  let signed = false;
  /** Calls waiting to share one chunk (multi-call-chunk). */
  let pending: Record<string, unknown>[] = [];
  let pendingAt = 0;
  const flush = (): void => {
    parts(pendingAt, pending);
    pending = [];
  };
  for (const item of items) {
    if (item.type === "message-end") {
      flush();
      const candidate: Record<string, unknown> = {
        content: {
          parts: [signed ? { text: "" } : { text: "", thoughtSignature: context.thoughtSignature }],
          role: "model",
        },
        finishReason: end.finishReason,
      };
      const grounding = groundingMetadata(script.blocks.slice(0, end.sentBefore));
      if (grounding) candidate.groundingMetadata = grounding;
      chunk(item.atMs, candidate, usage(script, context, end.sentBefore));
      break;
    }
    if (item.index >= end.sentBefore) {
      // The malformed call: generation stops where it would have finished.
      if (item.type !== "block-stop") continue;
      flush();
      chunk(
        item.atMs,
        { content: {}, finishReason: end.finishReason, finishMessage: end.finishMessage },
        usage(script, context, end.sentBefore),
      );
      break;
    }
    const block = script.blocks[item.index];
    if (block === undefined || item.index === end.leftOut) continue;
    if (block.type === "tool_use") {
      if (item.type !== "block-stop") continue;
      const part = callPart(block, signed ? undefined : context.thoughtSignature);
      signed = true;
      if (context.multiCallChunk) {
        pending.push(part);
        pendingAt = item.atMs;
      } else {
        parts(item.atMs, [part]);
      }
      continue;
    }
    if (block.type === "code_execution") {
      if (item.type !== "block-stop") continue;
      flush();
      parts(item.atMs, [codePart(block, context.thoughtSignature)]);
      continue;
    }
    if (block.type === "code_execution_result") {
      if (item.type !== "block-start") continue;
      flush();
      parts(item.atMs, [codeResultPart(block)]);
      continue;
    }
    if (item.type !== "delta") continue;
    flush();
    if (block.type === "text") parts(item.atMs, [{ text: item.text }]);
    else if (block.type === "thinking") parts(item.atMs, [{ text: item.text, thought: true }]);
  }
  return frames;
}

/** The non-streaming `generateContent` body. */
export function geminiResponseBody(script: ResolvedScript, context: GeminiWireContext): unknown {
  const end = ending(script);
  const parts: Record<string, unknown>[] = [];
  let signed = false;
  script.blocks.slice(0, end.sentBefore).forEach((block, index) => {
    if (index === end.leftOut) return;
    if (block.type === "text") parts.push({ text: block.text });
    else if (block.type === "thinking") parts.push({ text: block.thinking, thought: true });
    else if (block.type === "tool_use") {
      parts.push(callPart(block, signed ? undefined : context.thoughtSignature));
      signed = true;
    } else if (block.type === "code_execution") {
      parts.push(codePart(block, context.thoughtSignature));
    } else if (block.type === "code_execution_result") {
      parts.push(codeResultPart(block));
    }
  });
  if (!signed && end.finishMessage === undefined) {
    const last = parts.findLast((p) => typeof p.text === "string" && p.thought !== true);
    if (last) last.thoughtSignature = context.thoughtSignature;
    else parts.push({ text: "", thoughtSignature: context.thoughtSignature });
  }
  const candidate: Record<string, unknown> =
    end.finishMessage === undefined
      ? { content: { parts, role: "model" }, finishReason: end.finishReason, index: 0 }
      : { content: {}, finishReason: end.finishReason, finishMessage: end.finishMessage, index: 0 };
  const grounding = groundingMetadata(script.blocks.slice(0, end.sentBefore));
  if (grounding && end.finishMessage === undefined) candidate.groundingMetadata = grounding;
  return {
    candidates: [candidate],
    usageMetadata: usage(script, context, end.sentBefore),
    modelVersion: context.model,
    responseId: context.responseId,
  };
}
