/**
 * GeminiChunkTranslator: a pure state machine that turns the chunks of a Gemini
 * `streamGenerateContent` stream (each a `GenerateContentResponse`) into the neutral stream
 * events.
 *
 * The end-of-call signal: the Gemini API sends each `functionCall` part whole, name and `args`
 * together, in one chunk. A call is therefore complete on arrival: its block starts and stops at
 * once (moment 1 and moment 2 together) and it is dispatched while the model goes on writing,
 * unlike Chat Completions peers whose calls end only when something later arrives. Vertex AI can
 * stream a call's arguments instead (`streamFunctionCallArguments`): a part with the `name` and
 * `willContinue: true` starts the call, parts with `partialArgs` carry its arguments (see
 * {@link JsonPathWriter}), and the first part whose `willContinue` is false or absent completes it.
 *
 * Parts to blocks: `text` parts → a text block (consecutive parts extend it); `thought: true`
 * parts → a thinking block (`signature` stays empty: it is Anthropic's field); `functionCall` →
 * a tool_use block. A `thoughtSignature` is kept on the block of its part, as the opaque field
 * `thoughtSignature`, and sent back on the same part: when one arrives on a part that continues a
 * block already started without one, a new block starts with it; one on a part without text (the
 * API sends a text answer's signature that way, in a last empty part) becomes a thinking block
 * with no text that carries only the signature.
 *
 * Provider-side code execution (the `codeExecution` tool): an `executableCode` part becomes a
 * `server_tool_use` block named `code_execution` (its input the part's `executableCode` object,
 * for display) and a `codeExecutionResult` part a {@link GeminiToolResultBlock}; both arrive whole
 * (start and stop at once), in the order they streamed, and each keeps its part exactly as
 * received (`gemini_part` on the call, `content` on the result, the `thoughtSignature` with it),
 * so `geminiRequestBody` sends back the same parts. They are shown (`server-tool` events), never
 * run here. The call's id is the part's `id` when the API gave one, else `<prefix>-code-<n>`; a
 * result without an id answers the last call not yet answered.
 *
 * Grounding (`googleSearch`, `urlContext`...): the candidate's `groundingMetadata` (the last one
 * that carried anything) is read when the response finishes: its supports become citations on the
 * text blocks still open, and the metadata is kept whole in a last {@link GeminiGroundingBlock}
 * (see gemini-grounding.ts).
 *
 * Call ids: Gemini calls usually have none. A call gets the API's `functionCall.id` when it has
 * one, else `gemini-<responseId>-<n>` (a random prefix when the response has no id): unique in
 * the conversation without relying on the assembler's renaming.
 *
 * The end: `finishReason` STOP → `end_turn` (`tool_use` when the response called a function);
 * MAX_TOKENS → `max_tokens`; SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII and the
 * image ones → `refusal`, as is a prompt blocked by `promptFeedback.blockReason`;
 * MALFORMED_FUNCTION_CALL (and the other reasons saying the model's output was unusable) → a
 * neutral `error` event, which the round turns into a valid conversation. A stream that ends
 * without a finishReason was cut: {@link GeminiChunkTranslator.end} then adds nothing. Usage comes
 * from `usageMetadata` (output tokens include thought tokens).
 */

import type { Usage } from "../../protocol/usage.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { BlockWriter } from "../block-writer.js";
import { GeminiCallIds } from "./gemini-call-ids.js";
import {
  GEMINI_GROUNDING,
  type GeminiGroundingBlock,
  groundingCitations,
  type TextSpan,
  utf8Length,
} from "./gemini-grounding.js";
import { JsonPathWriter, type PartialArg, PartialArgsOrderError } from "./gemini-partial-args.js";

export {
  GEMINI_GROUNDING,
  GEMINI_GROUNDING_CITATION,
  type GeminiGroundingBlock,
} from "./gemini-grounding.js";

/** A `functionCall` as the translator reads it. */
export interface GeminiFunctionCall {
  id?: string;
  name?: string;
  args?: Record<string, unknown> | null;
  /** Vertex AI only: arguments streamed in pieces. */
  partialArgs?: PartialArg[] | null;
  /** Vertex AI only: more parts of this call follow. */
  willContinue?: boolean | null;
}

/** A `Part` of a response's content (the kinds the translator reads; others are ignored). */
export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: GeminiFunctionCall;
  /** Code the model ran with the `codeExecution` tool (`language`, `code`, `id`). */
  executableCode?: Record<string, unknown>;
  /** The outcome of that code (`outcome`, `output`, `id`). */
  codeExecutionResult?: Record<string, unknown>;
  [field: string]: unknown;
}

/** The block type of a Gemini `codeExecutionResult` part. */
export const GEMINI_TOOL_RESULT = "gemini_tool_result";

