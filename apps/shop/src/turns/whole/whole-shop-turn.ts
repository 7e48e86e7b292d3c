/**
 * The shop's turn on the whole-response path (`OVERLAP_PATH=whole`): the same steps as the
 * streamed turn (`../streamed/streamed-shop-turn.ts`): load the session's conversation, append the user's text
 * (repairing whatever an interruption left), store it, run the agent's tools and ledger, store
 * every round before the next request, every event to the turn's log; the rounds are run by the
 * Claude Agent SDK with whole responses (`agent-sdk-turn.ts`). The conversation is stored in the
 * same shape, so the next turn continues it on either path.
 */

import { appendUserText } from "overlap-runtime";
import type { MessagesApiEndpoint, ShopModel } from "../../model/model-from-env.js";
import { logTurnEnd, type ShopTurnInput, type TurnBody, turnRunOptions } from "../turn-body.js";
import type { TurnContext } from "../turn-context.js";
import { versionedWriter } from "../versioned-writer.js";
import { runAgentSdkTurn } from "./agent-sdk-turn.js";

/** The turn body of the whole path against `endpoint`. */
export function wholeShopTurn(endpoint: MessagesApiEndpoint): TurnBody {
  return (input) => wholeTurn(input, endpoint);
}

/** The Messages API endpoint of `model`, or a sentence saying why the whole path cannot run. */
export function wholePathEndpoint(model: Pick<ShopModel, "messagesApi" | "label">) {
  if (model.messagesApi) return model.messagesApi;
  throw new Error(
    `OVERLAP_PATH=whole runs on the Claude Agent SDK, which speaks the Messages API: use ANTHROPIC_API_KEY or the embedded scripted model (no provider key), not ${model.label}.`,
  );
}

function wholeTurn(
  input: ShopTurnInput,
  endpoint: MessagesApiEndpoint,
): (turn: TurnContext) => Promise<void> {
  const { store, agent, sessionId, text } = input;
  return async (turn) => {
    const log = input.log.child({
      sessionId,
      turnId: turn.turnId,
      agent: agent.name,
      path: "whole",
    });
    const read = await store.conversations.loadVersioned(sessionId);
    const appended = appendUserText(read.messages, text);
    // As on the streamed path; each write also clears the journal rows the effects of the
    // stored round's calls wrote (`recordCall`).
    const write = await versionedWriter({ store, sessionId, turn, log }, read.version, {
      from: appended.from,
      messages: appended.messages.slice(appended.from),
    });
    if (!write) return; // the chat was taken: the turn was refused
    const started = performance.now();
    const result = await runAgentSdkTurn({
      ...turnRunOptions(input, turn),
      endpoint,
      messages: appended.messages,
      sink: turn.emit,
      onMessages: ({ from, messages }) => write(from, messages),
      onLedgerError: (err, callId) => log.error({ err, callId }, "ledger write failed"),
      onCallHeld: (callId, tool) =>
        log.debug({ callId, tool }, "call asked for before its response ended; held until it ends"),
      onStderr: (line) => log.debug({ cli: line.slice(0, 500) }, "agent sdk stderr"),
    });
    const summary = {
      roundCount: result.roundCount,
      stopReason: result.stopReason,
      ms: Math.round(performance.now() - started),
    };
    logTurnEnd(log, summary, result.error);
  };
}
