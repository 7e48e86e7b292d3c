/**
 * The body of one turn on the streamed path (overlap's own runtime, the default: tools start
 * while the model still writes): load the session's conversation, restore the round a crash
 * may have cut off (its calls come back from the round journal and the ledger), append the user's
 * text (repairing whatever an earlier interruption left), persist it, then run the agent's rounds
 * with the session's tools, ledger and round journal, every round persisted before the next
 * request and every event written to the turn's log. Each conversation write clears the round
 * journal in its transaction: the calls it held are in the conversation from then on. Runs on its
 * own: no HTTP connection is involved.
 */

import { appendUserText, runAgentTurn } from "overlap-runtime";
import { logTurnEnd, type ShopTurnInput, turnRunOptions } from "../turn-body.js";
import type { TurnContext } from "../turn-context.js";
import { versionedWriter } from "../versioned-writer.js";
import { turnDisplayKeeper } from "./turn-display.js";

/** The streamed turn body (the shop's default), to hand to `TurnRegistry.start`. */
export function streamedShopTurn(input: ShopTurnInput): (turn: TurnContext) => Promise<void> {
  const { store, model, agent, sessionId, text } = input;
  return async (turn) => {
    const log = input.log.child({ sessionId, turnId: turn.turnId, agent: agent.name });
    if (turn.tookOver) {
      log.warn(
        { crashedTurnId: turn.tookOver.turnId, holder: turn.tookOver.holder },
        "took over a chat whose turn's instance stopped (its lease expired); repairing first",
      );
    }
    // Every shop tool with an effect records it with its ledger record: a call without a record
    // did not run, and is answered so.
    const recovered = await store.durable.recover(sessionId);
    if (recovered.restored.length > 0) {
      log.warn({ callIds: recovered.restored }, "restored the calls of a round cut off by a crash");
    }
    const appended = appendUserText(recovered.messages, text);
    // Messages before both positions are the stored ones, unchanged.
    const firstChange = Math.min(recovered.from, appended.from);
    const write = await versionedWriter({ store, sessionId, turn, log }, recovered.version, {
      from: firstChange,
      messages: appended.messages.slice(firstChange),
    });
    if (!write) return; // the chat was taken: the turn was refused
    // The cards and timings this turn shows, kept with the shopper's message that started it.
    const display = turnDisplayKeeper(
      (events) =>
        store.conversations.writeTurnDisplay(sessionId, appended.messages.length - 1, events),
      (err) => log.error({ err }, "turn display write failed"),
    );
    const started = performance.now();
    const result = await runAgentTurn({
      ...turnRunOptions(input, turn),
      model,
      messages: appended.messages,
      sink: (event) => {
        turn.emit(event);
        display.observe(event);
      },
      journal: store.roundJournal(sessionId, turn.turnId),
      onMessages: ({ from, messages }) => write(from, messages),
      onLedgerError: (err, call) =>
        log.error({ err, callId: call.id, tool: call.name }, "ledger write failed"),
      onJournalError: (err, entry) =>
        log.error({ err, callId: entry?.block.id }, "round journal write failed"),
    });
    await display.settled();
    const summary = {
      roundCount: result.rounds.length,
      stopReason: result.stopReason,
      ms: Math.round(performance.now() - started),
      // Per round, when the first tool began and what overlapping saved.
      timings: result.rounds.map((r) => ({
        firstToolStartMs: r.timings.firstToolStartMs,
        streamEndMs: r.timings.streamEndMs,
        endMs: r.timings.endMs,
        savedMs: r.timings.savedMs,
      })),
    };
    logTurnEnd(log, summary, result.error);
  };
}
