/**
 * The round loop: rounds continue while the model stops for tool use, up to a limit. Every
 * request is checked by the validator first; every round's messages are handed to `onMessages`
 * before the next request, so a crash loses at most the round in flight (and repair covers it).
 */

import { OverlapError } from "../errors.js";
import type { AgentEventSink } from "../protocol/agent-event.js";
import { guardedSink } from "../protocol/guarded-sink.js";
import type { StopReason } from "../protocol/stop-reason.js";
import type { RoundJournal } from "../round/round-journal.js";
import { type RoundSettings, roundSettingsOf } from "../round/round-settings.js";
import { type RoundResult, StreamedRound } from "../round/streamed-round.js";
import { isCallBlock, type Message } from "../stream/message.js";
import type { StreamEvent } from "../stream/stream-event.js";
import type { ToolCall } from "../stream/tool-call.js";
import type { ToolExecutor } from "../tools/tool-executor.js";
import type { ModelClient } from "./model-client.js";
import { startTurnTracing } from "./turn-tracing.js";
import { validateConversation } from "./validate-conversation.js";

/**
 * Options of {@link runAgentTurn}: the conversation, the model and the tools, and the
 * {@link RoundSettings} every round of the turn runs with.
 */
export interface AgentTurnOptions extends RoundSettings {
  model: ModelClient;
  // biome-ignore lint/suspicious/noExplicitAny: the loop is agnostic of the host context.
  executor: ToolExecutor<any>;
  /** The conversation so far, ending with the user's new message. */
  messages: readonly Message[];
  /** Receives every AgentEvent; the last one is always `done`. */
  sink: AgentEventSink;
  system?: string;
  /** Most model rounds in this turn. Default 10. */
  maxRounds?: number;
  maxTokens?: number;
  /** Cancels the turn; the conversation is repaired and stays valid. */
  signal?: AbortSignal;
  /**
   * Persists each round's changes before the next request is sent: `messages` replace the
   * conversation from position `from` on (as `ConversationStore.write` takes them). Usually an
   * append; after pause_turn the continued assistant message is rewritten in place.
   */
  onMessages?: (update: { from: number; messages: readonly Message[] }) => Promise<void> | void;
  /**
   * Persists each call of the round in flight at its block stop, so a crash before `onMessages`
   * loses no record of it (see {@link RoundJournal}, `restoreRound`). `roundEnd` is called once
   * `onMessages` stored the round.
   */
  journal?: RoundJournal;
  /** Told when a journal write fails (`call` absent: the end of a round); the turn goes on. */
  onJournalError?: (error: unknown, call: ToolCall | undefined) => void;
}

/** What a turn produced. */
export interface AgentTurnResult {
  /** The messages this turn added, in order (assistant, tool results, ...). */
  added: Message[];
  /** The whole conversation after the turn. */
  messages: Message[];
  stopReason: StopReason;
  rounds: RoundResult[];
  error?: OverlapError;
}

/**
 * Runs model rounds until the model stops asking for tools. Never rejects. With
 * `@opentelemetry/api` installed and a tracer provider registered, the turn is traced (see
 * `turn-tracing.ts`); otherwise tracing costs one resolved promise per turn.
 */
export async function runAgentTurn(options: AgentTurnOptions): Promise<AgentTurnResult> {
  const tracing = await startTurnTracing(
    options.agent === undefined
      ? { model: options.model }
      : { agent: options.agent, model: options.model },
  );
  if (!tracing) return runTurn(options);
  const result = await tracing.within(() =>
    runTurn({ ...options, sink: tracing.tap(options.sink) }),
  );
  tracing.end(result.error ? { stopReason: result.stopReason, error: result.error } : result);
  return result;
}

