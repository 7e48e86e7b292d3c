/**
 * How a turn ends when its first write finds its chat taken (a conversation conflict, or another
 * instance took the chat over): on either path, its readers get one error and `done`.
 */

import { isOverlapError } from "overlap-runtime";
import type { Logger } from "pino";
import type { TurnContext } from "./turn-context.js";

/** What a turn that lost its chat (a conflict, or a takeover) tells its readers; nothing ran. */
export function refuseTurn(
  turn: Pick<TurnContext, "emit">,
  log: Logger,
  err: Error & { code?: string },
): void {
  log.warn({ err }, "conversation changed by another turn; this turn stopped");
  turn.emit({
    type: "error",
    code: "conversation_conflict",
    message: isOverlapError(err)
      ? err.publicMessage
      : "This conversation was changed at the same time elsewhere. Reload it to continue.",
  });
  turn.emit({ type: "done", roundCount: 0, stopReason: "error" });
}
