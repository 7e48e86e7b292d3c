/**
 * How a turn's log ends for a reader when the turn did not end it itself: its instance died
 * (`turn_crashed`), or its log was deleted after the turn ended (`turn_log_expired`). Each is an
 * `error` with a sentence safe to show, then `done`, numbered after what the reader has.
 */

import type { LoggedEvent } from "../sse/turn-event-log.js";
import type { NumberedEvent } from "./turn-event-transport.js";

/** The sentence of the `turn_crashed` error a reader of a dead instance's turn gets. */
export const TURN_CRASHED_MESSAGE =
  "The server writing this reply stopped. Whatever it finished is kept; send your message again to continue.";

/** The sentence of the `turn_log_expired` error a reader resuming a deleted turn log gets. */
export const TURN_LOG_EXPIRED_MESSAGE =
  "This reply ended a while ago and its stream is no longer kept. Reload the conversation to see it.";

/** What a reader of a turn whose instance died is told, after the turn's last event. */
export function crashEnd(last: number): NumberedEvent[] {
  return [
    {
      seq: last + 1,
      event: { type: "error", code: "turn_crashed", message: TURN_CRASHED_MESSAGE },
    },
    { seq: last + 2, event: { type: "done", roundCount: 0, stopReason: "error" } },
  ];
}

/** What a reader resuming after `seq` a turn whose log was deleted is told. */
export function expiredEnd(turnId: string, seq: number): LoggedEvent[] {
  return [
    {
      id: `${turnId}:${seq + 1}`,
      event: { type: "error", code: "turn_log_expired", message: TURN_LOG_EXPIRED_MESSAGE },
    },
    { id: `${turnId}:${seq + 2}`, event: { type: "done", roundCount: 0, stopReason: "error" } },
  ];
}