async function runTurn(options: AgentTurnOptions): Promise<AgentTurnResult> {
  const maxRounds = options.maxRounds ?? 10;
  const messages = [...options.messages];
  const rounds: RoundResult[] = [];
  // The sink's failure (a closed connection) must not stop the turn.
  const emit = guardedSink(options.sink, options.agent);
  let stopReason: StopReason = "end_turn";
  let error: OverlapError | undefined;

  for (let round = 1; ; round++) {
    if (round > maxRounds) {
      error = new OverlapError("max_rounds", `The turn stopped after ${maxRounds} rounds.`);
      break;
    }
    // After pause_turn the conversation ends with the assistant message: the request continues it.
    const violations = validateConversation(messages);
    if (violations.length > 0) {
      error = new OverlapError("invalid_conversation", violations[0]!.message, {
        details: violations,
      });
      break;
    }
    const result = await runRound(options, messages, round);
    rounds.push(result);
    const from = appendRound(messages, result, stopReason === "pause_turn");
    stopReason = result.stopReason;
    if (from < messages.length) {
      try {
        await options.onMessages?.({ from, messages: messages.slice(from) });
      } catch (err) {
        error =
          err instanceof OverlapError
            ? err
            : new OverlapError("storage_error", "The conversation could not be saved.", {
                cause: err,
              });
        // The round is not stored: its journaled calls stay for the next start to restore.
        break;
      }
    }
    await endJournalRound(options, round, result.calls);
    if (result.error) {
      error = result.error;
      break;
    }
    if (stopReason !== "tool_use" && stopReason !== "pause_turn") break;
    if (options.signal?.aborted) {
      error = new OverlapError("aborted", "The turn was cancelled.");
      break;
    }
  }
  if (error) {
    stopReason = error.code === "max_rounds" ? stopReason : "error";
    emit({ type: "error", code: error.code, message: error.publicMessage });
  }
  emit({ type: "done", roundCount: rounds.length, stopReason });
  const added = messages.slice(options.messages.length);
  const out: AgentTurnResult = { added, messages, stopReason, rounds };
  if (error) out.error = error;
  return out;
}

/** Tells the journal the round is stored; a failure is reported, never thrown. */
async function endJournalRound(
  options: AgentTurnOptions,
  round: number,
  calls: readonly ToolCall[],
): Promise<void> {
  const journal = options.journal;
  if (!journal?.roundEnd || calls.length === 0) return;
  try {
    await journal.roundEnd(round, calls);
  } catch (err) {
    try {
      options.onJournalError?.(err, undefined);
    } catch {
      // A failing error handler must not break the turn.
    }
  }
}

/**
 * Adds a round's messages to the conversation; returns the first position that changed. After
 * pause_turn the model continues the same assistant turn, so its new content joins that message.
 */
function appendRound(messages: Message[], result: RoundResult, continuesPause: boolean): number {
  let from = messages.length;
  const last = messages.at(-1);
  if (result.assistant.content.length > 0) {
    if (continuesPause && last?.role === "assistant") {
      from = messages.length - 1;
      messages[from] = {
        role: "assistant",
        content: [...last.content, ...result.assistant.content],
      };
    } else {
      messages.push(result.assistant);
    }
  }
  if (result.toolResults) messages.push(result.toolResults);
  return from;
}

/** Every call id the conversation already holds: a new call must not reuse one. */
function usedCallIds(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) {
      if (isCallBlock(block)) ids.add(block.id);
    }
  }
  return ids;
}

function runRound(
  options: AgentTurnOptions,
  messages: readonly Message[],
  round: number,
): Promise<RoundResult> {
  const controller = new AbortController();
  const outer = options.signal;
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener("abort", onAbort, { once: true });
  const relay = new StreamedRound({
    executor: options.executor,
    sink: options.sink,
    round,
    signal: controller.signal,
    usedIds: usedCallIds(messages),
    ...roundSettingsOf(options),
  });
  let events: AsyncIterable<readonly StreamEvent[]>;
  try {
    const request = {
      messages,
      tools: options.executor.specs(),
      ...pick(options, ["system", "maxTokens"]),
    };
    events = options.model.stream(request, { signal: controller.signal });
  } catch (err) {
    // A client that fails before returning a stream is reported like a failed stream.
    events = failing(err);
  }
  return relay.relay(events).finally(() => outer?.removeEventListener("abort", onAbort));
}

function pick<T extends object, K extends keyof T>(
  source: T,
  keys: readonly K[],
): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}

// biome-ignore lint/correctness/useYield: it only throws, as the failed request did.
async function* failing(err: unknown): AsyncGenerator<readonly StreamEvent[]> {
  throw err;
}
