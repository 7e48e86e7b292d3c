/**
 * A call as its round saw it at moment 2 (block stop): the tool_use block and where it stands.
 * The round journal receives it as soon as the arguments are complete, a tool receives it as
 * `ctx.entry`, and the ledger records it with the outcome, so a host can rebuild the call after a
 * crash even when only one of them reached storage (see `restoreRound`).
 */

import type { ToolUseBlock } from "../stream/message.js";

/** One complete local call of a model round. */
export interface CallEntry {
  /** The round's number within its turn, from 1. */
  round: number;
  /** The block's index in the assistant message: sorting by it gives call order. */
  index: number;
  /** The tool_use block exactly as it stands in the conversation (provider fields included). */
  block: ToolUseBlock;
}