/**
 * Gemini API only: the result of provider-side code execution, the `codeExecutionResult` part
 * exactly as received. It answers the `server_tool_use` block of its `executableCode` part (which
 * keeps that part as `gemini_part`); `geminiRequestBody` sends both parts back in place, and every
 * other adapter leaves out both blocks.
 */
export interface GeminiToolResultBlock {
  type: typeof GEMINI_TOOL_RESULT;
  /** The `server_tool_use` block it answers. */
  tool_use_id: string;
  /** The part as received (`codeExecutionResult`, and any other field it had). */
  content: Readonly<Record<string, unknown>>;
}

/** The parts of a `GenerateContentResponse` the translator reads. */
export interface GeminiChunk {
  candidates?: Array<{
    index?: number;
    content?: { role?: string; parts?: GeminiPart[] | null } | null;
    finishReason?: string | null;
    finishMessage?: string | null;
    groundingMetadata?: Record<string, unknown> | null;
  }> | null;
  promptFeedback?: { blockReason?: string | null; blockReasonMessage?: string | null } | null;
  usageMetadata?: {
    promptTokenCount?: number | null;
    candidatesTokenCount?: number | null;
    thoughtsTokenCount?: number | null;
    cachedContentTokenCount?: number | null;
  } | null;
  modelVersion?: string;
  responseId?: string;
}

/** Options of a {@link GeminiChunkTranslator}. */
export interface GeminiChunkTranslatorOptions {
  /** The prefix of synthesised call ids; default `gemini-<responseId>` (random without one). */
  idPrefix?: string;
}

const REFUSALS = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION",
]);

/** Finish reasons meaning the model's output could not be used: a stream error, not a stop. */
const FAILURES = new Set([
  "MALFORMED_FUNCTION_CALL",
  "UNEXPECTED_TOOL_CALL",
  "TOO_MANY_TOOL_CALLS",
  "MALFORMED_RESPONSE",
  "MISSING_THOUGHT_SIGNATURE",
]);

/** A Vertex call whose arguments are still streaming. */
interface StreamingCall {
  index: number;
  writer: JsonPathWriter;
}

type StartedBlock = Extract<StreamEvent, { type: "content_block_start" }>["content_block"];

/** Translates one Gemini stream. Create one per response. */
export class GeminiChunkTranslator {
  readonly #options: GeminiChunkTranslatorOptions;
  #started = false;
  readonly #blocks = new BlockWriter();
  /** The indexes of the text and thinking blocks still receiving content. */
  #text: number | undefined;
  #thinking: number | undefined;
  #call: StreamingCall | undefined;
  #calls = 0;
  readonly #ids = new GeminiCallIds();
  /** Code execution calls, and those not answered yet (in order). */
  #codeCalls = 0;
  readonly #unanswered: string[] = [];
  /** Text blocks of the answer, for grounding supports. */
  readonly #spans: TextSpan[] = [];
  #answerBytes = 0;
  #grounding: Record<string, unknown> | undefined;
  #finishReason: string | undefined;
  #failed = false;
  #usage: Usage = {};

  constructor(options: GeminiChunkTranslatorOptions = {}) {
    this.#options = options;
  }

  /** True once the response finished (a finishReason or a blocked prompt). */
  get finished(): boolean {
    return this.#finishReason !== undefined;
  }

