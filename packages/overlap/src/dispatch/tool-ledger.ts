/**
 * The tool-execution ledger (B4): outcomes recorded by call id, so a retried or resumed round
 * reuses a finished side effect's outcome instead of running it again. The shop stores it in SQL;
 * {@link InMemoryToolLedger} serves tests and single-process use.
 */

import type { ToolOutcome } from "../tools/tool-outcome.js";

/** Durable record of finished tool calls, keyed by call id. */
export interface ToolLedger {
  /** The recorded outcome of a call, if it finished before. */
  lookup(callId: string): Promise<ToolOutcome | undefined>;
  /** Records a finished call. Called before the outcome is reported anywhere. */
  record(outcome: ToolOutcome): Promise<void>;
}

/** A ledger in memory. */
export class InMemoryToolLedger implements ToolLedger {
  readonly #outcomes = new Map<string, ToolOutcome>();

  async lookup(callId: string): Promise<ToolOutcome | undefined> {
    return this.#outcomes.get(callId);
  }

  async record(outcome: ToolOutcome): Promise<void> {
    this.#outcomes.set(outcome.callId, outcome);
  }

  /** Number of recorded outcomes. */
  get size(): number {
    return this.#outcomes.size;
  }
}
