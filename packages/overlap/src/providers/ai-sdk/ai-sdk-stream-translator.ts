/**
 * AiSdkStreamTranslator: a pure state machine that turns the stream parts of a Vercel AI
 * SDK language model (`LanguageModelV3.doStream`, the provider specification v3) into the neutral
 * stream events.
 *
 * The AI SDK already gives each call its own start and end, so nothing is synthesised:
 * - `tool-input-start` is moment 1 (the tool_use block starts), `tool-input-delta` streams the
 *   arguments, and `tool-input-end` is moment 2 (the block stops: strict parse, dispatch).
 * - `tool-call` carries the whole call. For a provider that never streamed the call (no
 *   `tool-input-start` for that id) the call starts and completes there. For one that did, it is
 *   the same call again: never a second block (deduplicated by `toolCallId`); it only ends a block
 *   that `tool-input-end` did not end, and supplies the arguments when none were streamed.
 * - Provider-executed calls (`providerExecuted`) become `server_tool_use` blocks, and their
 *   `tool-result` parts whole {@link AiSdkToolResultBlock}s: recorded, never run locally (the provider ran them).
 *
 * When a provider ends its calls is its own business, and it varies: see the provider table in
 * docs/architecture.md (`@ai-sdk/openai`'s Chat Completions model ends every call only when the
 * stream ends, so its calls cannot start early; `@ai-sdk/anthropic` ends each call at its
 * content_block_stop).
 *
 * Other parts: `response-metadata` opens the message (id, model), text and reasoning parts become
 * text and thinking blocks (an open text or reasoning block is ended when a call starts, as the
 * Chat Completions translator does; text arriving later for the same id opens a new block),
 * `finish` ends the message with its stop reason and usage, an `error` part becomes a neutral
 * `error` event and ends the translation, `stream-start`, `raw`, `source`, `file` and
 * `tool-approval-request` carry nothing the conversation needs.
 *
 * Provider metadata, so it can be sent back (`toLanguageModelV3Prompt` turns it into
 * `providerOptions`): a part's `providerMetadata` known when its block starts (the start part, or
 * the whole `tool-call`) rides on the block as `ai_sdk_metadata`; a reasoning signature arriving
 * later (Anthropic's `{ anthropic: { signature } }` on a `reasoning-delta`) goes into the thinking
 * block's own `signature`, and redacted reasoning (`redactedData`) is a `redacted_thinking` block,
 * both the Messages API's neutral form. A call's metadata arriving after its block started (the
 * OpenAI Responses model's `itemId` on `tool-call`) is handed to `onCallMetadata`; other metadata
 * arriving after its block started (e.g. OpenAI Responses' `reasoningEncryptedContent` at
 * `reasoning-end`) cannot join a block already announced and is not kept; a text's citations at `text-end`
 * (Anthropic's `{ anthropic: { citations } }`) are the exception: they become the text block's
 * citations (`ai_sdk_citation`) and go back as that provider's `providerOptions`.
 */

import { OverlapError } from "../../errors.js";
import type { StopReason } from "../../protocol/stop-reason.js";
import type { AssistantContentBlock } from "../../stream/message.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { BlockWriter } from "../block-writer.js";
import {
  mergeMetadata,
  metadataField,
  streamError,
  toUsage,
  withMetadata,
} from "./ai-sdk-conversions.js";
import type {
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
  SharedV3ProviderMetadata,
} from "./language-model-v3.js";

export { AI_SDK_METADATA_FIELD, streamError, toUsage } from "./ai-sdk-conversions.js";

/** The block type of a provider-executed tool's result, as the AI SDK reported it. */
export const AI_SDK_TOOL_RESULT = "ai_sdk_tool_result";

/**
 * The result of a provider-executed tool (web search...) in the AI SDK's own shape: only
 * `aiSdkModel` can send it back (as a `tool-result` part of the assistant message); the other
 * adapters do not know the type.
 */
export interface AiSdkToolResultBlock {
  type: typeof AI_SDK_TOOL_RESULT;
  /** The call it answers (a `server_tool_use` block of the same message). */
  tool_use_id: string;
  name: string;
  /** The AI SDK's `result` (JSON). */
  content: unknown;
  is_error?: boolean;
}

/** The citation type of a citation an AI SDK provider reported on a text (see `#textCitations`). */
export const AI_SDK_CITATION = "ai_sdk_citation";

/** Options of an {@link AiSdkStreamTranslator}. */
export interface AiSdkStreamTranslatorOptions {
  /** The model id reported when the stream has no `response-metadata` (or none before content). */
  model?: string;
  /**
   * Told the whole provider metadata of a call whose `tool-input-end` or `tool-call` brought
   * metadata its `tool-input-start` did not have (e.g. the OpenAI Responses model's `itemId`):
   * the block already started without it. `aiSdkModel` keeps it to send back.
   */
  onCallMetadata?: (callId: string, metadata: SharedV3ProviderMetadata) => void;
}

