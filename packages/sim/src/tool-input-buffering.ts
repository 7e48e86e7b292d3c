/**
 * Fine-grained tool streaming, as the Messages API does it. A client tool whose definition has
 * `eager_input_streaming: true` streams its input as it is generated (the paced deltas, not
 * validated: it may be invalid JSON or cut by `max_tokens`). Any other tool's input is buffered
 * server-side: the block starts on time, but its input arrives whole in one `input_json_delta`
 * right before `content_block_stop`. The legacy `anthropic-beta: fine-grained-tool-streaming-2025-05-14`
 * header turns eager streaming on for tools that leave the field unset (an explicit `false`
 * keeps buffering). Server tools (web search) are not affected. Pure.
 */

import type { PacedItem } from "./pacing.js";
import type { ResolvedScript } from "./resolve-script.js";
import { isJsonObject } from "./validate-request.js";

/** The legacy beta that made every tool stream eagerly before the per-tool field. */
export const FINE_GRAINED_TOOL_STREAMING_BETA = "fine-grained-tool-streaming-2025-05-14";

/**
 * The names of the request's client tools whose input streams eagerly: `eager_input_streaming`
 * true, or unset (absent or null) with the legacy beta header.
 */
export function eagerInputTools(
  body: Readonly<Record<string, unknown>>,
  headers: Readonly<Record<string, string>>,
): ReadonlySet<string> {
  const beta = (headers["anthropic-beta"] ?? "")
    .split(",")
    .some((name) => name.trim() === FINE_GRAINED_TOOL_STREAMING_BETA);
  const eager = new Set<string>();
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    if (!isJsonObject(tool) || typeof tool.name !== "string") continue;
    const flag = tool.eager_input_streaming;
    if (flag === true || (beta && (flag === undefined || flag === null))) eager.add(tool.name);
  }
  return eager;
}

/**
 * The paced items with the input of every `tool_use` block not in `eager` held back: its deltas
 * removed and their text sent as one delta at the block's stop, just before it (none when the
 * input is empty). Other blocks, and the times of starts and stops, are unchanged.
 */
export function bufferToolInput(
  script: ResolvedScript,
  items: readonly PacedItem[],
  eager: ReadonlySet<string>,
): PacedItem[] {
  const buffered = (index: number): boolean => {
    const block = script.blocks[index];
    return block?.type === "tool_use" && !eager.has(block.name);
  };
  const held = new Map<number, string>();
  const out: PacedItem[] = [];
  for (const item of items) {
    if (item.type === "delta" && buffered(item.index)) {
      held.set(item.index, (held.get(item.index) ?? "") + item.text);
      continue;
    }
    if (item.type === "block-stop" && held.has(item.index)) {
      const text = held.get(item.index) ?? "";
      held.delete(item.index);
      if (text !== "") out.push({ type: "delta", index: item.index, text, atMs: item.atMs });
    }
    out.push(item);
  }
  return out;
}
