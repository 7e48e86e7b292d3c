/**
 * The round journal: the calls of the round in flight, persisted as they become complete, so a
 * process killed mid-round leaves a record of every call it may have started. `onMessages` makes a
 * round durable only once it ended; until then the journal (plus the ledger, which records each
 * outcome with its call) is what a restarted process rebuilds the round from (`restoreRound`).
 *
 * Why the journal is not awaited before a call starts: the tools whose effects matter record their
 * outcome, with the call's block, in the effect's own transaction (`ctx.call`, `ctx.outcome`), so
 * an effect never exists without a record that names its call, whatever became of the journal
 * write. The journal adds the calls that did not (or not yet) produce an effect, which a restart
 * answers as not run. Waiting for it would delay every tool by one write for no guarantee more.
 * A tool whose effect lives elsewhere (an HTTP API) leaves no such record: the durable host holds
 * its calls until their journal write settled (`journaledBeforeExternal`), so that a restart knows
 * of every external call that may have gone out.
 */

import type { ToolCall } from "../stream/tool-call.js";

/** Where a host persists the calls of the round in flight. */
export interface RoundJournal {
  /**
   * Moment 2: a local call's arguments are complete and parsed (valid calls only; invalid ones
   * never run). Called before the call is dispatched, not awaited by it; the round waits for
   * every pending write before it ends, so the round's messages are handed to `onMessages` only
   * after its journal writes settled. A rejection is reported to `onJournalError`.
   */
  callComplete(call: ToolCall): Promise<void> | void;
  /**
   * The round's messages were persisted by `onMessages` (or there is no `onMessages`): its
   * calls may go. Not called when that write failed; the calls then serve the next restart.
   * `calls` are the round's own (those given to `callComplete`, in call order). A host whose
   * conversation write clears the journal in the same transaction needs nothing here.
   */
  roundEnd?(round: number, calls: readonly ToolCall[]): Promise<void> | void;
}

/** A journal in memory, for tests and single-process use. */
export class InMemoryRoundJournal implements RoundJournal {
  readonly #entries = new Map<string, ToolCall>();

  callComplete(call: ToolCall): void {
    this.#entries.set(call.id, structuredClone(call));
  }

  roundEnd(_round: number, calls: readonly ToolCall[]): void {
    for (const call of calls) this.#entries.delete(call.id);
  }

  /** The calls not cleared yet, in journal order. */
  get entries(): ToolCall[] {
    return [...this.#entries.values()].map((call) => structuredClone(call));
  }
}
