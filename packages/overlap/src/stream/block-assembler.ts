/**
 * BlockAssembler: a pure, synchronous state machine fed one neutral stream event at a
 * time. State is kept per content-block index. It never does I/O and never runs a tool; it reports
 * what happened so the round above can act (display, dispatch, join).
 *
 * A tool call is complete only at its block's stop event (or at message_stop, which ends every
 * block), never because a prefix of its arguments happens to parse.
 *
 * One cohesive state machine, kept in one file although it is longer than our usual 500 lines:
 * every event's handling reads and changes the same per-block state, and splitting the handlers
 * apart would spread one set of invariants (one report per call, in order) over several files.
 */

import { OverlapError } from "../errors.js";
import {
  type ParseToolInputResult,
  parseToolInput,
  type ToolInput,
} from "../json/parse-tool-input.js";
import { PartialJsonParser } from "../json/partial-json-parser.js";
import type { JsonPreview } from "../protocol/json-preview.js";
import type { StopReason } from "../protocol/stop-reason.js";
import type { Usage } from "../protocol/usage.js";
import {
  type AssistantContentBlock,
  type AssistantMessage,
  type Citation,
  isCallBlock,
  SERVER_TOOL_RESULT_TYPES,
  type TextBlock,
  type ThinkingBlock,
  type ToolUseBlock,
} from "./message.js";
import { normalizeStopReason, type StreamEvent } from "./stream-event.js";
import type { ToolCall } from "./tool-call.js";

/** What the assembler observed for one event. */
export type AssemblerReport =
  | { type: "message-start"; id: string; model: string; usage: Usage }
  /** Moment 1: a block started; for tool blocks name and call id are known, arguments not. */
  | { type: "block-start"; index: number; block: AssistantContentBlock }
  | { type: "text-delta"; index: number; text: string }
  | { type: "thinking-delta"; index: number; thinking: string }
  | { type: "citation"; index: number; citation: Citation }
  | {
      type: "tool-input-delta";
      index: number;
      callId: string;
      name: string;
      server: boolean;
      delta: string;
      /** Argument characters received so far. */
      bytes: number;
      /** Tolerant snapshot of the arguments so far (display only); computed on demand. */
      preview: () => JsonPreview | undefined;
    }
  /** A non-tool block finished. */
  | { type: "block-stop"; index: number; block: AssistantContentBlock }
  /**
   * Moment 2: a tool block finished; its arguments were parsed strictly. A local call comes with
   * its record; a provider-side one (`server`) has none: it is never run here.
   */
  | ({
      type: "tool-call";
      index: number;
      callId: string;
      name: string;
      input: ParseToolInputResult;
    } & ({ server: false; call: ToolCall } | { server: true }))
  | { type: "message-delta"; stopReason: StopReason | null; usage: Usage }
  | {
      type: "message-end";
      message: AssistantMessage;
      stopReason: StopReason;
      usage: Usage;
      /** The message's local tool calls in index order: the truth for the join. */
      toolUses: ToolCall[];
    }
  | { type: "stream-error"; errorType: string; message: string };

/**
 * A block being assembled. `size`: characters streamed into it so far (text and citations,
 * thinking and signature, argument text), bounded by `maxBlockChars`.
 */
type BlockState =
  | { kind: "text"; block: TextBlock; stopped: boolean; size: number }
  | { kind: "thinking"; block: ThinkingBlock; stopped: boolean; size: number }
  | {
      kind: "tool";
      /** True for a call the provider runs itself (every `*_tool_use` but `tool_use`). */
      server: boolean;
      /** The block as it started, with every field the API sent (e.g. `caller`). */
      start: Readonly<Record<string, unknown>>;
      id: string;
      name: string;
      raw: string;
      /**
       * An input given whole at block start: a non-empty one (adapters of whole-call providers),
       * or any input of a block that arrived complete inside `message_start`.
       */
      startInput: Readonly<Record<string, unknown>> | undefined;
      parser: PartialJsonParser;
      /** The parser's snapshot as a function, made once per block (not once per delta). */
      preview: () => JsonPreview | undefined;
      input: ParseToolInputResult | null;
      /** The record of a local call, made at its block stop. */
      call: ToolCall | undefined;
      stopped: boolean;
      size: number;
    }
  | { kind: "whole"; block: AssistantContentBlock; stopped: boolean; size: number };

const NONE: readonly AssemblerReport[] = Object.freeze([]);

