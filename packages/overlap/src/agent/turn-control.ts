/**
 * Loop control of a turn: when to stop before the model is done (`stopWhen`), what each round
 * runs with (`prepareRound`), and the turn's usage summed over its rounds. Small pure pieces the
 * round loop asks between rounds.
 */

import type { Usage } from "../protocol/usage.js";
import type { RoundResult } from "../round/streamed-round.js";
import type { Message } from "../stream/message.js";
import type { ModelClient } from "./model-client.js";
import type { ToolChoice } from "./tool-choice.js";

/** What a stop condition or `prepareRound` sees: the rounds so far and the conversation. */
export interface TurnState {
  /** The rounds this turn ran so far, in order. */
  rounds: readonly RoundResult[];
  /** The whole conversation so far. */
  messages: readonly Message[];
}

/**
 * Whether to stop the turn after a round that asked for tools (their results are in the
 * conversation): the turn then ends with stop reason `tool_use` and no error, and continues later
 * with a plain append.
 */
export type StopCondition = (state: TurnState) => boolean;

/** Stops once the turn ran `count` rounds. */
export function roundCountIs(count: number): StopCondition {
  return ({ rounds }) => rounds.length >= count;
}

/** Stops once a call of a tool of one of these names ran (in any round of the turn). */
export function hasToolCall(...names: readonly string[]): StopCondition {
  const wanted = new Set(names);
  return ({ rounds }) => rounds.some((r) => r.outcomes.some((o) => wanted.has(o.name)));
}

/** True when any of the conditions holds. */
export function shouldStop(
  conditions: StopCondition | readonly StopCondition[] | undefined,
  state: TurnState,
): boolean {
  if (conditions === undefined) return false;
  const list = typeof conditions === "function" ? [conditions] : conditions;
  return list.some((condition) => condition(state));
}

/** What `prepareRound` may change for the next round (absent fields: as the turn's options). */
export interface RoundPreparation {
  /** Another model for this round. */
  model?: ModelClient;
  /** The system prompt of this round. */
  system?: string;
  /** The names of the tools the model is offered this round (default: all of the executor's). */
  activeTools?: readonly string[];
  /**
   * The tool use asked for this round (default: the turn's `toolChoice`), e.g. a forced
   * `{ type: "tool", toolName }` for the first round only. A forced tool must be among the
   * round's tools, or the turn ends with `invalid_tool_choice`.
   */
  toolChoice?: ToolChoice;
}

/** Prepares a round before its request: `round` is its number (from 1). */
export type PrepareRound = (
  state: TurnState & { round: number },
) => RoundPreparation | undefined | Promise<RoundPreparation | undefined>;

/** The turn's usage: each field summed over the rounds that reported it. */
export function sumUsage(rounds: readonly RoundResult[]): Usage {
  const total: Record<string, number> = {};
  for (const { usage } of rounds) {
    for (const [key, value] of Object.entries(usage ?? {})) {
      if (typeof value === "number") total[key] = (total[key] ?? 0) + value;
    }
  }
  return total as Usage;
}
