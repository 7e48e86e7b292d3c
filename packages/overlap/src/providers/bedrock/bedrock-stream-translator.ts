/**
 * BedrockStreamTranslator: a pure state machine that turns the events of an Amazon
 * Bedrock `ConverseStream` response (as the AWS SDK decodes them: one union member per event)
 * into the neutral stream events.
 *
 * The end-of-call signal is explicit, as in the Messages API: a call starts with
 * `contentBlockStart` carrying `start.toolUse` `{ toolUseId, name }` (moment 1), its input
 * streams as string fragments in `contentBlockDelta` `delta.toolUse.input`, and its
 * `contentBlockStop` completes it (moment 2): it is dispatched right then, while the model writes
 * on.
 *
 * Blocks: text and reasoning have no `contentBlockStart` in Converse; the first delta at a new
 * `contentBlockIndex` opens the block. `delta.text` → a text block; `delta.reasoningContent`
 * `text` / `signature` → a thinking block (`thinking_delta`, `signature_delta`), kept with its
 * signature because Bedrock requires Claude's reasoning back in a tool loop; `redactedContent`
 * (bytes) → a `redacted_thinking` block whose `data` is their base64, announced whole at its
 * stop. Neutral block indexes count the translated blocks from 0.
 *
 * The provider's own tools (Nova's `nova_code_interpreter`, a `systemTool`): a `toolUse` start
 * with `type: "server_tool_use"` opens a `server_tool_use` block (its input streams and completes
 * at its stop, as a client call's does, but it is shown, never run here); the `toolResult` block
 * the service streams after it (`start.toolResult` `{ toolUseId, type, status }`, then
 * `delta.toolResult` content pieces) becomes a {@link BedrockToolResultBlock} holding the
 * Converse `toolResult` as it will be sent back (consecutive text pieces joined), announced whole
 * at its stop. `delta.citation` on a text block → a citation on that text block, the
 * `CitationsDelta` as received with `type: "bedrock_citation"`. Images are not translated (their
 * events are skipped).
 *
 * The end: `messageStop.stopReason` `end_turn`, `tool_use`, `max_tokens`, `stop_sequence` as
 * they are; `guardrail_intervened` and `content_filtered` → `refusal`;
 * `model_context_window_exceeded` → `max_tokens`; `malformed_model_output` and
 * `malformed_tool_use` → a neutral `error` event (the output cannot be used). Usage comes in the
 * `metadata` event that follows `messageStop`, so the message's `message_delta` and
 * `message_stop` are emitted there (or by {@link BedrockStreamTranslator.end} when the stream
 * ends without it). The stream's exception members (`internalServerException`,
 * `modelStreamErrorException`, `validationException`, `throttlingException`,
 * `serviceUnavailableException`) become a neutral `error` event; the SDK usually throws them
 * instead, which the adapter turns into the same event.
 */

import type { ConverseStreamOutput } from "@aws-sdk/client-bedrock-runtime";
import { OverlapError } from "../../errors.js";
import type { Usage } from "../../protocol/usage.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { BlockWriter } from "../block-writer.js";

/** One event of a ConverseStream response, as the AWS SDK yields it. */
export type BedrockStreamEvent = ConverseStreamOutput;

/** The block type of a provider-side tool's result in a Converse stream. */
export const BEDROCK_TOOL_RESULT = "bedrock_tool_result";

/**
 * Amazon Bedrock only: the result of a provider-side tool (a `systemTool` such as Nova's
 * `nova_code_interpreter`) that the service streamed in the assistant message. `content` is the
 * Converse `toolResult` block (`toolUseId`, `type`, `status`, `content`) as received;
 * `converseStreamInput` sends it back in place with the `server_tool_use` block it answers (as a
 * `toolUse` of `type: "server_tool_use"`); every other adapter leaves out both blocks.
 */
export interface BedrockToolResultBlock {
  type: typeof BEDROCK_TOOL_RESULT;
  /** The `server_tool_use` block it answers. */
  tool_use_id: string;
  content: Readonly<Record<string, unknown>>;
}

/** The citation type of a Converse `citation` delta (the `CitationsDelta` fields beside it). */
export const BEDROCK_CITATION = "bedrock_citation";