/** Event types that change the message; after message_stop they are a protocol violation. */
const CONTENT_EVENTS: ReadonlySet<string> = new Set([
  "message_start",
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "message_delta",
  "message_stop",
]);

/** The default of {@link BlockAssemblerOptions.maxBlockChars}: 4 Mi characters. */
export const DEFAULT_MAX_BLOCK_CHARS = 4 * 1024 * 1024;

/** Options of a {@link BlockAssembler}. */
export interface BlockAssemblerOptions {
  /**
   * Call ids already used earlier in the conversation. A call that reuses one (some
   * OpenAI-compatible servers number calls `call_0`, `call_1`... every round), or that repeats an
   * id within the message, is given a fresh id: ids must be unique for the results to be matched
   * and for the ledger to never replay another call's outcome.
   */
  usedIds?: ReadonlySet<string>;
  /**
   * The most characters (UTF-16 code units) one block may receive: a text block's text (and its
   * citations, as JSON), a thinking block's thinking and signature, a tool block's argument text.
   * A delta that would pass it throws {@link OverlapError} `limit_exceeded` and is not applied
   * (the block stays open: a tool call cut there is never run). Default
   * {@link DEFAULT_MAX_BLOCK_CHARS}.
   */
  maxBlockChars?: number;
  /** The round's number within its turn, carried by each {@link ToolCall}. Default 1. */
  round?: number;
}

/** Assembles one model message from neutral stream events. Create one per round. */
export class BlockAssembler {
  readonly #blocks = new Map<number, BlockState>();
  readonly #usedIds: Set<string>;
  readonly #maxBlockChars: number;
  readonly #round: number;
  #usage: Usage = {};
  #stopReason: StopReason | null = null;
  #started = false;
  #ended = false;

  constructor(options: BlockAssemblerOptions = {}) {
    this.#usedIds = new Set(options.usedIds);
    this.#maxBlockChars = options.maxBlockChars ?? DEFAULT_MAX_BLOCK_CHARS;
    this.#round = options.round ?? 1;
  }

  /** True once message_stop was seen. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The stop reason reported so far (null until message_delta carries one). */
  get stopReason(): StopReason | null {
    return this.#stopReason;
  }

  /** Cumulative usage reported so far. */
  get usage(): Usage {
    return this.#usage;
  }

