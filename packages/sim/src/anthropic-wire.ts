/**
 * The Messages API's wire format, from a resolved script and its pacing: the streamed events
 * exactly as the API sends them, and the non-streaming `message` body. Pure.
 *
 * Stream: `message_start` (empty content, `output_tokens: 1`), then per block
 * `content_block_start` (tool calls with the `input: {}` placeholder, followed by an empty
 * `input_json_delta`), deltas (`text_delta`, `thinking_delta` then one `signature_delta`,
 * `input_json_delta`), `content_block_stop`; a `ping` after the first block starts;
 * `message_delta` with the stop reason and cumulative usage; `message_stop`. Web search results
 * arrive whole: a start carrying the full block, then its stop. A text that cites starts with
 * `citations: []` and gets one `citations_delta` per source (`web_search_result_location`:
 * `cited_text`, `url`, `title`, `encrypted_index`) before its first `text_delta`, as the API
 * sends a cited passage.
 */

import type { PacedItem } from "./pacing.js";
import { outputTokens, type ResolvedBlock, type ResolvedScript } from "./resolve-script.js";
import { sseEvent, type WireFrame } from "./wire-frame.js";

/** What the Anthropic encoders need besides the script. */
export interface AnthropicWireContext {
  messageId: string;
  model: string;
  inputTokens: number;
}

/** The exact `ping` event the API sends (its data has a space after the colon). */
export const ANTHROPIC_PING = 'event: ping\ndata: {"type": "ping"}\n\n';

/** The error event sent mid-stream by the `error-after` fault. */
export const ANTHROPIC_OVERLOADED_EVENT = sseEvent("error", {
  type: "error",
  error: { type: "overloaded_error", message: "Overloaded" },
});

const CACHE_CREATION = { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 };

function searches(script: ResolvedScript): number {
  return script.blocks.filter((b) => b.type === "server_tool_use").length;
}

/** The streamed events, each with the time to send it. */
export function encodeAnthropicStream(
  script: ResolvedScript,
  items: readonly PacedItem[],
  context: AnthropicWireContext,
): WireFrame[] {
  const frames: WireFrame[] = [];
  const push = (atMs: number, text: string): void => {
    frames.push({ atMs, text });
  };
  push(
    0,
    sseEvent("message_start", {
      type: "message_start",
      message: {
        model: context.model,
        id: context.messageId,
        type: "message",
        role: "assistant",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: context.inputTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          cache_creation: CACHE_CREATION,
          output_tokens: 1,
          service_tier: "standard",
        },
      },
    }),
  );
  let pinged = false;
  for (const item of items) {
    if (item.type === "message-end") {
      if (!pinged) push(item.atMs, ANTHROPIC_PING);
      const usage: Record<string, unknown> = {
        input_tokens: context.inputTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: outputTokens(script),
      };
      if (searches(script) > 0) usage.server_tool_use = { web_search_requests: searches(script) };
      push(
        item.atMs,
        sseEvent("message_delta", {
          type: "message_delta",
          delta: { stop_reason: script.stopReason, stop_sequence: null },
          usage,
        }),
      );
      push(item.atMs, sseEvent("message_stop", { type: "message_stop" }));
      continue;
    }
    const index = item.index;
    const block = script.blocks[index];
    if (block === undefined) continue;
    if (item.type === "block-start") {
      push(
        item.atMs,
        sseEvent("content_block_start", {
          type: "content_block_start",
          index,
          content_block: startBlock(block),
        }),
      );
      if (block.type === "tool_use" || block.type === "server_tool_use") {
        push(item.atMs, delta(index, { type: "input_json_delta", partial_json: "" }));
      }
      if (block.type === "text") {
        for (const citation of citationsOf(block)) {
          push(item.atMs, delta(index, { type: "citations_delta", citation }));
        }
      }
      if (!pinged) push(item.atMs, ANTHROPIC_PING);
      pinged = true;
    } else if (item.type === "delta") {
      if (block.type === "text")
        push(item.atMs, delta(index, { type: "text_delta", text: item.text }));
      else if (block.type === "thinking")
        push(item.atMs, delta(index, { type: "thinking_delta", thinking: item.text }));
      else push(item.atMs, delta(index, { type: "input_json_delta", partial_json: item.text }));
    } else {
      if (block.type === "thinking") {
        push(item.atMs, delta(index, { type: "signature_delta", signature: block.signature }));
      }
      push(item.atMs, sseEvent("content_block_stop", { type: "content_block_stop", index }));
    }
  }
  return frames;
}

function delta(index: number, body: Record<string, unknown>): string {
  return sseEvent("content_block_delta", { type: "content_block_delta", index, delta: body });
}

/** A block as its `content_block_start` carries it: empty, except web search results (whole). */
function startBlock(block: ResolvedBlock): unknown {
  switch (block.type) {
    case "text":
      return block.citations
        ? { citations: [], type: "text", text: "" }
        : { type: "text", text: "" };
    case "thinking":
      return { type: "thinking", thinking: "", signature: "" };
    case "tool_use":
    case "server_tool_use":
      return { type: block.type, id: block.id, name: block.name, input: {} };
    case "web_search_tool_result":
      return fullBlock(block);
  }
}

/** Parsed arguments for the non-streaming body; `{}` when the text is not a JSON object. */
function parsedInput(args: string): unknown {
  if (args === "") return {};
  try {
    const value: unknown = JSON.parse(args);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/** A text's sources as the API cites web search results. */
function citationsOf(block: Extract<ResolvedBlock, { type: "text" }>): Record<string, unknown>[] {
  return (block.citations ?? []).map((c) => ({
    type: "web_search_result_location",
    cited_text: c.citedText,
    url: c.url,
    title: c.title,
    encrypted_index: c.encryptedIndex,
  }));
}

function fullBlock(block: ResolvedBlock): unknown {
  switch (block.type) {
    case "text":
      return block.citations
        ? { citations: citationsOf(block), type: "text", text: block.text }
        : { type: "text", text: block.text };
    case "thinking":
      return { type: "thinking", thinking: block.thinking, signature: block.signature };
    case "tool_use":
    case "server_tool_use":
      return { type: block.type, id: block.id, name: block.name, input: parsedInput(block.args) };
    case "web_search_tool_result":
      return {
        type: "web_search_tool_result",
        tool_use_id: block.toolUseId,
        content: block.results.map((r) => ({
          type: "web_search_result",
          title: r.title,
          url: r.url,
          encrypted_content: r.encryptedContent,
          page_age: r.pageAge,
        })),
      };
  }
}

/**
 * The non-streaming `message` body. A tool call whose arguments are not a JSON object (the
 * `invalid-json` and `max-tokens` faults) carries `input: {}`: this shape cannot hold raw text.
 */
export function anthropicMessageBody(
  script: ResolvedScript,
  context: AnthropicWireContext,
): unknown {
  const usage: Record<string, unknown> = {
    input_tokens: context.inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: CACHE_CREATION,
    output_tokens: outputTokens(script),
    service_tier: "standard",
  };
  if (searches(script) > 0) usage.server_tool_use = { web_search_requests: searches(script) };
  return {
    id: context.messageId,
    type: "message",
    role: "assistant",
    model: context.model,
    content: script.blocks.map(fullBlock),
    stop_reason: script.stopReason,
    stop_sequence: null,
    usage,
  };
}