/** Options of a {@link BedrockStreamTranslator}. */
export interface BedrockStreamTranslatorOptions {
  /** The message id to report (Converse has none; the adapter passes the request id). */
  id?: string;
  /** The model to report (the model id the request named). */
  model?: string;
}

/** The stream exception members, by the name the SDK gives their exception. */
export const BEDROCK_STREAM_EXCEPTIONS: Readonly<Record<string, string>> = {
  internalServerException: "InternalServerException",
  modelStreamErrorException: "ModelStreamErrorException",
  validationException: "ValidationException",
  throttlingException: "ThrottlingException",
  serviceUnavailableException: "ServiceUnavailableException",
};

/** The exception members and their names, listed once (they are looked for in every event). */
const EXCEPTION_MEMBERS = Object.entries(BEDROCK_STREAM_EXCEPTIONS);

/** Stop reasons meaning the model's output cannot be used: a stream error, not a stop. */
const FAILURES = new Set(["malformed_model_output", "malformed_tool_use"]);

const STOP_REASONS: Readonly<Record<string, string>> = {
  guardrail_intervened: "refusal",
  content_filtered: "refusal",
  model_context_window_exceeded: "max_tokens",
};

type StartedBlock = Extract<StreamEvent, { type: "content_block_start" }>["content_block"];

/** A Converse block and what it became. */
type BlockState =
  | { kind: "text" | "thinking" | "tool"; index: number; stopped: boolean }
  | { kind: "redacted"; index: number; bytes: Uint8Array[]; stopped: boolean }
  /** A provider-side tool's result: its start fields and content, announced at its stop. */
  | {
      kind: "result";
      index: number;
      start: Record<string, unknown>;
      content: Array<Record<string, unknown>>;
      stopped: boolean;
    }
  /** A block that is not translated: its events are skipped. */
  | { kind: "skipped"; stopped: boolean };

/** Translates one ConverseStream response. Create one per response. */
export class BedrockStreamTranslator {
  readonly #options: BedrockStreamTranslatorOptions;
  #started = false;
  readonly #writer = new BlockWriter();
  /** Blocks by Converse `contentBlockIndex`. */
  readonly #blocks = new Map<number, BlockState>();
  #stopReason: string | undefined;
  #ended = false;
  #failed = false;
  #usage: Usage = {};

  constructor(options: BedrockStreamTranslatorOptions = {}) {
    this.#options = options;
  }

  /** True once `messageStop` arrived: the message is complete. */
  get finished(): boolean {
    return this.#stopReason !== undefined;
  }

  /** True once the translator emitted an `error` event: nothing more will be translated. */
  get failed(): boolean {
    return this.#failed;
  }