  /** Neutral events for one chunk, in order. */
  push(chunk: GeminiChunk): StreamEvent[] {
    const out: StreamEvent[] = [];
    if (this.#failed || this.#finishReason !== undefined) return out;
    this.#readUsage(chunk);
    if (!this.#started) {
      this.#started = true;
      this.#ids.begin(chunk.responseId, this.#options.idPrefix);
      out.push({
        type: "message_start",
        message: {
          id: chunk.responseId ?? "",
          model: chunk.modelVersion ?? "",
          role: "assistant",
          content: [],
          stop_reason: null,
          usage: { input_tokens: this.#usage.input_tokens ?? 0, output_tokens: 0 },
        },
      });
    }
    const candidate = (chunk.candidates ?? []).find((c) => (c.index ?? 0) === 0);
    const grounding = candidate?.groundingMetadata;
    if (isRecord(grounding) && Object.keys(grounding).length > 0) this.#grounding = grounding;
    try {
      for (const part of candidate?.content?.parts ?? []) this.#part(out, part);
    } catch (err) {
      if (!(err instanceof PartialArgsOrderError)) throw err;
      this.#failed = true;
      out.push({
        type: "error",
        error: {
          type: "invalid_partial_args",
          message: `Streamed function call arguments could not be assembled: ${err.message}.`,
        },
      });
      return out;
    }
    const reason = candidate?.finishReason ?? undefined;
    if (reason && reason !== "FINISH_REASON_UNSPECIFIED") {
      if (FAILURES.has(reason)) {
        this.#failed = true;
        const detail = candidate?.finishMessage ? `: ${candidate.finishMessage}` : "";
        out.push({
          type: "error",
          error: {
            type: reason.toLowerCase(),
            message: `The model's output was unusable (${reason})${detail}`,
          },
        });
        return out;
      }
      this.#finishReason = reason;
      this.#ground(out);
      this.#closeAll(out);
      this.#groundingBlock(out);
    } else if (chunk.promptFeedback?.blockReason) {
      // The prompt itself was blocked: no candidate will come.
      this.#finishReason = "PROMPT_BLOCKED";
      this.#closeAll(out);
    }
    return out;
  }

  /**
   * Ends the stream. A finished response gets its message_delta (stop reason, usage) and
   * message_stop; an unfinished one (the connection was cut) gets nothing more, so the round sees
   * the cut.
   */
  end(): StreamEvent[] {
    if (!this.#started || this.#finishReason === undefined || this.#failed) return [];
    return [
      { type: "message_delta", delta: { stop_reason: this.#stopReason() }, usage: this.#usage },
      { type: "message_stop" },
    ];
  }

  #stopReason(): string {
    const reason = this.#finishReason ?? "STOP";
    if (reason === "MAX_TOKENS") return "max_tokens";
    if (reason === "PROMPT_BLOCKED" || REFUSALS.has(reason)) return "refusal";
    // STOP, and reasons we do not know (LANGUAGE, OTHER...): the turn ended.
    return this.#calls > 0 ? "tool_use" : "end_turn";
  }

  #readUsage(chunk: GeminiChunk): void {
    const usage = chunk.usageMetadata;
    if (!usage) return;
    if (usage.promptTokenCount != null) this.#usage.input_tokens = usage.promptTokenCount;
    if (usage.candidatesTokenCount != null || usage.thoughtsTokenCount != null) {
      this.#usage.output_tokens =
        (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0);
    }
    if (usage.cachedContentTokenCount != null) {
      this.#usage.cache_read_input_tokens = usage.cachedContentTokenCount;
    }
  }

  #part(out: StreamEvent[], part: GeminiPart): void {
    if (part.functionCall) {
      this.#functionCall(out, part.functionCall, part.thoughtSignature);
      return;
    }
    if (isRecord(part.executableCode)) {
      this.#executableCode(out, part, part.executableCode);
      return;
    }
    if (isRecord(part.codeExecutionResult)) {
      this.#codeExecutionResult(out, part, part.codeExecutionResult);
      return;
    }
    if (typeof part.text !== "string") return; // inline data, files...: not translated
    const signature = typeof part.thoughtSignature === "string" ? part.thoughtSignature : undefined;
    if (part.text === "") {
      if (signature === undefined) return;
      // A signature without text: kept in a thinking block of its own, sent back as it came.
      this.#closeText(out);
      this.#closeThinking(out);
      const index = this.#blocks.open(out, {
        type: "thinking",
        thinking: "",
        signature: "",
        thoughtSignature: signature,
      } as StartedBlock);
      this.#blocks.close(out, index);
      return;
    }
    if (part.thought === true) {
      this.#closeText(out);
      if (this.#thinking !== undefined && signature !== undefined) this.#closeThinking(out);
      this.#thinking ??= this.#openOf(out, "thinking", signature);
      this.#blocks.delta(out, this.#thinking, {
        type: "thinking_delta",
        thinking: part.text,
      });
      return;
    }
    this.#closeThinking(out);
    if (this.#text !== undefined && signature !== undefined) this.#closeText(out);
    if (this.#text === undefined) {
      this.#text = this.#openOf(out, "text", signature);
      this.#spans.push({
        index: this.#text,
        startByte: this.#answerBytes,
        text: "",
        open: true,
      });
    }
    const span = this.#spans.at(-1);
    if (span) span.text += part.text;
    this.#answerBytes += utf8Length(part.text);
    this.#blocks.delta(out, this.#text, { type: "text_delta", text: part.text });
  }

  /** Provider-side code: a server_tool_use block, whole, its part kept as received. */
  #executableCode(out: StreamEvent[], part: GeminiPart, code: Record<string, unknown>): void {
    this.#closeText(out);
    this.#closeThinking(out);
    this.#codeCalls++;
    const given = typeof code.id === "string" && code.id !== "" ? code.id : undefined;
    const id = this.#ids.take(given, `code-${this.#codeCalls}`);
    this.#unanswered.push(id);
    const index = this.#blocks.open(out, {
      type: "server_tool_use",
      id,
      name: "code_execution",
      input: structuredClone(code),
      gemini_part: structuredClone(part),
    } as unknown as StartedBlock);
    this.#blocks.close(out, index);
  }

  /** The outcome of provider-side code: a whole result block answering its call. */
  #codeExecutionResult(
    out: StreamEvent[],
    part: GeminiPart,
    result: Record<string, unknown>,
  ): void {
    this.#closeText(out);
    this.#closeThinking(out);
    const given = typeof result.id === "string" ? result.id : undefined;
    const at = given === undefined ? -1 : this.#unanswered.indexOf(given);
    const answered =
      at >= 0 ? this.#unanswered.splice(at, 1)[0] : (this.#unanswered.pop() ?? given);
    const block: GeminiToolResultBlock = {
      type: GEMINI_TOOL_RESULT,
      tool_use_id: answered ?? this.#ids.synthesized(`code-${this.#codeCalls}`),
      content: structuredClone(part),
    };
    this.#blocks.close(out, this.#blocks.open(out, block as unknown as StartedBlock));
  }

  /** Citations from the grounding supports, on the text blocks still open. */
  #ground(out: StreamEvent[]): void {
    if (!this.#grounding) return;
    for (const { index, citation } of groundingCitations(this.#grounding, this.#spans)) {
      this.#blocks.delta(out, index, { type: "citations_delta", citation });
    }
  }

  /** The grounding metadata, whole, in a last block of its own. */
  #groundingBlock(out: StreamEvent[]): void {
    if (!this.#grounding) return;
    const block: GeminiGroundingBlock = {
      type: GEMINI_GROUNDING,
      metadata: structuredClone(this.#grounding),
    };
    this.#blocks.close(out, this.#blocks.open(out, block as unknown as StartedBlock));
  }

  #functionCall(out: StreamEvent[], call: GeminiFunctionCall, signature: unknown): void {
    const streaming = this.#call;
    if (streaming && !call.name) {
      // The next piece of a Vertex call whose arguments stream.
      let text = "";
      if (call.args) text += streaming.writer.writeArgs(call.args);
      if (call.partialArgs) text += streaming.writer.writePartialArgs(call.partialArgs);
      if (call.willContinue !== true) {
        text += streaming.writer.finish();
        this.#call = undefined;
      }
      this.#blocks.args(out, streaming.index, text);
      if (!this.#call) this.#blocks.close(out, streaming.index);
      return;
    }
    if (!call.name) return; // an empty functionCall with nothing open: nothing to end
    // A new call. One still streaming never finished: it stops with what it got (incomplete JSON,
    // answered as invalid input, never run).
    if (streaming) {
      this.#blocks.close(out, streaming.index);
      this.#call = undefined;
    }
    this.#closeText(out);
    this.#closeThinking(out);
    this.#calls++;
    const block: Record<string, unknown> = {
      type: "tool_use",
      id: this.#ids.take(call.id, String(this.#calls)),
      name: call.name,
      input: {},
    };
    if (typeof signature === "string") block.thoughtSignature = signature;
    const index = this.#blocks.open(out, block as unknown as StartedBlock);
    const pieces = call.partialArgs && call.partialArgs.length > 0;
    if (call.willContinue === true || pieces) {
      const writer = new JsonPathWriter();
      let text = "";
      if (call.args) text += writer.writeArgs(call.args);
      if (call.partialArgs) text += writer.writePartialArgs(call.partialArgs);
      if (call.willContinue === true) this.#call = { index, writer };
      else text += writer.finish();
      this.#blocks.args(out, index, text);
      if (call.willContinue === true) return;
    } else if (call.args) {
      // Whole: complete on arrival.
      this.#blocks.args(out, index, JSON.stringify(call.args));
    }
    this.#blocks.close(out, index);
  }

  #openOf(out: StreamEvent[], kind: "text" | "thinking", signature: string | undefined): number {
    const block: Record<string, unknown> =
      kind === "text"
        ? { type: "text", text: "" }
        : { type: "thinking", thinking: "", signature: "" };
    if (signature !== undefined) block.thoughtSignature = signature;
    return this.#blocks.open(out, block as unknown as StartedBlock);
  }

  #closeText(out: StreamEvent[]): void {
    if (!this.#blocks.close(out, this.#text)) return;
    const span = this.#spans.at(-1);
    if (span) span.open = false;
    this.#text = undefined;
  }

  #closeThinking(out: StreamEvent[]): void {
    this.#blocks.close(out, this.#thinking);
    this.#thinking = undefined;
  }

  /** The response ended: close every block. A call still streaming stops with what it got. */
  #closeAll(out: StreamEvent[]): void {
    this.#closeThinking(out);
    this.#closeText(out);
    this.#blocks.close(out, this.#call?.index);
    this.#call = undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
