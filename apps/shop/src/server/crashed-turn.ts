/**
 * What a reader of a turn whose instance died (kill -9, lost machine) is told: an `error` with
 * code `turn_crashed` and a `done`, with the ids the turn's next events would have had, so a
 * `Last-Event-ID` resume ends the same way on every instance and after a restart.
 */

import type { LoggedEvent } from "overlap-runtime";

/** A turn as its readers see it (the shape of the registry's `TurnView`). */
interface CrashedTurnView {
  readonly turnId: string;
  readonly running: false;
  read(lastEventId?: string | null): AsyncIterable<LoggedEvent>;
}

/** The sentence of the `turn_crashed` error. */
export const TURN_CRASHED_MESSAGE =
  "The server writing this reply stopped. Whatever it finished is kept; send your message again to continue.";

/** The crash's two events after the turn's event `last` (its seq), after `roundCount` rounds. */
export function* crashEnd(
  turnId: string,
  last: number,
  roundCount: number,
): Generator<LoggedEvent> {
  yield {
    id: `${turnId}:${last + 1}`,
    event: { type: "error", code: "turn_crashed", message: TURN_CRASHED_MESSAGE },
  };
  yield { id: `${turnId}:${last + 2}`, event: { type: "done", roundCount, stopReason: "error" } };
}

/**
 * A turn known only by the lease its dead instance left: its events are gone with the instance,
 * so a reader gets the crash's end, after the event `Last-Event-ID` names (from the start when it
 * names another turn).
 */
export function crashedTurnView(turnId: string): CrashedTurnView {
  return {
    turnId,
    running: false,
    async *read(lastEventId) {
      yield* crashEnd(turnId, seqAfter(lastEventId, turnId), 0);
    },
  };
}

/** As `TurnEventLog.positionAfter`: the seq of `lastEventId` when it names an event of `turnId`, else 0. */
export function seqAfter(lastEventId: string | null | undefined, turnId: string): number {
  if (!lastEventId) return 0;
  const at = lastEventId.lastIndexOf(":");
  if (at === -1 || lastEventId.slice(0, at) !== turnId) return 0;
  const seq = Number(lastEventId.slice(at + 1));
  return Number.isInteger(seq) && seq >= 0 ? seq : 0;
}