  /**
   * Neutral events for one ConverseStream event, in order.
   * @throws OverlapError `stream_protocol` for an event that contradicts the stream so far (a
   *   call's input before its start, a block started twice, a delta of another kind).
   */
  push(event: BedrockStreamEvent): StreamEvent[] {
    const out: StreamEvent[] = [];
    if (this.#failed || this.#ended) return out;
    const exception = streamException(event);
    if (exception) {
      this.#failed = true;
      out.push({ type: "error", error: exception });
      return out;
    }
    if (event.messageStart) {
      this.#start(out);
    } else if (event.contentBlockStart) {
      this.#start(out);
      this.#blockStart(out, event.contentBlockStart);
    } else if (event.contentBlockDelta) {
      this.#start(out);
      this.#blockDelta(out, event.contentBlockDelta);
    } else if (event.contentBlockStop) {
      this.#start(out);
      this.#blockStop(out, indexOf(event.contentBlockStop.contentBlockIndex));
    } else if (event.messageStop) {
      this.#start(out);
      this.#messageStop(out, event.messageStop.stopReason);
    } else if (event.metadata) {
      this.#readUsage(event.metadata.usage);
      if (this.#stopReason !== undefined) out.push(...this.#finish());
    }
    return out;
  }

  /**
   * Ends the stream. A complete message whose `metadata` never came gets its message_delta and
   * message_stop now; an unfinished one (the connection was cut) gets nothing more, so the round
   * sees the cut.
   */
  end(): StreamEvent[] {
    if (this.#failed || this.#ended || this.#stopReason === undefined) return [];
    return this.#finish();
  }

  #start(out: StreamEvent[]): void {
    if (this.#started) return;
    this.#started = true;
    out.push({
      type: "message_start",
      message: {
        id: this.#options.id ?? "",
        model: this.#options.model ?? "",
        role: "assistant",
        content: [],
        stop_reason: null,
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    });
  }

  #blockStart(
    out: StreamEvent[],
    event: NonNullable<BedrockStreamEvent["contentBlockStart"]>,
  ): void {
    const at = indexOf(event.contentBlockIndex);
    if (this.#blocks.has(at)) throw protocol(`block ${at} started twice`);
    const toolResult = event.start?.toolResult;
    if (toolResult) {
      const start = structuredClone(toolResult) as unknown as Record<string, unknown>;
      this.#blocks.set(at, { kind: "result", index: -1, start, content: [], stopped: false });
      return;
    }
    const toolUse = event.start?.toolUse;
    if (!toolUse) {
      // Images are not translated.
      this.#blocks.set(at, { kind: "skipped", stopped: false });
      return;
    }
    const index = this.#writer.open(out, {
      type: toolUse.type === "server_tool_use" ? "server_tool_use" : "tool_use",
      id: String(toolUse.toolUseId ?? ""),
      name: String(toolUse.name ?? ""),
      input: {},
    });
    this.#blocks.set(at, { kind: "tool", index, stopped: false });
  }

  #blockDelta(
    out: StreamEvent[],
    event: NonNullable<BedrockStreamEvent["contentBlockDelta"]>,
  ): void {
    const at = indexOf(event.contentBlockIndex);
    const delta = event.delta;
    let state = this.#blocks.get(at);
    if (state?.kind === "skipped" || !delta) return;
    if (state?.stopped) throw protocol(`delta for block ${at} after its stop`);
    if (typeof delta.text === "string") {
      state ??= this.#openAt(out, at, "text");
      expectKind(state, "text", at);
      if (delta.text !== "") {
        this.#delta(out, state, { type: "text_delta", text: delta.text });
      }
      return;
    }
    if (delta.toolUse) {
      if (!state) throw protocol(`tool input for block ${at}, which never started`);
      expectKind(state, "tool", at);
      const input = delta.toolUse.input ?? "";
      this.#writer.args(out, (state as { index: number }).index, input);
      return;
    }
    if (delta.toolResult) {
      if (state?.kind !== "result") {
        throw protocol(`tool result content for block ${at}, which is not a tool result`);
      }
      for (const piece of delta.toolResult as unknown[]) {
        if (typeof piece !== "object" || piece === null) continue;
        const item = structuredClone(piece) as Record<string, unknown>;
        const last = state.content.at(-1);
        const keys = Object.keys(item);
        if (
          keys.length === 1 &&
          typeof item.text === "string" &&
          last &&
          typeof last.text === "string" &&
          Object.keys(last).length === 1
        ) {
          last.text += item.text;
        } else {
          state.content.push(item);
        }
      }
      return;
    }
    if (delta.citation) {
      state ??= this.#openAt(out, at, "text");
      expectKind(state, "text", at);
      const citation = { type: BEDROCK_CITATION, ...structuredClone(delta.citation) };
      this.#delta(out, state, { type: "citations_delta", citation });
      return;
    }
    const reasoning = delta.reasoningContent;
    if (!reasoning) return; // images: not translated
    if (reasoning.redactedContent !== undefined) {
      if (!state) {
        state = { kind: "redacted", index: -1, bytes: [], stopped: false };
        this.#blocks.set(at, state);
      }
      if (state.kind !== "redacted") throw mismatch(at, "redactedContent", state.kind);
      state.bytes.push(reasoning.redactedContent);
      return;
    }
    if (typeof reasoning.text === "string") {
      state ??= this.#openAt(out, at, "thinking");
      expectKind(state, "thinking", at);
      if (reasoning.text !== "") {
        this.#delta(out, state, { type: "thinking_delta", thinking: reasoning.text });
      }
      return;
    }
    if (typeof reasoning.signature === "string") {
      state ??= this.#openAt(out, at, "thinking");
      expectKind(state, "thinking", at);
      this.#delta(out, state, { type: "signature_delta", signature: reasoning.signature });
    }
  }

  #blockStop(out: StreamEvent[], at: number): void {
    const state = this.#blocks.get(at);
    // A stop for a block that sent nothing (an empty text) has nothing to end.
    if (!state || state.stopped) return;
    state.stopped = true;
    if (state.kind === "skipped") return;
    if (state.kind === "redacted") {
      // Redacted reasoning arrives whole: announced at its stop, with all its bytes.
      state.index = this.#writer.open(out, {
        type: "redacted_thinking",
        data: base64(state.bytes),
      });
    }
    if (state.kind === "result") {
      // A provider-side result arrives whole: announced at its stop, with all its content.
      const block: BedrockToolResultBlock = {
        type: BEDROCK_TOOL_RESULT,
        tool_use_id: String(state.start.toolUseId ?? ""),
        content: { ...state.start, content: state.content },
      };
      state.index = this.#writer.open(out, block as unknown as StartedBlock);
    }
    this.#writer.close(out, state.index);
  }

  #messageStop(out: StreamEvent[], reason: string | undefined): void {
    // messageStop ends every block still open, in order: each open call is complete there.
    for (const at of [...this.#blocks.keys()].sort((a, b) => a - b)) this.#blockStop(out, at);
    const stop = reason ?? "end_turn";
    if (FAILURES.has(stop)) {
      this.#failed = true;
      out.push({
        type: "error",
        error: { type: stop, message: `The model's output was unusable (${stop}).` },
      });
      return;
    }
    this.#stopReason = STOP_REASONS[stop] ?? stop;
  }

  #finish(): StreamEvent[] {
    this.#ended = true;
    return [
      {
        type: "message_delta",
        delta: { stop_reason: this.#stopReason ?? "end_turn" },
        usage: this.#usage,
      },
      { type: "message_stop" },
    ];
  }

  #readUsage(usage: NonNullable<BedrockStreamEvent["metadata"]>["usage"]): void {
    if (!usage) return;
    if (usage.inputTokens != null) this.#usage.input_tokens = usage.inputTokens;
    if (usage.outputTokens != null) this.#usage.output_tokens = usage.outputTokens;
    if (usage.cacheReadInputTokens != null) {
      this.#usage.cache_read_input_tokens = usage.cacheReadInputTokens;
    }
    if (usage.cacheWriteInputTokens != null) {
      this.#usage.cache_creation_input_tokens = usage.cacheWriteInputTokens;
    }
  }

  #openAt(out: StreamEvent[], at: number, kind: "text" | "thinking"): BlockState {
    const block: StartedBlock =
      kind === "text"
        ? { type: "text", text: "" }
        : { type: "thinking", thinking: "", signature: "" };
    const state: BlockState = { kind, index: this.#writer.open(out, block), stopped: false };
    this.#blocks.set(at, state);
    return state;
  }

  #delta(
    out: StreamEvent[],
    state: BlockState,
    delta: Extract<StreamEvent, { type: "content_block_delta" }>["delta"],
  ): void {
    this.#writer.delta(out, (state as { index: number }).index, delta);
  }
}