type BlockKind = "text" | "reasoning" | "redacted" | "tool";

interface OpenCall {
  block: number;
  /** The metadata the block started with, then everything the call's parts added. */
  metadata: SharedV3ProviderMetadata | undefined;
  /** `tool-input-end` (or a `tool-call`) ended the block. */
  stopped: boolean;
  /** Argument text streamed so far. */
  args: string;
  /** `inputEncoding: "text"`: the deltas are not JSON; the `tool-call` brings the JSON. */
  textEncoded: boolean;
}

/** A finish reason of the Messages API itself, kept as the provider said it (e.g. pause_turn). */
const MESSAGES_API_REASONS: ReadonlySet<string> = new Set([
  "end_turn",
  "tool_use",
  "max_tokens",
  "stop_sequence",
  "pause_turn",
  "refusal",
  "model_context_window_exceeded",
]);

const UNIFIED_TO_STOP: Readonly<Record<string, StopReason>> = {
  stop: "end_turn",
  "tool-calls": "tool_use",
  length: "max_tokens",
  "content-filter": "refusal",
};

/** Translates one `doStream` stream. Create one per response. */
export class AiSdkStreamTranslator {
  readonly #model: string;
  readonly #onCallMetadata: AiSdkStreamTranslatorOptions["onCallMetadata"];
  #started = false;
  #finished = false;
  #failed = false;
  readonly #blocks = new BlockWriter();
  /** Text and reasoning blocks still open, keyed by kind and part id. */
  readonly #open = new Map<string, { kind: BlockKind; block: number }>();
  /** Every call seen, by `toolCallId` (also after its block stopped: for deduplication). */
  readonly #calls = new Map<string, OpenCall>();
  /** Provider-executed results already recorded. */
  readonly #results = new Set<string>();
  #warnings: unknown[] = [];

  constructor(options: AiSdkStreamTranslatorOptions = {}) {
    this.#model = options.model ?? "";
    this.#onCallMetadata = options.onCallMetadata;
  }

  /** True once a `finish` part ended the message. */
  get finished(): boolean {
    return this.#finished;
  }

  /** True once an `error` part was translated: nothing more will be. */
  get failed(): boolean {
    return this.#failed;
  }

  /** The warnings of the `stream-start` part (unsupported settings...). */
  get warnings(): readonly unknown[] {
    return this.#warnings;
  }

  /** Neutral events for one part, in order. */
  push(part: LanguageModelV3StreamPart): StreamEvent[] {
    // After the message ended or failed, nothing more belongs to it (OpenAI's model, for one,
    // still ends every call after an error part).
    if (this.#finished || this.#failed) return [];
    const out: StreamEvent[] = [];
    switch (part.type) {
      case "stream-start":
        this.#warnings = [...part.warnings];
        return out;
      case "response-metadata":
        this.#start(out, part.id, part.modelId);
        return out;
      case "text-start":
        this.#start(out);
        this.#openPart(out, "text", part.id, part.providerMetadata);
        return out;
      case "text-delta": {
        this.#start(out);
        if (part.delta === "") return out;
        const block = this.#partBlock(out, "text", part.id);
        this.#blocks.delta(out, block, { type: "text_delta", text: part.delta });
        return out;
      }
      case "text-end":
        this.#textCitations(out, part.id, part.providerMetadata);
        this.#closePart(out, "text", part.id);
        return out;
      case "reasoning-start":
        this.#start(out);
        this.#openPart(out, "reasoning", part.id, part.providerMetadata);
        return out;
      case "reasoning-delta":
        this.#start(out);
        this.#reasoningDelta(out, part.id, part.delta, part.providerMetadata);
        return out;
      case "reasoning-end":
        this.#closePart(out, "reasoning", part.id);
        return out;
      case "tool-input-start":
        this.#start(out);
        this.#toolInputStart(out, part);
        return out;
      case "tool-input-delta": {
        const call = this.#calls.get(part.id);
        if (!call) throw protocol(`tool-input-delta for call ${part.id}, which never started`);
        if (call.stopped || part.delta === "") return out;
        call.args += part.delta;
        if (!call.textEncoded) {
          this.#blocks.args(out, call.block, part.delta);
        }
        return out;
      }
      case "tool-input-end": {
        const call = this.#calls.get(part.id);
        if (!call) throw protocol(`tool-input-end for call ${part.id}, which never started`);
        this.#lateMetadata(part.id, call, part.providerMetadata);
        // Text-encoded arguments are not JSON: the call completes with its tool-call part.
        if (!call.stopped && !call.textEncoded) this.#stopCall(out, call);
        return out;
      }
      case "tool-call":
        this.#start(out);
        this.#toolCall(out, part);
        return out;
      case "tool-result":
        this.#start(out);
        this.#toolResult(out, part);
        return out;
      case "finish":
        this.#start(out);
        this.#finish(out, part.finishReason, part.usage);
        return out;
      case "error":
        this.#failed = true;
        out.push({ type: "error", error: streamError(part.error) });
        return out;
      default:
        // raw, source, file, tool-approval-request and parts added to the specification later.
        return out;
    }
  }

  #start(out: StreamEvent[], id?: string, model?: string): void {
    if (this.#started) return;
    this.#started = true;
    out.push({
      type: "message_start",
      message: {
        id: id ?? "",
        model: model ?? this.#model,
        role: "assistant",
        content: [],
        stop_reason: null,
        usage: {},
      },
    });
  }

  #openPart(
    out: StreamEvent[],
    kind: "text" | "reasoning",
    id: string,
    metadata: SharedV3ProviderMetadata | undefined,
  ): number {
    const key = `${kind}:${id}`;
    const open = this.#open.get(key);
    if (open) return open.block;
    let block: AssistantContentBlock;
    let blockKind: BlockKind = kind;
    const redacted = kind === "reasoning" ? metadataField(metadata, "redactedData") : undefined;
    if (redacted !== undefined) {
      // Encrypted reasoning (Anthropic's redacted_thinking): opaque, sent back unchanged.
      block = { type: "redacted_thinking", data: redacted };
      blockKind = "redacted";
    } else if (kind === "text") {
      block = withMetadata({ type: "text", text: "" }, metadata);
    } else {
      block = withMetadata({ type: "thinking", thinking: "", signature: "" }, metadata);
    }
    const index = this.#blocks.open(out, block);
    this.#open.set(key, { kind: blockKind, block: index });
    return index;
  }

