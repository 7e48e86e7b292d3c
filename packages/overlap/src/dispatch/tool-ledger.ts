/**
 * The tool-execution ledger: outcomes recorded by call id, so a retried or resumed round
 * reuses a finished side effect's outcome instead of running it again. The shop stores it in SQL;
 * {@link InMemoryToolLedger} serves tests and single-process use.
 */

import type { ToolCall } from "../stream/tool-call.js";
import type { ToolOutcome } from "../tools/tool-outcome.js";

/** Durable record of finished tool calls, keyed by call id. */
export interface ToolLedger {
  /** The recorded outcome of a call, if it finished before. */
  lookup(callId: string): Promise<ToolOutcome | undefined>;
  /**
   * Records a finished call. Called before the outcome is reported anywhere. `call` is the call
   * itself (its tool_use block and position; absent when a host records an outcome of its own):
   * keep its `round`, `index` and `block`, so a restart can put a call that ran back into the
   * conversation (`restoreRound`). A record that exists already (written by the tool in its own
   * transaction) must be kept as it is.
   */
  record(outcome: ToolOutcome, call?: ToolCall): Promise<void>;
}

/** A ledger in memory. */
export class InMemoryToolLedger implements ToolLedger {
  readonly #outcomes = new Map<string, ToolOutcome>();

  async lookup(callId: string): Promise<ToolOutcome | undefined> {
    return this.#outcomes.get(callId);
  }

  async record(outcome: ToolOutcome, _call?: ToolCall): Promise<void> {
    if (!this.#outcomes.has(outcome.callId)) this.#outcomes.set(outcome.callId, outcome);
  }

  /** Number of recorded outcomes. */
  get size(): number {
    return this.#outcomes.size;
  }
}
