/**
 * The neutral stream vocabulary every provider adapter produces. It is the Messages API's streaming
 * vocabulary (the richest one: explicit per-block start and stop), with stop reasons normalised.
 * Other wire formats (OpenAI Chat Completions) are translated into it by their adapter, which is
 * where their missing per-call stop signal is synthesised.
 */

import type { StopReason } from "../protocol/stop-reason.js";
import type { Usage } from "../protocol/usage.js";
import type { AssistantContentBlock, Citation } from "./message.js";

/** A block as announced at `content_block_start` (tool inputs are still the `{}` placeholder). */
export type StartedContentBlock = AssistantContentBlock;

/** The incremental pieces of a block. */
export type ContentDelta =
  | { type: "text_delta"; text: string }
  | { type: "input_json_delta"; partial_json: string }
  | { type: "thinking_delta"; thinking: string }
  | { type: "signature_delta"; signature: string }
  | { type: "citations_delta"; citation: Citation }
  /** The whole content of a `compaction` block (server-side context compaction). */
  | { type: "compaction_delta"; content: string | null; encrypted_content?: string };

/** One event of a model's streamed response. */
export type StreamEvent =
  | {
      type: "message_start";
      message: {
        id: string;
        model: string;
        role?: "assistant";
        content?: AssistantContentBlock[];
        stop_reason?: string | null;
        usage?: Usage;
      };
    }
  | { type: "content_block_start"; index: number; content_block: StartedContentBlock }
  | { type: "content_block_delta"; index: number; delta: ContentDelta }
  | { type: "content_block_stop"; index: number }
  | {
      type: "message_delta";
      delta: { stop_reason?: string | null; stop_sequence?: string | null };
      usage?: Usage;
    }
  | { type: "message_stop" }
  | { type: "ping" }
  | { type: "error"; error: { type: string; message: string } };

const STOP_REASONS: Readonly<Record<string, StopReason>> = {
  end_turn: "end_turn",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
  stop_sequence: "stop_sequence",
  pause_turn: "pause_turn",
  refusal: "refusal",
  error: "error",
  // Anthropic: the context window filled up mid-generation; it is a truncation like max_tokens.
  model_context_window_exceeded: "max_tokens",
  // OpenAI Chat Completions finish reasons, for adapters that pass them through.
  stop: "end_turn",
  tool_calls: "tool_use",
  function_call: "tool_use",
  length: "max_tokens",
  content_filter: "refusal",
};

/** Maps any provider's stop/finish reason to the neutral set; unknown values end the turn. */
export function normalizeStopReason(reason: string | null | undefined): StopReason | null {
  if (reason == null) return null;
  if (typeof reason !== "string") return "end_turn"; // the stream is not trusted: never coerce
  // Own keys only: "constructor" or "__proto__" from a provider must not reach Object.prototype.
  return Object.hasOwn(STOP_REASONS, reason) ? (STOP_REASONS[reason] as StopReason) : "end_turn";
}
