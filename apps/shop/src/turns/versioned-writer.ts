/**
 * How both turn bodies, streamed and whole, store their conversation. Every write names the
 * version the turn's previous write left (the first, the version it read) and the lease the turn
 * holds: a writer that lost a race, or whose chat another instance took over, fails loudly
 * instead of overwriting or merging into the other turn's messages. Each write clears the round
 * journal in its transaction: the calls it held are in the conversation from then on.
 *
 * The first write (the user's message, and whatever an interruption left to repair) is where a
 * turn finds its chat taken; it then ends as a refused turn: its readers get one error and
 * `done`, and nothing ran.
 */

import { isOverlapError, type Message } from "overlap-runtime";
import { TurnLeaseLostError } from "overlap-runtime/durable";
import type { Logger } from "pino";
import type { ShopStore } from "../db/shop-store.js";
import type { TurnContext } from "./turn-context.js";

/** Stores `messages` from position `from` on, in one versioned write. */
export type ConversationWrite = (from: number, messages: readonly Message[]) => Promise<void>;

/** The turn whose conversation is written. */
export interface VersionedWriterInput {
  store: ShopStore;
  sessionId: string;
  turn: Pick<TurnContext, "emit" | "lease">;
  /** The turn's logger: a refusal is logged there. */
  log: Logger;
}

/**
 * Stores the turn's first change (`first`, over the conversation read at `readVersion`) and
 * returns the writer of its rounds; `undefined` when the chat was taken (a conversation conflict,
 * or another instance took the chat over): the turn was refused then, and must end.
 */
export async function versionedWriter(
  input: VersionedWriterInput,
  readVersion: number,
  first: { readonly from: number; readonly messages: readonly Message[] },
): Promise<ConversationWrite | undefined> {
  const { store, sessionId, turn } = input;
  let version = readVersion;
  const write: ConversationWrite = async (from, messages) => {
    version = await store.conversations.writeVersioned(sessionId, from, messages, {
      expectedVersion: version,
      clearJournal: true,
      ...(turn.lease === undefined ? {} : { lease: turn.lease }),
    });
  };
  try {
    await write(first.from, first.messages);
  } catch (err) {
    if (!isOverlapError(err, "conversation_conflict") && !(err instanceof TurnLeaseLostError))
      throw err;
    refuseTurn(turn, input.log, err);
    return undefined;
  }
  return write;
}

/** What a turn that lost its chat tells its readers; nothing ran. */
function refuseTurn(turn: Pick<TurnContext, "emit">, log: Logger, err: Error): void {
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
