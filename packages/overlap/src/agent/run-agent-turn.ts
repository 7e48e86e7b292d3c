/**
 * The round loop: rounds continue while the model stops for tool use, up to a limit. Every
 * request is checked by the validator first; every round's messages are handed to `onMessages`
 * before the next request, so a crash loses at most the round in flight (and repair covers it).
 */

import { OverlapError } from "../errors.js";
import { guardedSink } from "../protocol/guarded-sink.js";
import type { StopReason } from "../protocol/stop-reason.js";
import type { Usage } from "../protocol/usage.js";
import type { RoundJournal } from "../round/round-journal.js";
import { type RoundSettings, roundSettingsOf } from "../round/round-settings.js";
import { type RoundResult, StreamedRound } from "../round/streamed-round.js";
import { isCallBlock, type Message } from "../stream/message.js";
import type { StreamEvent } from "../stream/stream-event.js";
import type { ToolCall } from "../stream/tool-call.js";
import type { AnyTool, ToolSpec } from "../tools/define-tool.js";
import { consoleLogger, type Logger } from "../tools/logger.js";
import type { AgentEventSinkOf } from "../tools/tool-events.js";
import type { ToolExecutor } from "../tools/tool-executor.js";
import type { MessageInput } from "./message-shapes.js";
import type { ModelClient, ModelRequest } from "./model-client.js";
import { asConversationError, normalizeMessages } from "./normalize-messages.js";
import { type RetrySettings, retryBeforeOutput } from "./retry-before-output.js";
import {
  type ModelOutputFormat,
  OUTPUT_TOOL_NAME,
  type OutputOf,
  type OutputSchema,
  readOutput,
  type TurnOutput,
  turnOutputOf,
} from "./structured-output.js";
import { type ToolChoice, toolChoiceProblem } from "./tool-choice.js";
import {
  type PrepareRound,
  type RoundPreparation,
  type StopCondition,
  shouldStop,
  sumUsage,
} from "./turn-control.js";
import { startTurnTracing } from "./turn-tracing.js";
import { validateConversation } from "./validate-conversation.js";

/**
 * Options of {@link runAgentTurn}: the conversation, the model and the tools, and the
 * {@link RoundSettings} every round of the turn runs with. `S` is the output schema's type.
 */
export interface AgentTurnOptions<
  T extends AnyTool = AnyTool,
  S extends OutputSchema = OutputSchema,
