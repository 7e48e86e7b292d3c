/**
 * A session's conversation as a restarted server must continue it: the stored messages plus the
 * round a crash cut off, rebuilt from what storage kept of it (the round journal says which calls,
 * the ledger's records how those that ran ended; see `restoreRound`). Every call that ran comes
 * back with its real result, every journaled call that did not run is answered as not run; the
 * model then knows every effect.
 *
 * Nothing is missed and "not run" is true because every shop tool with an effect writes its ledger
 * record, and journals its call, in the effect's transaction: a call with an effect is journaled,
 * and a call without a record had no effect. Read-only tools record after they ran; one cut off
 * between the two is answered as not run, which changes nothing.
 */

import { isCallBlock, type Message, restoreRound } from "overlap-runtime";
import type { ShopStore } from "./shop-store.js";

/** A conversation with its lost round restored. */
export interface RecoveredConversation {
  /** The messages as stored. */
  stored: Message[];
  /** The version `stored` was read at (what a write's `expectedVersion` refers to). */
  version: number;
  /** The conversation to continue: `stored` plus the restored calls. */
  messages: Message[];
  /** The first position where `messages` differs from `stored` (`stored.length` when equal). */
  from: number;
  /** The ids of the restored calls, in call order. */
  restored: string[];
}

/** Loads a session's conversation and restores the calls of a round a crash cut off. */
export async function loadRecoveredConversation(
  store: ShopStore,
  sessionId: string,
): Promise<RecoveredConversation> {
  const { messages: stored, version } = await store.conversations.loadVersioned(sessionId);
  const present = new Set<string>();
  for (const message of stored) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) if (isCallBlock(block)) present.add(block.id);
  }
  const lost = await store.lostCalls(sessionId, present);
  const { messages, from, restored } = restoreRound(stored, lost);
  return { stored, version, messages, from, restored };
}
