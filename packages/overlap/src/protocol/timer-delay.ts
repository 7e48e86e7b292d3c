/**
 * The one clamp of a delay given to `setTimeout`. A timer fires at once for a delay past 2^31-1 ms
 * (about 24.8 days), so a wait meant to be endless (`Infinity`, a huge timeout) would end
 * immediately: every timer of the runtime (tool timeouts, approval waits, the round's idle watch,
 * MCP requests) asks here first.
 */

/** The longest delay `setTimeout` honours, in milliseconds. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The delay to give `setTimeout` for a wait of `ms`, or `undefined` when no timer can hold it
 * (`Infinity`, `NaN`, {@link MAX_TIMER_MS} or more): then set none and wait without limit. A
 * negative wait is 0.
 */
export function timerDelay(ms: number): number | undefined {
  if (!(ms < MAX_TIMER_MS)) return undefined;
  return Math.max(0, ms);
}
