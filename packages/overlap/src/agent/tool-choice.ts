/**
 * Which tool use the model is asked for in a round, in the AI SDK's vocabulary; each adapter
 * writes it in its provider's own field (see docs/guides/providers.md).
 */

import { OverlapError } from "../errors.js";
import type { ToolSpec } from "../tools/define-tool.js";

/**
 * - `auto` (the providers' default): the model decides whether to call tools;
 * - `none`: the model must not call tools (they stay described, so a conversation holding
 *   calls is still understood);
 * - `required`: the model must call at least one tool;
 * - `{ type: "tool", toolName }`: the model must call that tool (one of the round's tools).
 *
 * It applies to every round it is given for: a turn whose every round must call a tool ends only
 * through `stopWhen` or `maxRounds`, as in the AI SDK. Force a tool for one round by returning
 * `toolChoice` from `prepareRound` for that round only, or stop after it with
 * `stopWhen: hasToolCall(name)`.
 */
export type ToolChoice = "auto" | "none" | "required" | { type: "tool"; toolName: string };

/**
 * The error of a choice the round cannot honour: a forced tool that is not among the tools
 * offered this round, or `required` with no tool to call. Undefined when the choice is fine.
 */
export function toolChoiceProblem(
  choice: ToolChoice | undefined,
  tools: readonly ToolSpec[],
  withOutput = false,
): OverlapError | undefined {
  if (choice === undefined || typeof choice === "string") {
    // With structured output, an answer tool may be the one the model calls.
    if (choice === "required" && tools.length === 0 && !withOutput) {
      return new OverlapError(
        "invalid_tool_choice",
        'toolChoice "required" was given for a round that offers no tools.',
        { details: { toolChoice: choice } },
      );
    }
    return undefined;
  }
  if (tools.some((tool) => tool.name === choice.toolName)) return undefined;
  return new OverlapError(
    "invalid_tool_choice",
    `toolChoice forces the tool "${choice.toolName}", which is not among this round's tools (${
      tools.map((tool) => tool.name).join(", ") || "none"
    }); add it to the executor or to activeTools.`,
    { details: { toolChoice: choice, tools: tools.map((tool) => tool.name) } },
  );
}