  /** The open block of a text or reasoning part; a delta without its start opens one. */
  #partBlock(out: StreamEvent[], kind: "text" | "reasoning", id: string): number {
    return this.#open.get(`${kind}:${id}`)?.block ?? this.#openPart(out, kind, id, undefined);
  }

  #reasoningDelta(
    out: StreamEvent[],
    id: string,
    text: string,
    metadata: SharedV3ProviderMetadata | undefined,
  ): void {
    const signature = metadataField(metadata, "signature");
    if (text === "" && signature === undefined) return;
    const index = this.#partBlock(out, "reasoning", id);
    if (this.#open.get(`reasoning:${id}`)?.kind === "redacted") return;
    if (text !== "") this.#blocks.delta(out, index, { type: "thinking_delta", thinking: text });
    if (signature !== undefined)
      this.#blocks.delta(out, index, { type: "signature_delta", signature });
  }

  /**
   * Citations a provider reports at a text's end (Anthropic's `{ anthropic: { citations } }`):
   * each becomes a citation on that text block, `{ type: "ai_sdk_citation", provider, citation }`,
   * so it goes back as the provider's `providerOptions` (`toLanguageModelV3Prompt`).
   */
  #textCitations(
    out: StreamEvent[],
    id: string,
    metadata: SharedV3ProviderMetadata | undefined,
  ): void {
    const open = this.#open.get(`text:${id}`);
    if (!open || !metadata) return;
    for (const [provider, fields] of Object.entries(metadata)) {
      const citations = fields?.citations;
      if (!Array.isArray(citations)) continue;
      for (const citation of citations) {
        this.#blocks.delta(out, open.block, {
          type: "citations_delta",
          citation: { type: AI_SDK_CITATION, provider, citation: structuredClone(citation) },
        });
      }
    }
  }

  #closePart(out: StreamEvent[], kind: "text" | "reasoning", id: string): void {
    const key = `${kind}:${id}`;
    const open = this.#open.get(key);
    if (!open) return; // never started, or already ended when a call started
    this.#open.delete(key);
    this.#blocks.close(out, open.block);
  }

  /** Text and reasoning before a call are done (a timeline shows them ending here). */
  #closeParts(out: StreamEvent[]): void {
    for (const [key, open] of this.#open) {
      this.#open.delete(key);
      this.#blocks.close(out, open.block);
    }
  }

  #toolInputStart(
    out: StreamEvent[],
    part: Extract<LanguageModelV3StreamPart, { type: "tool-input-start" }>,
  ): void {
    if (this.#calls.has(part.id)) throw protocol(`call ${part.id} started twice`);
    this.#closeParts(out);
    const block = this.#blocks.open(
      out,
      withMetadata(
        {
          type: part.providerExecuted ? "server_tool_use" : "tool_use",
          id: part.id,
          name: part.toolName,
          input: {},
        },
        part.providerMetadata,
      ),
    );
    this.#calls.set(part.id, {
      block,
      metadata: part.providerMetadata,
      stopped: false,
      args: "",
      textEncoded: part.inputEncoding === "text",
    });
  }

  #toolCall(
    out: StreamEvent[],
    part: Extract<LanguageModelV3StreamPart, { type: "tool-call" }>,
  ): void {
    const known = this.#calls.get(part.toolCallId);
    if (known) this.#lateMetadata(part.toolCallId, known, part.providerMetadata);
    if (known?.stopped) return; // the same call again: it completed at tool-input-end
    if (known) {
      // A streamed call whose end the provider did not signal, or text-encoded arguments: the
      // streamed JSON stays the truth; the whole input fills in when nothing JSON was streamed.
      if (known.textEncoded || known.args === "") this.#blocks.args(out, known.block, part.input);
      this.#stopCall(out, known);
      return;
    }
    // A provider that only reports whole calls: the call starts and completes here.
    this.#closeParts(out);
    const block = this.#blocks.open(
      out,
      withMetadata(
        {
          type: part.providerExecuted ? "server_tool_use" : "tool_use",
          id: part.toolCallId,
          name: part.toolName,
          input: {},
        },
        part.providerMetadata,
      ),
    );
    const call: OpenCall = {
      block,
      metadata: part.providerMetadata,
      stopped: false,
      args: part.input,
      textEncoded: false,
    };
    this.#calls.set(part.toolCallId, call);
    this.#blocks.args(out, block, part.input);
    this.#stopCall(out, call);
  }

  #toolResult(
    out: StreamEvent[],
    part: Extract<LanguageModelV3StreamPart, { type: "tool-result" }>,
  ): void {
    // Preliminary results replace each other; only the final one is the call's answer.
    if (part.preliminary || this.#results.has(part.toolCallId)) return;
    this.#results.add(part.toolCallId);
    const block: AiSdkToolResultBlock = {
      type: AI_SDK_TOOL_RESULT,
      tool_use_id: part.toolCallId,
      name: part.toolName,
      content: part.result,
      ...(part.isError ? { is_error: true } : {}),
    };
    const index = this.#blocks.open(out, block as unknown as AssistantContentBlock);
    this.#blocks.close(out, index);
  }

  /** Metadata a call's later part brings that its block did not start with. */
  #lateMetadata(
    callId: string,
    call: OpenCall,
    metadata: SharedV3ProviderMetadata | undefined,
  ): void {
    if (!metadata || Object.keys(metadata).length === 0) return;
    const merged = mergeMetadata(call.metadata, metadata);
    if (JSON.stringify(merged) === JSON.stringify(call.metadata ?? {})) return;
    call.metadata = merged;
    this.#onCallMetadata?.(callId, structuredClone(merged));
  }

  #stopCall(out: StreamEvent[], call: OpenCall): void {
    call.stopped = true;
    this.#blocks.close(out, call.block);
  }

  #finish(
    out: StreamEvent[],
    reason: LanguageModelV3FinishReason | undefined,
    usage: LanguageModelV3Usage | undefined,
  ): void {
    const unified: string | undefined = reason?.unified;
    const raw = reason?.raw;
    if (unified === "error") {
      this.#failed = true;
      out.push({
        type: "error",
        error: { type: "finish_error", message: `The model finished with an error (${raw}).` },
      });
      return;
    }
    if (unified === "other" && raw === undefined) {
      // No finish reason at all: the provider's stream ended before the model finished.
      this.#failed = true;
      throw new OverlapError(
        "stream_interrupted",
        "The model stream ended without a finish reason.",
      );
    }
    this.#finished = true;
    this.#closeParts(out);
    for (const call of [...this.#calls.values()].sort((a, b) => a.block - b.block)) {
      if (call.stopped) continue;
      // Text-encoded arguments whose JSON never came: the raw text, parsed strictly like any.
      if (call.textEncoded) this.#blocks.args(out, call.block, call.args);
      this.#stopCall(out, call);
    }
    // A provider that answered structured output through a tool reports that call as text, and
    // its raw `tool_use` under a unified `stop`: no call is left to run, so the turn ends.
    const answeredThroughTool = raw === "tool_use" && unified === "stop";
    const stopReason =
      raw !== undefined && MESSAGES_API_REASONS.has(raw) && !answeredThroughTool
        ? raw
        : // `other` with a reason of its own: the assembler infers tool_use or end_turn.
          (UNIFIED_TO_STOP[unified ?? ""] ?? null);
    out.push({ type: "message_delta", delta: { stop_reason: stopReason }, usage: toUsage(usage) });
    out.push({ type: "message_stop" });
  }
}

function protocol(message: string): OverlapError {
  return new OverlapError("stream_protocol", `Invalid model stream: ${message}.`);
}
