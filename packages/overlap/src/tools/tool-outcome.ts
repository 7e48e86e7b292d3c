/**
 * What one tool call produced: the text the model reads next round, and the formal UI
 * events for the front end. Every way a call can end is a ToolOutcome, never an exception.
 */

import type { ToolProblem } from "../protocol/tool-problem.js";
import type { UiEvent } from "../protocol/ui-event.js";

/**
 * How a call ended.
 * - `ok`: the tool ran and returned.
 * - `error`: the tool ran and threw, or reported an error itself.
 * - `invalid_input`: the arguments never became valid JSON, or failed the schema; not run.
 * - `unknown_tool`: no tool of that name; not run.
 * - `timeout`: the tool exceeded its time limit and was aborted.
 * - `interrupted`: the tool was running when the round was interrupted, and was aborted.
 * - `not_executed`: the tool never started (deferred after a non-tool_use stop, stream cut,
 *   cancelled while waiting for the user's approval...).
 * - `declined`: the tool needs the user's approval, and the user declined or did not answer in
 *   time; never run.
 */
export type ToolOutcomeStatus =
  | "ok"
  | "error"
  | "invalid_input"
  | "unknown_tool"
  | "timeout"
  | "interrupted"
  | "not_executed"
  | "declined";

/** The uniform result of a tool call. */
export interface ToolOutcome {
  callId: string;
  name: string;
  status: ToolOutcomeStatus;
  /** The tool_result content the model reads in the next round. */
  resultText: string;
  /**
   * What the tool returned, as data: the object or array (of which `resultText` is the JSON), a
   * result's `data`, or the text; absent when the call did not return.
   */
  output?: unknown;
  /** Formal UI events, emitted in call order after the join (the result channel). */
  events: UiEvent[];
  /** Whether the tool_result is sent with `is_error: true`. */
  isError: boolean;
  /** Why it failed, for programs (a code and its facts), beside the text the model reads. */
  problem?: ToolProblem;
  /**
   * The unexpected exception the tool threw (status `error`), for the host's logs and tests: the
   * model and the UI read only a masked `resultText`. In memory only (JSON keeps nothing of it).
   */
  error?: unknown;
  /** True when this outcome was reused from the ledger instead of running the tool (exactly once across retries). */
  replayed?: boolean;
  /**
   * Set when the tool refused to run because its approved effect no longer matched the state
   * (it threw `EffectChangedError`; nothing happened): the round asks the user again instead of
   * answering the call with this outcome. `current` is the effect the tool found, when it said.
   */
  effectChanged?: { current?: unknown };
}

/** Builds an outcome for a call that did not produce a real result. */
export function failedOutcome(
  callId: string,
  name: string,
  status: Exclude<ToolOutcomeStatus, "ok">,
  resultText: string,
  problem?: ToolProblem,
): ToolOutcome {
  const outcome: ToolOutcome = { callId, name, status, resultText, events: [], isError: true };
  if (problem !== undefined) outcome.problem = problem;
  return outcome;
}
