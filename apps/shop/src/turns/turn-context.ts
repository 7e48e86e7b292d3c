/**
 * What a turn's body receives from the turn it runs in (`server/turn-registry.ts` builds it): the
 * turn sits below the server, which chooses a body and runs it, never the other way.
 */

import type { AgentEvent, ApprovalSource } from "overlap-runtime";
import type { TurnLease } from "overlap-runtime/durable";

/** What a turn's body receives. */
export interface TurnContext {
  turnId: string;
  /** Logs an event (and wakes every reader). */
  emit(event: AgentEvent): void;
  /** Aborted by `TurnRegistry.cancel` or `TurnRegistry.close`. */
  signal: AbortSignal;
  /** Where the turn's calls that need approval wait for the approval route's answer. */
  approvals: ApprovalSource;
  /** How long such a call waits (`undefined`: the runtime's default, 5 minutes). */
  approvalTimeoutMs: number | undefined;
  /**
   * The lease the turn holds (its turn id) when it runs under one: pass it to every write, which
   * the database then refuses once another instance took the chat over.
   */
  lease: string | undefined;
  /** The lease of a dead instance's turn this turn took over (the turn repairs first). */
  tookOver: TurnLease | undefined;
}
