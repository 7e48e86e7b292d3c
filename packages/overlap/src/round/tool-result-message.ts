/**
 * The user message that answers a round's calls: one message for all of them, so the
 * conversation stays valid (every tool_use answered in the next message, results in call order).
 */

import type { ToolResultBlock, UserMessage } from "../stream/message.js";
import type { ToolOutcome } from "../tools/tool-outcome.js";

/** ONE user message answering every call, tool_result blocks in call order. */
export function toolResultMessage(outcomes: readonly ToolOutcome[]): UserMessage {
  return {
    role: "user",
    content: outcomes.map(
      (o): ToolResultBlock =>
        o.isError
          ? { type: "tool_result", tool_use_id: o.callId, content: o.resultText, is_error: true }
          : { type: "tool_result", tool_use_id: o.callId, content: o.resultText },
    ),
  };
}
