/**
 * What both turn bodies, the streamed one (`streamed/`) and the whole-response one (`whole/`),
 * take and give: the turn's input, the body `TurnRegistry.start` runs, what both hand their
 * runner alike and the turn's last log line.
 */

import type { ModelClient } from "overlap-runtime";
import type { Logger } from "pino";
import type { ShopAgent } from "../agents/shop-agent.js";
import type { ShopStore } from "../db/shop-store.js";
import type { TurnContext } from "./turn-context.js";

/** What a turn needs. */
export interface ShopTurnInput {
  store: ShopStore;
  /** The model the streamed path talks to (the whole path gets its endpoint when built). */
  model: ModelClient;
  agent: ShopAgent;
  sessionId: string;
  /** The user's new message, already checked (non-blank, bounded). */
  text: string;
  log: Logger;
}

/** A turn runner: the body of one turn, for `TurnRegistry.start`. */
export type TurnBody = (input: ShopTurnInput) => (turn: TurnContext) => Promise<void>;

/**
 * What both runners (`runAgentTurn`, `runAgentSdkTurn`) take alike from a turn: the agent's tools
 * bound to the session and the turn's lease, its prompt and name, the abort, the ledger, and
 * where the calls that need approval wait.
 */
export function turnRunOptions(input: ShopTurnInput, turn: TurnContext) {
  const { agent, store, sessionId } = input;
  return {
    executor: agent.executor(
      sessionId,
      turn.lease === undefined ? undefined : { lease: turn.lease },
    ),
    system: agent.system,
    agent: agent.name,
    signal: turn.signal,
    ledger: store.ledger(sessionId),
    // Checkout waits for the shopper's confirmation (the approval route answers it).
    approvals: turn.approvals,
    ...(turn.approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs: turn.approvalTimeoutMs }),
  };
}

/** The turn's last log line: done, cancelled, or ended with an error (a warning). */
export function logTurnEnd(
  log: Logger,
  summary: Readonly<Record<string, unknown>>,
  error: { readonly code: string } | undefined,
): void {
  if (!error) log.info(summary, "turn done");
  else if (error.code === "aborted") log.info(summary, "turn cancelled");
  else log.warn({ ...summary, err: error }, "turn ended with an error");
}
