/**
 * The one record of a local tool call through its round. The BlockAssembler makes it when the
 * call's block stops (moment 2), from what it streamed; the EagerDispatcher starts it, the
 * ToolExecutor runs it (the tool sees it as `ctx.call`), the round journal and the ledger keep it,
 * and `restoreRound` puts it back into the conversation after a crash. The conversation itself
 * holds only `block`, the wire shape; the browser sees a call through events, never this record.
 */

import { type ParseToolInputResult, parseToolInput } from "../json/parse-tool-input.js";
import type { ToolUseBlock } from "./message.js";

/** One local call of a model round: where it stands, what was streamed, and what it parsed to. */
export interface ToolCall {
  /** The call id (the tool_use id, made unique in the conversation): the ledger's key. */
  id: string;
  /** The name of the tool called. */
  name: string;
  /** The round's number within its turn, from 1. */
  round: number;
  /** The block's index in the assistant message: sorting by it gives call order. */
  index: number;
  /** The argument text as streamed (`""` when the call arrived whole at its block start). */
  raw: string;
  /**
   * Strict parse of the complete arguments: only an `ok` one runs (a preview can never be one);
   * its `value` is also `block.input`. `null` when the block never stopped (the stream was cut
   * before the arguments were complete).
   */
  input: ParseToolInputResult | null;
  /** The tool_use block exactly as the conversation holds it (provider fields included). */
  block: ToolUseBlock;
}

/**
 * The record of a call given whole as its tool_use block, for a host that runs a tool outside a
 * streamed round (its own loop, a test, a server of tools): the block's input goes through the
 * same strict parse as streamed arguments, so nothing unchecked reaches a tool either way.
 */
export function toolCallOf(
  block: ToolUseBlock,
  position: { round?: number; index?: number } = {},
): ToolCall {
  const raw = JSON.stringify(block.input ?? {});
  return {
    id: block.id,
    name: block.name,
    round: position.round ?? 1,
    index: position.index ?? 0,
    raw,
    input: parseToolInput(raw),
    block,
  };
}
