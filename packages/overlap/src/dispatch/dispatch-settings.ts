/**
 * The settings of how a round's calls run, declared once: the dispatcher takes them, and the
 * round and the turn pass them down unchanged (see `RoundSettings`, `AgentTurnOptions`).
 */

import type { ApprovalSource } from "../protocol/approval.js";
import type { ToolLedger } from "./tool-ledger.js";

/** How calls run: their concurrency, their ledger, and the approvals some of them wait for. */
export interface DispatchSettings {
  /** Most tools running at once in a round. Default: unlimited. */
  concurrency?: number;
  /** Replays outcomes recorded by an earlier attempt (exactly once across retries). */
  ledger?: ToolLedger;
  /**
   * Where the user's decisions come from, for calls whose tool needs approval (`approval` in
   * `defineTool`): such a call emits `approval-request` and runs only once approved. Without it
   * such calls are never run (answered `not_executed`).
   */
  approvals?: ApprovalSource;
  /** How long a call waits for the user's decision. Default 5 minutes; `Infinity` for no limit. */
  approvalTimeoutMs?: number;
}

/** The names of {@link DispatchSettings}, to pass them on without listing them again. */
export const DISPATCH_SETTINGS = [
  "concurrency",
  "ledger",
  "approvals",
  "approvalTimeoutMs",
] as const satisfies readonly (keyof DispatchSettings)[];