> extends RoundSettings {
  model: ModelClient;
  // biome-ignore lint/suspicious/noExplicitAny: the loop is agnostic of the host context.
  executor: ToolExecutor<any, T>;
  /**
   * The conversation so far, ending with the user's new message: overlap's own messages, or
   * string content for any role, or the AI SDK's UI or model messages, or OpenAI's chat messages
   * (see {@link MessageInput}). Consecutive messages of one role are joined and leading system
   * messages become the system prompt (after `system`), so the `messages` of any turn, however
   * it ended, continue with a plain append of the user's next message.
   */
  messages: readonly MessageInput[];
  /**
   * Receives every AgentEvent; the last one is always `done`. Over tools defined with literal
   * names, `tool-call`, `tool-result` and `ui` events are typed per tool (see `AgentEventOf`).
   */
  sink: AgentEventSinkOf<T>;
  /** The system prompt (instructions for the model), sent with every round of the turn. */
  system?: string | undefined;
  /** Most model rounds in this turn; past it the turn ends with `max_rounds`. Default 10. */
  maxRounds?: number;
  maxTokens?: number;
  /**
   * Cancels the turn (wire it to the request's close, so a user's Stop stops the turn): running
   * tools are aborted, the conversation is repaired and stays valid, the turn ends with `aborted`.
   */
  signal?: AbortSignal;
  /**
   * Retries of a model request that failed before any output (rate limited, overloaded, a server
   * error, no connection), honouring the service's Retry-After; never once anything arrived.
   * Default: 2 retries, from 500 ms. On top of the provider SDK's own retries, if it has any.
   */
  retry?: RetrySettings;
  /**
   * Stops the turn after a round that asked for tools when a condition holds (`roundCountIs(n)`,
   * `hasToolCall("name")`, or any predicate over the rounds so far): the tools' results are in
   * the conversation, the turn ends with stop reason `tool_use` and no error.
   */
  stopWhen?: StopCondition | readonly StopCondition[];
  /**
   * Called before each round: another model (with other provider options), system prompt, set
   * of offered tools or tool choice for it.
   */
  prepareRound?: PrepareRound;
  /**
   * Which tool use every round asks for: `auto` (the default), `none`, `required`, or
   * `{ type: "tool", toolName }`. A forced tool applies to every round, so such a turn ends only
   * through `stopWhen` or `maxRounds`: force it for one round through `prepareRound`, or stop with
   * `stopWhen: hasToolCall(name)`. A forced tool that is not among a round's tools ends the turn
   * with `invalid_tool_choice` (in the result; the promise never rejects).
   */
  toolChoice?: ToolChoice;
  /**
   * The final answer as an object of this zod schema (or JSON Schema of an object, checked with
   * ajv): `turn.output`, validated and typed. Asked
   * through each provider's own mechanism (a JSON schema response format, or a forced answer
   * tool named `final_answer` whose input streams as text), in every round, so tools run first
   * and the round that ends the turn gives the object. An answer that does not validate ends the
   * turn with `output_invalid` (`error.details.text` holds the raw answer). No output is read
   * when the turn stopped before the model ended it (`stopWhen`, `maxRounds`, an error).
   */
  output?: S;
  /**
   * Where the turn reports what no result holds: each retry (warn), and, through the executor
   * (unless it was given a `logger` or `onUnexpectedError` of its own), a tool's unexpected
   * exception with its stack (error). `false` reports nowhere. Default: the console.
   */
  logger?: Logger | false;
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

/** What a turn produced; `O` is the type of its structured `output`. */
export interface AgentTurnResult<O = unknown> {
  /** The messages this turn added, in order (assistant, tool results, ...). */
  added: Message[];
  /**
   * The whole conversation after the turn, in overlap's shape (no system message: the prompt
   * stays in `system`), valid to continue with a plain append however the turn ended. When
   * `messages` could not be read (`error.code` is `invalid_conversation`), they are returned as
   * given.
   */
  messages: Message[];
  stopReason: StopReason;
  rounds: RoundResult[];
  /** Token usage summed over the turn's rounds (each field that any round reported). */
  usage: Usage;
  /** The final answer as the `output` schema's object, when one was asked for and validated. */
  output?: O;
  error?: OverlapError;
}

/**
 * Runs model rounds until the model stops asking for tools. Never rejects. With
 * `@opentelemetry/api` installed and a tracer provider registered, the turn is traced (see
 * `turn-tracing.ts`); otherwise tracing costs one resolved promise per turn.
 */
export async function runAgentTurn<T extends AnyTool = AnyTool, S extends OutputSchema = never>(
  typed: AgentTurnOptions<T, S>,
): Promise<AgentTurnResult<OutputOf<S>>> {
  // The events are the same at run time; the per-tool types are the caller's view of them.
  const options = typed as unknown as TurnOptions;
  const tracing = await startTurnTracing(
    options.agent === undefined
      ? { model: options.model }
      : { agent: options.agent, model: options.model },
  );
  // The output was validated by the schema `S`: its type is the schema's.
  type Result = AgentTurnResult<OutputOf<S>>;
  if (!tracing) return (await runTurn(options)) as Result;
  const result = await tracing.within(() =>
    runTurn({ ...options, sink: tracing.tap(options.sink) }),
  );
  tracing.end(result.error ? { stopReason: result.stopReason, error: result.error } : result);
  return result as Result;
}

/** The options as the loop reads them (the type parameters are the caller's view). */
type TurnOptions = AgentTurnOptions;

async function runTurn(given: TurnOptions): Promise<AgentTurnResult> {
  const maxRounds = given.maxRounds ?? 10;
  let options = given;
  let messages: Message[];
  /** The first position of the host's list the turn's first `onMessages` must rewrite. */
  let rewriteFrom: number;
  let unreadable: OverlapError | undefined;
  let output: TurnOutput | undefined;
  try {
    const normalized = normalizeMessages(given.messages);
    messages = normalized.messages;
    rewriteFrom = normalized.firstChanged;
    const system = [given.system, normalized.system].filter((s) => s).join("\n\n");
    if (system !== (given.system ?? "")) options = { ...given, system };
    if (given.logger !== undefined && typeof given.executor.withLogger === "function") {
      options = { ...options, executor: given.executor.withLogger(given.logger) };
    }
    if (given.output !== undefined) output = checkedOutput(given);
  } catch (err) {
    unreadable = asConversationError(err);
    messages = Array.isArray(given.messages) ? [...(given.messages as Message[])] : [];
    rewriteFrom = messages.length;
  }
  const start = messages.length;
  const rounds: RoundResult[] = [];
  // The sink's failure (a closed connection) must not stop the turn.
  const emit = guardedSink(options.sink, options.agent);
  let stopReason: StopReason = "end_turn";
  let error: OverlapError | undefined = unreadable;

  for (let round = 1; !unreadable; round++) {
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
    let prepared: RoundPreparation | undefined;
    try {
      prepared = await options.prepareRound?.({ round, rounds, messages });
    } catch (err) {
      error = new OverlapError("callback_error", "prepareRound threw; the turn stopped.", {
        cause: err,
      });
      break;
    }
    const request = roundRequest(options, messages, prepared, output?.format);
    const problem = toolChoiceProblem(request.toolChoice, request.tools, output !== undefined);
    if (problem) {
      error = problem;
      break;
    }
    const result = await runRound(options, request, round, prepared);
    rounds.push(result);
    const from = appendRound(messages, result, stopReason === "pause_turn");
    stopReason = result.stopReason;
    if (from < messages.length) {
      // The first write also replaces what normalizing the input changed.
      const first = Math.min(from, rewriteFrom);
      rewriteFrom = Number.POSITIVE_INFINITY;
      try {
        await options.onMessages?.({ from: first, messages: messages.slice(first) });
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
    if (stopReason === "tool_use" && shouldStop(options.stopWhen, { rounds, messages })) break;
    if (options.signal?.aborted) {
      error = new OverlapError("aborted", "The turn was cancelled.");
      break;
    }
  }
  if (error) {
    stopReason = error.code === "max_rounds" ? stopReason : "error";
    const { category, retryAfterMs } = error;
    emit({
      type: "error",
      code: error.code,
      message: error.publicMessage,
      ...(category !== undefined ? { category } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
  }
  let value: unknown;
  if (output && !error && stopReason !== "tool_use" && stopReason !== "pause_turn") {
    const reading = readOutput(messages, output.validator);
    if ("output" in reading) value = reading.output;
    else {
      error = reading.error;
      stopReason = "error";
      emit({ type: "error", code: error.code, message: error.publicMessage });
    }
  }
  emit({ type: "done", roundCount: rounds.length, stopReason });
  const added = messages.slice(start);
  const out: AgentTurnResult = { added, messages, stopReason, rounds, usage: sumUsage(rounds) };
  if (value !== undefined) out.output = value;
  if (error) out.error = error;
  return out;
}

/** Tells the journal the round is stored; a failure is reported, never thrown. */
async function endJournalRound(
  options: TurnOptions,
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

/** The output of the turn; throws for a schema or a tool name that rules it out. */
function checkedOutput(options: TurnOptions): TurnOutput {
  const output = turnOutputOf(options.output as OutputSchema);
  if (options.executor.specs().some((spec) => spec.name === OUTPUT_TOOL_NAME)) {
    throw new OverlapError(
      "invalid_tool_definition",
      `A tool is named "${OUTPUT_TOOL_NAME}", the name of the answer tool of structured output; rename it.`,
    );
  }
  return output;
}

/** The request of one round: the turn's options with what `prepareRound` changed. */
function roundRequest(
  options: TurnOptions,
  messages: readonly Message[],
  prepared: RoundPreparation | undefined,
  output: ModelOutputFormat | undefined,
): ModelRequest {
  const merged = { ...options, ...pick(prepared ?? {}, ["system", "toolChoice"]) };
  return {
    messages,
    tools: activeSpecs(options.executor.specs(), prepared?.activeTools),
    ...pick(merged, ["system", "maxTokens", "toolChoice"]),
    ...(output ? { output } : {}),
  };
}

function runRound(
  options: TurnOptions,
  request: ModelRequest,
  round: number,
  prepared: RoundPreparation | undefined,
): Promise<RoundResult> {
  const messages = request.messages;
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
  const model = prepared?.model ?? options.model;
  const signal = controller.signal;
  // A client that throws before returning a stream is retried, then reported, like a failed stream.
  const open = (): AsyncIterable<readonly StreamEvent[]> => model.stream(request, { signal });
  const events = retryBeforeOutput(
    open,
    options.retry ?? {},
    signal,
    options.logger ?? consoleLogger,
  );
  return relay.relay(events).finally(() => outer?.removeEventListener("abort", onAbort));
}

function activeSpecs(specs: ToolSpec[], active: readonly string[] | undefined): ToolSpec[] {
  if (active === undefined) return specs;
  const names = new Set(active);
  return specs.filter((spec) => names.has(spec.name));
}

function pick<T extends object, K extends keyof T>(
  source: T,
  keys: readonly K[],
): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}
