/**
 * The settings of a round, declared once: `StreamedRound` takes them, and `runAgentTurn` passes
 * them to each of its rounds unchanged (its options extend these).
 */

import type { DISPATCH_SETTINGS, DispatchSettings } from "../dispatch/dispatch-settings.js";
import { DISPATCH_SETTINGS as DISPATCH_KEYS } from "../dispatch/dispatch-settings.js";
import type { ToolCall } from "../stream/tool-call.js";
import type { RoundJournal } from "./round-journal.js";

/** How a round runs: its {@link DispatchSettings} and the round's own. */
export interface RoundSettings extends DispatchSettings {
  /** Name of the agent, carried by events (e.g. "shopper"). */
  agent?: string;
  /** Minimum milliseconds between two previews of one call. Default 50; 0 sends every delta. */
  previewIntervalMs?: number;
  /** Told when the ledger fails to record an outcome (a retry could then repeat the effect). */
  onLedgerError?: (error: unknown, call: ToolCall) => void;
  /** A stream silent for this long is treated as dropped. Default 120 s (providers ping). */
  idleTimeoutMs?: number;
  /** Monotonic clock in ms. Default `performance.now`. */
  now?: () => number;
  /**
   * Persists each valid local call at its block stop, before it is dispatched (not awaited by
   * it); the round ends only after every journal write settled. See {@link RoundJournal}.
   */
  journal?: RoundJournal;
  /** Told when a journal write fails (the call still runs; its ledger record names it). */
  onJournalError?: (error: unknown, call: ToolCall) => void;
}

/** The names of {@link RoundSettings}, to pass them on without listing them again. */
export const ROUND_SETTINGS = [
  ...DISPATCH_KEYS,
  "agent",
  "previewIntervalMs",
  "onLedgerError",
  "idleTimeoutMs",
  "now",
  "journal",
  "onJournalError",
] as const satisfies readonly (keyof RoundSettings)[];

// Every setting is listed: a new one that is not fails to compile here.
type Listed = (typeof ROUND_SETTINGS)[number] | (typeof DISPATCH_SETTINGS)[number];
const everyRoundSettingListed: Record<Exclude<keyof RoundSettings, Listed>, never> = {};
void everyRoundSettingListed;

/** The round settings set in `options` (and nothing else of it). */
export function roundSettingsOf(options: RoundSettings): RoundSettings {
  const out: Record<string, unknown> = {};
  for (const key of ROUND_SETTINGS) {
    if (options[key] !== undefined) out[key] = options[key];
  }
  return out as RoundSettings;
}