/** The neutral error of a stream exception member, when `event` is one. */
function streamException(event: BedrockStreamEvent): { type: string; message: string } | undefined {
  for (const [member, name] of EXCEPTION_MEMBERS) {
    const value = (event as unknown as Record<string, unknown>)[member];
    if (value === undefined || value === null) continue;
    const message = (value as { message?: unknown }).message;
    return {
      type: name,
      message: typeof message === "string" && message !== "" ? message : `${name} from Bedrock.`,
    };
  }
  return undefined;
}

function indexOf(value: number | undefined): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw protocol(`invalid contentBlockIndex ${String(value)}`);
  }
  return value;
}

function expectKind(state: BlockState, kind: "text" | "thinking" | "tool", at: number): void {
  if (state.kind !== kind) throw mismatch(at, kind, state.kind);
}

/** Base64 of the bytes (no Buffer: the SDK also runs in browsers). */
function base64(chunks: readonly Uint8Array[]): string {
  let binary = "";
  for (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i += 0x8000) {
      binary += String.fromCharCode(...chunk.subarray(i, i + 0x8000));
    }
  }
  return btoa(binary);
}

function protocol(message: string): OverlapError {
  return new OverlapError("stream_protocol", `Invalid Bedrock stream: ${message}.`);
}

function mismatch(at: number, what: string, kind: string): OverlapError {
  return protocol(`${what} content for block ${at}, which is a ${kind} block`);
}