  /**
   * Feeds one event. Returns what it caused, in order. Throws {@link OverlapError}
   * `stream_protocol` when the event contradicts the stream so far (e.g. a delta for a block that
   * never started), `limit_exceeded` when a block would pass `maxBlockChars`; unknown event types
   * and unknown delta types are ignored.
   */
  push(event: StreamEvent): readonly AssemblerReport[] {
    if (event === null || typeof event !== "object" || typeof event.type !== "string") {
      throw protocol("an event that is not an object with a type");
    }
    if (this.#ended) {
      if (!CONTENT_EVENTS.has(event.type)) return NONE; // ping and types added later are ignored
      throw protocol(`event "${event.type}" after message_stop`);
    }
    switch (event.type) {
      case "message_start":
        return this.#messageStart(event);
      case "content_block_start":
        return this.#blockStart(blockIndex(event.index), event.content_block, false);
      case "content_block_delta":
        return this.#blockDelta(blockIndex(event.index), event.delta);
      case "content_block_stop": {
        const index = blockIndex(event.index);
        return this.#blockStop(this.#block(index, "content_block_stop"), index);
      }
      case "message_delta": {
        if (event.delta?.stop_reason != null) {
          this.#stopReason = normalizeStopReason(event.delta.stop_reason);
        }
        if (event.usage) this.#usage = { ...this.#usage, ...definedFields(event.usage) };
        return [{ type: "message-delta", stopReason: this.#stopReason, usage: this.#usage }];
      }
      case "message_stop":
        return this.#messageStop();
      case "error":
        return [
          {
            type: "stream-error",
            errorType: plainText(event.error?.type, "error"),
            message: plainText(event.error?.message, "stream error"),
          },
        ];
      default:
        // ping and event types added to the protocol later carry nothing we need.
        return NONE;
    }
  }

  /**
   * A copy of block `index` as it stands (a stopped tool block: exactly as it will be in the
   * message), or undefined when no such block started.
   */
  block(index: number): AssistantContentBlock | undefined {
    const state = this.#blocks.get(index);
    return state ? this.#blockOf(state) : undefined;
  }

  /** The tolerant preview of a tool block's arguments so far (display only). */
  preview(index: number): JsonPreview | undefined {
    const state = this.#blocks.get(index);
    return state?.kind === "tool" ? state.parser.snapshot() : undefined;
  }

  /**
   * The message as far as it got, for repair after an interruption: every started block in
   * index order (tool blocks that never stopped get `{}` as input and `input: null` in their
   * record); empty text, unsigned thinking and server tool calls without their result are left
   * out because the API rejects them.
   */
  partial(): { message: AssistantMessage; toolUses: ToolCall[] } {
    return this.#assemble(true);
  }

  #messageStart(
    event: Extract<StreamEvent, { type: "message_start" }>,
  ): readonly AssemblerReport[] {
    if (this.#started) throw protocol("second message_start");
    this.#started = true;
    const message = event.message ?? { id: "", model: "" };
    this.#usage = definedFields(message.usage ?? {});
    const reports: AssemblerReport[] = [
      {
        type: "message-start",
        id: textField(message.id, "a message id"),
        model: textField(message.model, "a model name"),
        usage: this.#usage,
      },
    ];
    // Blocks already present at message_start are complete blocks of the message (programmatic
    // tool calling opens each continuation with the next tool_use there): a call is dispatched.
    const content: unknown = message.content;
    if (Array.isArray(content)) {
      content.forEach((block: AssistantContentBlock, index) => {
        reports.push(...this.#blockStart(index, block, true));
        reports.push(...this.#blockStop(this.#blocks.get(index)!, index));
      });
    }
    if (message.stop_reason != null) this.#stopReason = normalizeStopReason(message.stop_reason);
    return reports;
  }

  /** `complete`: the block arrived whole (inside message_start), its input included. */
  #blockStart(
    index: number,
    block: AssistantContentBlock,
    complete: boolean,
  ): readonly AssemblerReport[] {
    if (!Number.isInteger(index) || index < 0) throw protocol(`invalid block index ${index}`);
    if (this.#blocks.has(index)) throw protocol(`block ${index} started twice`);
    if (block === null || typeof block !== "object")
      throw protocol(`block ${index} has no content`);
    if (typeof (block as { type?: unknown }).type !== "string") {
      throw protocol(`block ${index} has no type`);
    }
    // Every field the API sent is kept (round-trip fidelity); only the streamed ones change.
    const start = structuredClone(block);
    let state: BlockState;
    const reports: AssemblerReport[] = [];
    if (start.type === "text") {
      if (start.citations != null && !Array.isArray(start.citations)) {
        throw protocol(`text block ${index} has citations that are not a list`);
      }
      const text = textField(start.text, "a text block");
      this.#bound(index, text.length);
      state = { kind: "text", block: { ...start, text }, stopped: false, size: text.length };
    } else if (start.type === "thinking") {
      const thinking = textField(start.thinking, "a thinking block");
      const signature = textField(start.signature, "a thinking signature");
      this.#bound(index, thinking.length + signature.length);
      state = {
        kind: "thinking",
        block: { ...start, thinking, signature },
        stopped: false,
        size: thinking.length + signature.length,
      };
    } else if (isCallBlock(start)) {
      if (typeof start.id !== "string" || start.id === "")
        throw protocol(`tool block ${index} has no id`);
      if (typeof start.name !== "string" || start.name === "") {
        throw protocol(`tool block ${index} has no name`);
      }
      const parser = new PartialJsonParser();
      state = {
        kind: "tool",
        server: start.type !== "tool_use",
        start: start as unknown as Readonly<Record<string, unknown>>,
        id: this.#uniqueId(start.id),
        name: start.name,
        raw: "",
        startInput: complete ? objectOrEmpty(start.input) : nonEmptyObject(start.input),
        parser,
        preview: () => parser.snapshot(),
        input: null,
        call: undefined,
        stopped: false,
        size: 0,
      };
    } else {
      // redacted_thinking, server tool results and block types we do not know arrive whole.
      state = { kind: "whole", block: start, stopped: false, size: 0 };
    }
    this.#blocks.set(index, state);
    reports.push({ type: "block-start", index, block: this.#blockOf(state) });
    // Text a block starts with (a whole block, or an adapter's) is shown like streamed text.
    if (state.kind === "text" && state.block.text !== "") {
      reports.push({ type: "text-delta", index, text: state.block.text });
    }
    if (state.kind === "thinking" && state.block.thinking !== "") {
      reports.push({ type: "thinking-delta", index, thinking: state.block.thinking });
    }
    return reports;
  }

  #blockDelta(
    index: number,
    delta: Extract<StreamEvent, { type: "content_block_delta" }>["delta"],
  ): readonly AssemblerReport[] {
    const state = this.#block(index, "content_block_delta");
    if (state.stopped) throw protocol(`delta for block ${index} after its stop`);
    switch (delta?.type) {
      case "text_delta": {
        if (state.kind !== "text") throw mismatch(index, delta.type, state.kind);
        const text = textField(delta.text, "a text_delta");
        this.#grow(state, index, text.length);
        state.block.text += text;
        return text === "" ? NONE : [{ type: "text-delta", index, text }];
      }
      case "citations_delta": {
        if (state.kind !== "text") throw mismatch(index, delta.type, state.kind);
        this.#grow(state, index, JSON.stringify(delta.citation ?? null).length);
        state.block.citations = [...(state.block.citations ?? []), delta.citation];
        return [{ type: "citation", index, citation: delta.citation }];
      }
      case "thinking_delta": {
        if (state.kind !== "thinking") throw mismatch(index, delta.type, state.kind);
        const thinking = textField(delta.thinking, "a thinking_delta");
        this.#grow(state, index, thinking.length);
        state.block.thinking += thinking;
        return thinking === "" ? NONE : [{ type: "thinking-delta", index, thinking }];
      }
      case "signature_delta": {
        if (state.kind !== "thinking") throw mismatch(index, delta.type, state.kind);
        const signature = textField(delta.signature, "a signature_delta");
        this.#grow(state, index, signature.length);
        state.block.signature += signature;
        return NONE;
      }
      case "compaction_delta": {
        // The delta carries the compaction block's final value: assign, never append.
        if (state.kind !== "whole" || (state.block.type as string) !== "compaction") {
          throw mismatch(index, delta.type, state.kind);
        }
        const { type: _type, ...fields } = delta;
        state.block = { ...state.block, ...structuredClone(fields) } as AssistantContentBlock;
        return NONE;
      }
      case "input_json_delta": {
        if (state.kind !== "tool") throw mismatch(index, delta.type, state.kind);
        const chunk = textField(delta.partial_json, "an input_json_delta");
        // Providers open every tool block with an empty delta: nothing to show yet.
        if (chunk === "") return NONE;
        this.#grow(state, index, chunk.length);
        state.raw += chunk;
        state.parser.push(chunk);
        return [
          {
            type: "tool-input-delta",
            index,
            callId: state.id,
            name: state.name,
            server: state.server,
            delta: chunk,
            bytes: state.raw.length,
            preview: state.preview,
          },
        ];
      }
      default:
        return NONE;
    }
  }

  #blockStop(state: BlockState, index: number): readonly AssemblerReport[] {
    if (state.stopped) throw protocol(`block ${index} stopped twice`);
    state.stopped = true;
    if (state.kind !== "tool") return [{ type: "block-stop", index, block: this.#blockOf(state) }];
    // An adapter may announce a whole call at start (no deltas): its input is then the truth.
    state.input =
      state.raw === "" && state.startInput !== undefined
        ? { ok: true, value: state.startInput as ToolInput }
        : parseToolInput(state.raw);
    const stopped = { type: "tool-call", index, callId: state.id, name: state.name } as const;
    if (state.server) return [{ ...stopped, input: state.input, server: true }];
    state.call = this.#callOf(state, index);
    return [{ ...stopped, input: state.input, server: false, call: state.call }];
  }

  #messageStop(): readonly AssemblerReport[] {
    const reports: AssemblerReport[] = [];
    // message_stop is an explicit end for every block still open: close them in order.
    for (const index of this.#sortedIndexes()) {
      const state = this.#blocks.get(index)!;
      if (!state.stopped) reports.push(...this.#blockStop(state, index));
    }
    this.#ended = true;
    const { message, toolUses } = this.#assemble(false);
    const stopReason = this.#stopReason ?? (toolUses.length > 0 ? "tool_use" : "end_turn");
    this.#stopReason = stopReason;
    reports.push({ type: "message-end", message, stopReason, usage: this.#usage, toolUses });
    return reports;
  }

  #assemble(partial: boolean): { message: AssistantMessage; toolUses: ToolCall[] } {
    const content: AssistantContentBlock[] = [];
    const toolUses: ToolCall[] = [];
    const answered = new Set<string>();
    if (partial) {
      for (const state of this.#blocks.values()) {
        if (state.kind === "whole" && "tool_use_id" in state.block)
          answered.add(state.block.tool_use_id);
      }
    }
    for (const index of this.#sortedIndexes()) {
      const state = this.#blocks.get(index)!;
      // Empty or blank text is rejected by the API on the next request: never keep it.
      if (state.kind === "text" && state.block.text.trim() === "") continue;
      if (partial && state.kind === "thinking" && !(state.stopped && state.block.signature))
        continue;
      // A provider-side call cut off before its result cannot be sent back: it has no answer.
      if (partial && state.kind === "tool" && state.server && !answered.has(state.id)) continue;
      content.push(this.#blockOf(state));
      // A call cut off before its block stopped gets its record here, with nothing parsed.
      if (state.kind === "tool" && !state.server)
        toolUses.push(state.call ?? this.#callOf(state, index));
    }
    return { message: { role: "assistant", content }, toolUses };
  }

  /** The record of a local call as it stands (its block as the message will hold it). */
  #callOf(state: Extract<BlockState, { kind: "tool" }>, index: number): ToolCall {
    return {
      id: state.id,
      name: state.name,
      round: this.#round,
      index,
      raw: state.raw,
      input: state.input,
      block: this.#blockOf(state) as ToolUseBlock,
    };
  }

  /** A copy of the block as it stands, safe to hand out. */
  #blockOf(state: BlockState): AssistantContentBlock {
    switch (state.kind) {
      case "text":
        return state.block.citations
          ? { ...state.block, citations: [...state.block.citations] }
          : { ...state.block };
      case "thinking":
        return { ...state.block };
      case "tool": {
        const input = state.input?.ok ? state.input.value : {};
        return {
          ...structuredClone(state.start),
          id: state.id,
          name: state.name,
          input,
        } as AssistantContentBlock;
      }
      case "whole":
        return structuredClone(state.block);
    }
  }

  /** Counts `chars` more into a block; throws `limit_exceeded` (nothing counted) past the limit. */
  #grow(state: BlockState, index: number, chars: number): void {
    this.#bound(index, state.size + chars);
    state.size += chars;
  }

  #bound(index: number, size: number): void {
    if (size <= this.#maxBlockChars) return;
    throw new OverlapError(
      "limit_exceeded",
      `Block ${index} of the model's message passed the limit of ${this.#maxBlockChars} characters (maxBlockChars).`,
      { details: { index, limit: this.#maxBlockChars } },
    );
  }

  #uniqueId(id: string): string {
    let unique = id;
    for (let n = 2; this.#usedIds.has(unique); n++) unique = `${id}_dup${n}`;
    this.#usedIds.add(unique);
    return unique;
  }

  #block(index: number, what: string): BlockState {
    const state = this.#blocks.get(index);
    if (!state) throw protocol(`${what} for block ${index}, which never started`);
    return state;
  }

  #sortedIndexes(): number[] {
    return [...this.#blocks.keys()].sort((a, b) => a - b);
  }
}

/** True for a block type that arrives whole and is produced by the provider (never run locally). */
export function isServerToolResult(block: AssistantContentBlock): boolean {
  return SERVER_TOOL_RESULT_TYPES.has(block.type);
}

function objectOrEmpty(value: unknown): Readonly<Record<string, unknown>> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function nonEmptyObject(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    Object.keys(value).length > 0
    ? (value as Record<string, unknown>)
    : undefined;
}

function definedFields(usage: Usage): Usage {
  const out: Usage = {};
  for (const [key, value] of Object.entries(usage)) {
    if (value !== undefined && value !== null) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}

/** A block index as sent, or `stream_protocol` (it may be anything: the stream is not trusted). */
function blockIndex(index: unknown): number {
  if (typeof index === "number" && Number.isInteger(index) && index >= 0) return index;
  const shown = typeof index === "number" ? String(index) : `of type ${typeof index}`;
  throw protocol(`invalid block index ${shown}`);
}

/**
 * A text field as sent: a string, a number or boolean as its text, nothing as "". Anything else
 * (an object, a list) is `stream_protocol`: it is never coerced, since a hostile value can even
 * make coercion throw.
 */
function textField(value: unknown, what: string): string {
  if (typeof value === "string") return value;
  if (value == null) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw protocol(`${what} whose text is not a string`);
}

/** A string or number field of an error event as text; anything else gives `fallback`. */
function plainText(value: unknown, fallback: string): string {
  return typeof value === "string" || typeof value === "number" ? String(value) : fallback;
}

function protocol(message: string): OverlapError {
  return new OverlapError("stream_protocol", `Invalid model stream: ${message}.`);
}

function mismatch(index: number, deltaType: string, kind: string): OverlapError {
  return protocol(`${deltaType} for block ${index}, which is a ${kind} block`);
}
