/**
 * The ledger's part in running a call, written once: before a call runs, the outcome an earlier
 * attempt recorded is replayed instead (exactly once across retries and restarts); after it ran,
 * its outcome is recorded, unless the tool committed a record of its own just before an abort,
 * which is then the truth. A failing ledger never hides what a tool did, and never lets a call
 * whose past is unknown run again.
 */

import type { ToolCall } from "../stream/tool-call.js";
import { failedOutcome, type ToolOutcome } from "../tools/tool-outcome.js";
import type { ToolLedger } from "./tool-ledger.js";

/** Told of a ledger's failure (the call's outcome says what the model needs to know). */
export type LedgerErrorHandler = (error: unknown, call: ToolCall) => void;

/**
 * The outcome recorded for the call by an earlier attempt, marked `replayed` (the call must not
 * run again), or `undefined` when there is none. A failed lookup answers the call with an internal
 * error: whether it ran before is unknown, so it does not run. Never rejects.
 */
export async function replayRecorded(
  ledger: ToolLedger | undefined,
  call: ToolCall,
  onError?: LedgerErrorHandler,
): Promise<ToolOutcome | undefined> {
  let recorded: ToolOutcome | undefined;
  try {
    recorded = await ledger?.lookup(call.id);
  } catch (error) {
    onError?.(error, call);
    return internalErrorOutcome(call);
  }
  return recorded ? { ...recorded, replayed: true } : undefined;
}

/**
 * The outcome to report once the tool ran, recorded in the ledger. An `interrupted` or `timeout`
 * outcome gives way to a record the tool committed in its effect's transaction before the abort
 * (the effect happened); an `ok` or `error` outcome is recorded (a record the tool wrote itself is
 * kept by the ledger). Never rejects: a ledger failure goes to `onError`.
 */
export async function settleRecorded(
  ledger: ToolLedger | undefined,
  call: ToolCall,
  outcome: ToolOutcome,
  onError?: LedgerErrorHandler,
): Promise<ToolOutcome> {
  if (!ledger) return outcome;
  let settled = outcome;
  if (outcome.status === "interrupted" || outcome.status === "timeout") {
    const committed = await Promise.resolve()
      .then(() => ledger.lookup(call.id))
      .catch((error: unknown) => {
        onError?.(error, call);
        return undefined;
      });
    if (committed) settled = committed;
  }
  if (settled.status === "ok" || settled.status === "error") {
    // The effect happened whatever the ledger says: a failed write must not hide the result.
    const recorded = settled;
    await Promise.resolve()
      .then(() => ledger.record(recorded, call))
      .catch((error: unknown) => onError?.(error, call));
  }
  return settled;
}

/** The answer to a call that could not be run because of an internal failure; it did not run. */
export function internalErrorOutcome(call: ToolCall): ToolOutcome {
  return failedOutcome(
    call.id,
    call.name,
    "error",
    `${call.name} could not be run because of an internal error. It may be retried.`,
  );
}
