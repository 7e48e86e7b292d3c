/**
 * The one answer to a call whose arguments never became one JSON object: cut off before their end
 * (`input` is `null`) or not valid JSON. Such a call never runs. The dispatcher refuses it at the
 * join, where it knows how the response ended; the executor refuses it too (a call run outside a
 * round), where that is not known.
 */

import type { ParseToolInputResult } from "../json/parse-tool-input.js";
import type { StopReason } from "../protocol/stop-reason.js";
import type { ToolCall } from "../stream/tool-call.js";
import { failedOutcome, type ToolOutcome } from "./tool-outcome.js";

/** How the call's response ended: a response cut by its token limit cut its last call. */
export interface ResponseEnd {
  stopReason: StopReason;
  /** Whether the call is the response's last one. */
  last: boolean;
}

/**
 * The outcome of a call whose strict parse failed (`parsed`) or never happened (`null`, the
 * arguments were cut off). With `end`, a cut by max_tokens is told as such (`input_cut`), so the
 * model keeps its next response shorter.
 */
export function unparsedCallOutcome(
  call: ToolCall,
  parsed: Extract<ParseToolInputResult, { ok: false }> | null,
  end?: ResponseEnd,
): ToolOutcome {
  const { id, name } = call;
  const atLimit = end?.stopReason === "max_tokens";
  if (parsed === null) {
    return atLimit
      ? failedOutcome(
          id,
          name,
          "invalid_input",
          `${name} was not run: the response reached its length limit (max_tokens) before the arguments were complete. Call it again with complete arguments, keeping the response shorter.`,
          { code: "input_cut" },
        )
      : failedOutcome(
          id,
          name,
          "not_executed",
          `${name} was not run: the response was interrupted before the arguments were complete. Call it again with complete arguments.`,
        );
  }
  // Only the response's last call can have been cut by its token limit.
  const cut = atLimit && end?.last === true;
  return failedOutcome(id, name, "invalid_input", `${name} was not run. ${parsed.error}`, {
    code: cut ? "input_cut" : "invalid_json",
  });
}
