/**
 * The body of one turn (S11, S17, B4): load the session's conversation, append the user's text
 * (repairing whatever an earlier interruption left), persist it, then run the agent's rounds with
 * the session's tools and ledger, every round persisted before the next request and every event
 * written to the turn's log. Runs on its own: no HTTP connection is involved.
 */

import { appendUserText, type ModelClient, runAgentTurn } from "overlap";
import type { Logger } from "pino";
import type { ShopAgent } from "../agents/shop-agents.js";
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
    const stored = await store.conversations.load(sessionId);
    const appended = appendUserText(stored, text);
    await store.conversations.write(
      sessionId,
      appended.from,
      appended.messages.slice(appended.from),
    );
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
      onMessages: ({ from, messages }) => store.conversations.write(sessionId, from, messages),
      onLedgerError: (err, call) =>
        log.error({ err, callId: call.id, tool: call.name }, "ledger write failed"),
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
