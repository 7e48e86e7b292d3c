/**
 * The store's clock for the rows it orders by time (sessions, carts, orders): ISO timestamps that
 * never repeat or go back, so "newest first" is exact even for rows written in one millisecond.
 */

/**
 * A source of ISO 8601 timestamps, each later than the one before. One source is shared by every
 * part of a store, so their rows order among each other too. `clock` is the store's (tests inject
 * one to stamp rows at the times they play out).
 */
export function monotonicTimestamps(clock: () => number = Date.now): () => string {
  let last = 0;
  return () => {
    last = Math.max(clock(), last + 1);
    return new Date(last).toISOString();
  };
}
