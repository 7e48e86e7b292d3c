/**
 * How a whole-path turn is going, shared by the parts that read the SDK's messages, close the
 * rounds and store them: the turn's first error, and the stop reason it ends with when none.
 */

import type { OverlapError, StopReason } from "overlap-runtime";

/** The first error of a turn wins: later ones are its consequences. */
export class TurnStatus {
  error: OverlapError | undefined;
  /** The stop reason of the last round closed (or the SDK's final result). */
  stopReason: StopReason = "end_turn";

  /** Keeps `error` unless the turn already failed. */
  fail(error: OverlapError): void {
    this.error ??= error;
  }
}
