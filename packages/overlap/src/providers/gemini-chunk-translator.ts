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

import type { Usage } from "../protocol/usage.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { JsonPathWriter, type PartialArg, PartialArgsOrderError } from "./gemini-partial-args.js";

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
  [field: string]: unknown;
}

/** The parts of a `GenerateContentResponse` the translator reads. */
export interface GeminiChunk {
  candidates?: Array<{
    index?: number;
    content?: { role?: string; parts?: GeminiPart[] | null } | null;
    finishReason?: string | null;
    finishMessage?: string | null;
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

/** A block still receiving content. */
interface OpenBlock {
  index: number;
}

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
  #prefix = "";
  #nextBlock = 0;
  #text: OpenBlock | undefined;
  #thinking: OpenBlock | undefined;
  #call: StreamingCall | undefined;
  #calls = 0;
  readonly #ids = new Set<string>();
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
      this.#prefix = this.#options.idPrefix ?? `gemini-${idSafe(chunk.responseId) || randomId()}`;
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
      this.#closeAll(out);
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
    if (typeof part.text !== "string") return; // inline data, code execution...: not translated
    const signature = typeof part.thoughtSignature === "string" ? part.thoughtSignature : undefined;
    if (part.text === "") {
      if (signature === undefined) return;
      // A signature without text: kept in a thinking block of its own, sent back as it came.
      this.#closeText(out);
      this.#closeThinking(out);
      const index = this.#open(out, {
        type: "thinking",
        thinking: "",
        signature: "",
        thoughtSignature: signature,
      } as StartedBlock);
      out.push({ type: "content_block_stop", index });
      return;
    }
    if (part.thought === true) {
      this.#closeText(out);
      if (this.#thinking && signature !== undefined) this.#closeThinking(out);
      this.#thinking ??= this.#openOf(out, "thinking", signature);
      out.push(delta(this.#thinking.index, { type: "thinking_delta", thinking: part.text }));
      return;
    }
    this.#closeThinking(out);
    if (this.#text && signature !== undefined) this.#closeText(out);
    this.#text ??= this.#openOf(out, "text", signature);
    out.push(delta(this.#text.index, { type: "text_delta", text: part.text }));
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
      if (text !== "")
        out.push(delta(streaming.index, { type: "input_json_delta", partial_json: text }));
      if (!this.#call) out.push({ type: "content_block_stop", index: streaming.index });
      return;
    }
    if (!call.name) return; // an empty functionCall with nothing open: nothing to end
    // A new call. One still streaming never finished: it stops with what it got (incomplete JSON,
    // answered as invalid input, never run).
    if (streaming) {
      out.push({ type: "content_block_stop", index: streaming.index });
      this.#call = undefined;
    }
    this.#closeText(out);
    this.#closeThinking(out);
    this.#calls++;
    const block: Record<string, unknown> = {
      type: "tool_use",
      id: this.#callId(call.id),
      name: call.name,
      input: {},
    };
    if (typeof signature === "string") block.thoughtSignature = signature;
    const index = this.#open(out, block as unknown as StartedBlock);
    const pieces = call.partialArgs && call.partialArgs.length > 0;
    if (call.willContinue === true || pieces) {
      const writer = new JsonPathWriter();
      let text = "";
      if (call.args) text += writer.writeArgs(call.args);
      if (call.partialArgs) text += writer.writePartialArgs(call.partialArgs);
      if (call.willContinue === true) this.#call = { index, writer };
      else text += writer.finish();
      if (text !== "") out.push(delta(index, { type: "input_json_delta", partial_json: text }));
      if (call.willContinue === true) return;
    } else if (call.args) {
      // Whole: complete on arrival.
      out.push(delta(index, { type: "input_json_delta", partial_json: JSON.stringify(call.args) }));
    }
    out.push({ type: "content_block_stop", index });
  }

  #callId(apiId: string | undefined): string {
    let id = apiId && !this.#ids.has(apiId) ? apiId : `${this.#prefix}-${this.#calls}`;
    for (let n = 2; this.#ids.has(id); n++) id = `${this.#prefix}-${this.#calls}-${n}`;
    this.#ids.add(id);
    return id;
  }

  #openOf(out: StreamEvent[], kind: "text" | "thinking", signature: string | undefined): OpenBlock {
    const block: Record<string, unknown> =
      kind === "text"
        ? { type: "text", text: "" }
        : { type: "thinking", thinking: "", signature: "" };
    if (signature !== undefined) block.thoughtSignature = signature;
    return { index: this.#open(out, block as unknown as StartedBlock) };
  }

  #open(out: StreamEvent[], block: StartedBlock): number {
    const index = this.#nextBlock++;
    out.push({ type: "content_block_start", index, content_block: block });
    return index;
  }

  #closeText(out: StreamEvent[]): void {
    if (!this.#text) return;
    out.push({ type: "content_block_stop", index: this.#text.index });
    this.#text = undefined;
  }

  #closeThinking(out: StreamEvent[]): void {
    if (!this.#thinking) return;
    out.push({ type: "content_block_stop", index: this.#thinking.index });
    this.#thinking = undefined;
  }

  /** The response ended: close every block. A call still streaming stops with what it got. */
  #closeAll(out: StreamEvent[]): void {
    this.#closeThinking(out);
    this.#closeText(out);
    if (this.#call) {
      out.push({ type: "content_block_stop", index: this.#call.index });
      this.#call = undefined;
    }
  }
}

function delta(
  index: number,
  value: Extract<StreamEvent, { type: "content_block_delta" }>["delta"],
): StreamEvent {
  return { type: "content_block_delta", index, delta: value };
}

/** A response id usable inside a call id (the Messages API allows `[A-Za-z0-9_-]`). */
function idSafe(id: string | undefined): string {
  return (id ?? "").replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 48);
}

function randomId(): string {
  const bytes = new Uint8Array(9);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
