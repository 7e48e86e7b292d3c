/**
 * A turn as its readers see it, wherever it runs: this process's own log, or (built by
 * `TurnRegistry.find`) the durable log of a turn another instance runs or ran.
 */

import type { LoggedEvent, TurnEventLog } from "overlap-runtime";

/** A turn as its readers see it, wherever it runs. */
export interface TurnView {
  readonly turnId: string;
  /** True while the turn runs (on this instance or a live other one). */
  readonly running: boolean;
  /**
   * The events after `lastEventId` (all of them when it names another turn or nothing), then the
   * live rest until the turn ends or `signal` aborts; ids `<turnId>:<seq>` as {@link TurnEventLog}.
   */
  read(lastEventId?: string | null, signal?: AbortSignal): AsyncIterable<LoggedEvent>;
}

/** A log of this process as a {@link TurnView}. */
export function viewOf(log: TurnEventLog): TurnView {
  return {
    turnId: log.turnId,
    get running() {
      return !log.closed;
    },
    read: (lastEventId, signal) => log.read(lastEventId, signal),
  };
}
