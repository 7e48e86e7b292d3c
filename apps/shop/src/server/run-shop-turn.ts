/**
 * The body of one turn (S11, S17, B4): load the session's conversation, restore the round a crash
 * may have cut off (its calls come back from the round journal and the ledger), append the user's
 * text (repairing whatever an earlier interruption left), persist it, then run the agent's rounds
 * with the session's tools, ledger and round journal, every round persisted before the next
 * request and every event written to the turn's log. Each conversation write clears the round
 * journal in its transaction: the calls it held are in the conversation from then on. Runs on its
 * own: no HTTP connection is involved.
 */

import {
  appendUserText,
  isOverlapError,
  type Message,
  type ModelClient,
  runAgentTurn,
} from "overlap-runtime";
import type { Logger } from "pino";
import type { ShopAgent } from "../agents/shop-agents.js";
import { loadRecoveredConversation } from "../db/recover-conversation.js";
import type { ShopStore } from "../db/shop-store.js";
import type { TurnContext } from "./turn-registry.js";

/** What a turn needs. */
export interface ShopTurnInput {
  store: ShopStore;
  model: ModelClient;
  agent: ShopAgent;
  sessionId: string;
  /** The user's new message, already checked (non-blank, bounded). */
  text: string;
  log: Logger;
}

/** The turn body to hand to `TurnRegistry.start`. */
export function shopTurn(input: ShopTurnInput): (turn: TurnContext) => Promise<void> {
  const { store, model, agent, sessionId, text } = input;
  return async (turn) => {
    const log = input.log.child({ sessionId, turnId: turn.turnId, agent: agent.name });
    const recovered = await loadRecoveredConversation(store, sessionId);
    if (recovered.restored.length > 0) {
      log.warn({ callIds: recovered.restored }, "restored the calls of a round cut off by a crash");
    }
    const appended = appendUserText(recovered.messages, text);
    // Messages before both positions are the stored ones, unchanged.
    const firstChange = Math.min(recovered.from, appended.from);
    // Every write says how long it saw the conversation: a turn of the same session running in
    // another server process makes it fail loudly instead of erasing that turn's messages.
    let known = recovered.stored.length;
    const write = async (from: number, messages: readonly Message[]) => {
      await store.conversations.write(sessionId, from, messages, {
        expectedLength: known,
        clearRoundJournal: true,
      });
      known = from + messages.length;
    };
    try {
      await write(firstChange, appended.messages.slice(firstChange));
    } catch (err) {
      if (!isOverlapError(err, "conversation_conflict")) throw err;
      log.warn({ err }, "conversation changed by another process; turn refused");
      turn.emit({ type: "error", code: err.code, message: err.publicMessage });
      turn.emit({ type: "done", rounds: 0, stopReason: "error" });
      return;
    }
    const started = performance.now();
    const result = await runAgentTurn({
      model,
      executor: agent.executor(sessionId),
      messages: appended.messages,
      sink: turn.emit,
      system: agent.system,
      agent: agent.name,
      signal: turn.signal,
      ledger: store.ledger(sessionId),
      journal: store.roundJournal(sessionId),
      // Checkout waits for the shopper's confirmation (the approval route answers it).
      approvals: turn.approvals,
      ...(turn.approvalTimeoutMs === undefined
        ? {}
        : { approvalTimeoutMs: turn.approvalTimeoutMs }),
      onMessages: ({ from, messages }) => write(from, messages),
      onLedgerError: (err, call) =>
        log.error({ err, callId: call.id, tool: call.name }, "ledger write failed"),
      onJournalError: (err, entry) =>
        log.error({ err, callId: entry?.block.id }, "round journal write failed"),
    });
    const summary = {
      rounds: result.rounds.length,
      stopReason: result.stopReason,
      ms: Math.round(performance.now() - started),
      // B13: per round, when the first tool began and what overlapping saved.
      timings: result.rounds.map((r) => ({
        firstToolStartMs: r.timings.firstToolStartMs,
        streamEndMs: r.timings.streamEndMs,
        endMs: r.timings.endMs,
        savedMs: r.timings.savedMs,
      })),
    };
    if (!result.error) log.info(summary, "turn done");
    else if (result.error.code === "aborted") log.info(summary, "turn cancelled");
    else log.warn({ ...summary, err: result.error }, "turn ended with an error");
  };
}
