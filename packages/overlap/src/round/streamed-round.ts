/**
 * StreamedRound: one model round end to end. Events are processed one at a time, in order; at
 * each tool block's stop the call is dispatched at once, so tools run while the model still
 * writes. Display events go to the sink as they happen; at the end the round joins,
 * emits `ui` and `tool-result` events in call order and returns the assistant message plus ONE
 * user message holding every tool_result. A failed or cancelled stream is repaired here: every
 * tool_use still gets exactly one result, so the conversation stays valid.
 */

import { EagerDispatcher } from "../dispatch/eager-dispatcher.js";
import { OverlapError } from "../errors.js";
import type { AgentEvent, AgentEventSink } from "../protocol/agent-event.js";
import { citationLinks } from "../protocol/citation-links.js";
import { errorCategoryOf } from "../protocol/error-category.js";
import { guardedSink } from "../protocol/guarded-sink.js";
import type { RoundTimings } from "../protocol/round-timings.js";
import type { StopReason } from "../protocol/stop-reason.js";
import { MAX_TIMER_MS, timerDelay } from "../protocol/timer-delay.js";
import type { Usage } from "../protocol/usage.js";
import { type AssemblerReport, BlockAssembler } from "../stream/block-assembler.js";
import { deltasJoinedIn, joinDeltas } from "../stream/join-deltas.js";
import {
  type AssistantMessage,
  isCallBlock,
  type ToolResultBlock,
  type UserMessage,
} from "../stream/message.js";
import type { StreamEvent } from "../stream/stream-event.js";
import type { ToolCall } from "../stream/tool-call.js";
import type { ToolExecutor } from "../tools/tool-executor.js";
import type { ToolOutcome } from "../tools/tool-outcome.js";
import { PreviewCoalescer } from "./preview-coalescer.js";
import { RoundClock } from "./round-clock.js";
import type { RoundSettings } from "./round-settings.js";

/** Options of a {@link StreamedRound}: its {@link RoundSettings} and what this round is. */
export interface StreamedRoundOptions extends RoundSettings {
  // biome-ignore lint/suspicious/noExplicitAny: the round is agnostic of the host context.
  executor: ToolExecutor<any>;
  /** Receives every AgentEvent as it happens. */
  sink: AgentEventSink;
  /** Round number within the turn, carried by events. Default 1. */
  round?: number;
  /** Cancels the round: the stream is left, running tools are aborted, the result is repaired. */
  signal?: AbortSignal;
  /** Call ids used earlier in the conversation; a call reusing one gets a fresh id. */
  usedIds?: ReadonlySet<string>;
}

/** What a round produced. The two messages are always a valid continuation of the conversation. */
export interface RoundResult {
  /** The assistant message, as far as it got (possibly empty when interrupted at once). */
  assistant: AssistantMessage;
  /** ONE user message answering every tool_use, results in call order; absent when none. */
  toolResults: UserMessage | undefined;
  stopReason: StopReason;
  /** One outcome per tool_use of `assistant`, in call order. */
  outcomes: ToolOutcome[];
  /**
   * The valid local calls, as given to the journal at their block stop, in call order (invalid
   * and cut-off calls, which never run, are only in `outcomes`).
   */
  calls: ToolCall[];
  usage: Usage;
  timings: RoundTimings;
  /** Set when the stream failed or the round was cancelled; the messages were repaired. */
  error?: OverlapError;
}

interface Final {
  message: AssistantMessage;
  /** The message's local calls: the truth for the join. */
  toolUses: ToolCall[];
  stopReason: StopReason;
}

type ToolInputDelta = Extract<AssemblerReport, { type: "tool-input-delta" }>;

interface PreviewDue {
  report: ToolInputDelta;
  readonly send: () => void;
}

const ABORTED = Symbol("aborted");
const IDLE = Symbol("idle");

/** One model round. Create one per round and call {@link relay} once. */
export class StreamedRound {
  readonly #options: StreamedRoundOptions;
  /** The host's sink, guarded: its failure must not break the round or lose tool results. */
  readonly #sink: AgentEventSink;
  readonly #round: number;
  readonly #assembler: BlockAssembler;
  readonly #clock: RoundClock;
  readonly #previews: PreviewCoalescer;
  /** Per call whose arguments stream: its latest delta and the one function sending its preview. */
  readonly #previewsDue = new Map<string, PreviewDue>();
  readonly #dispatcher: EagerDispatcher;
  #final: Final | undefined;
  #streamError: OverlapError | undefined;
  /** A call was started since the last look: give it the event loop before reading on. */
  #started = false;
  /** The calls whose block stopped with valid arguments, by call id. */
  readonly #calls = new Map<string, ToolCall>();
  /** Journal writes still in flight. */
  readonly #journaling: Promise<void>[] = [];

  constructor(options: StreamedRoundOptions) {
    this.#options = options;
    this.#sink = guardedSink(options.sink, options.agent);
    this.#round = options.round ?? 1;
    this.#assembler = new BlockAssembler({
      round: this.#round,
      ...(options.usedIds ? { usedIds: options.usedIds } : {}),
    });
    const now = options.now ?? (() => performance.now());
    this.#clock = new RoundClock(now, (name) => options.executor.tool(name)?.sequence);
    this.#previews = new PreviewCoalescer(options.previewIntervalMs ?? 50, now);
    this.#dispatcher = new EagerDispatcher({
      executor: options.executor,
      emit: (event) => this.#emit(event),
      onStatus: (callId, name, status) =>
        this.#emit({
          type: "tool-status",
          round: this.#round,
          callId,
          name,
          status,
          atMs: this.#clock.toolStatus(callId, name, status),
        }),
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      ...(options.ledger ? { ledger: options.ledger } : {}),
      ...(options.onLedgerError ? { onError: options.onLedgerError } : {}),
      ...(options.approvals ? { approvals: options.approvals } : {}),
      ...(options.approvalTimeoutMs !== undefined
        ? { approvalTimeoutMs: options.approvalTimeoutMs }
        : {}),
      onApprovalRequest: (request) =>
        this.#emit({ type: "approval-request", round: this.#round, ...request }),
      onApprovalResolved: (resolved) =>
        this.#emit({ type: "approval-resolved", round: this.#round, ...resolved }),
    });
  }

  /** Consumes the provider's neutral events and runs the round to its end. Never rejects. */
  async relay(events: AsyncIterable<readonly StreamEvent[]>): Promise<RoundResult> {
    const signal = this.#options.signal;
    const cancel = () => this.#dispatcher.cancelAll("the response was cancelled");
    // A listener never fires for an abort that already happened: cancel now.
    if (signal?.aborted) cancel();
    else signal?.addEventListener("abort", cancel, { once: true });
    try {
      this.#emit({ type: "round-start", round: this.#round });
      let error = await this.#consume(events);
      this.#clock.streamEnd();
      this.#previews.dispose();
      const final = error || !this.#final ? this.#interrupt(error) : this.#final;
      const outcomes = await this.#dispatcher.collect(final.toolUses, final.stopReason);
      // The round's messages go to storage next: every journal write must have landed first.
      await Promise.all(this.#journaling);
      if (!error && signal?.aborted) error = abortedError();
      return this.#finish(final, outcomes, error);
    } finally {
      signal?.removeEventListener("abort", cancel);
      this.#previews.dispose();
    }
  }

  /**
   * Reads the stream until message_stop, a failure, cancellation or a silence longer than the
   * idle timeout (a hung connection must not hang the round); returns the failure.
   */
  async #consume(events: AsyncIterable<readonly StreamEvent[]>): Promise<OverlapError | undefined> {
    const signal = this.#options.signal;
    const idleMs = timerDelay(this.#options.idleTimeoutMs ?? 120_000) ?? MAX_TIMER_MS;
    let iterator: AsyncIterator<readonly StreamEvent[]> | undefined;
    let lastEventAt = Date.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Why the stream was left early (abort, idle), and the wait it must end at once. Each event's
    // wait is a fresh promise: racing every `next()` against one long-lived promise instead
    // (Promise.race) would hang a reaction on that promise per event, kept until the round ends.
    let interruption: typeof ABORTED | typeof IDLE | undefined;
    let wake: ((why: typeof ABORTED | typeof IDLE) => void) | undefined;
    const interrupt = (why: typeof ABORTED | typeof IDLE) => {
      interruption ??= why;
      wake?.(interruption);
    };
    const onAbort = () => interrupt(ABORTED);
    if (signal?.aborted) interruption = ABORTED;
    signal?.addEventListener("abort", onAbort, { once: true });
    // One timer re-armed from the last event's time, instead of one timer per event.
    const watch = (ms: number) => {
      timer = setTimeout(() => {
        const quiet = Date.now() - lastEventAt;
        if (quiet >= idleMs) interrupt(IDLE);
        else watch(idleMs - quiet);
      }, ms);
    };
    watch(idleMs);
    try {
      iterator = events[Symbol.asyncIterator]();
      while (!this.#assembler.ended) {
        if (signal?.aborted) return abortedError();
        const source = iterator;
        const next =
          interruption ??
          (await new Promise<IteratorResult<readonly StreamEvent[]> | typeof ABORTED | typeof IDLE>(
            (resolve, reject) => {
              wake = resolve;
              // It may lose to an interruption and settle later: then nobody listens.
              source.next().then(resolve, reject);
            },
          ));
        wake = undefined;
        if (next === ABORTED) return abortedError();
        if (next === IDLE) {
          return new OverlapError(
            "stream_interrupted",
            `The model stream was silent for ${idleMs} ms.`,
          );
        }
        // Aborted while this event was already due; some SDKs end a stream quietly on abort.
        if (signal?.aborted) return abortedError();
        if (next.done) return streamCut();
        lastEventAt = Date.now();
        // One read's events, in one synchronous pass; a sink or a tool may abort between. A
        // call that starts in the read gets the event loop before the rest is handled, so it
        // begins its work (its ledger lookup, its I/O) while the model still writes. A block's
        // deltas that came together are handled as one.
        for (const event of joinDeltas(next.value)) {
          if (this.#assembler.ended) break;
          if (signal?.aborted) return abortedError();
          this.#clock.event();
          this.#push(event);
          if (this.#streamError) return this.#streamError;
          if (this.#started) {
            this.#started = false;
            await new Promise<void>(afterThisTurn);
            if (interruption === IDLE) break;
          }
        }
      }
      return undefined;
    } catch (err) {
      if (signal?.aborted) return abortedError(); // the provider failed because we aborted it
      if (err instanceof OverlapError) return err;
      // A client of the host's own throws what it likes: its status and words say which failure.
      const status = (err as { status?: unknown } | undefined)?.status;
      return new OverlapError("stream_interrupted", `The model stream failed: ${describe(err)}`, {
        cause: err,
        category: errorCategoryOf({
          status: typeof status === "number" ? status : undefined,
          message: describe(err),
          name: err instanceof Error ? err.name : undefined,
        }),
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      // Leave the provider's stream (closes the HTTP response) without waiting on it.
      iterator?.return?.()?.catch?.(() => {});
    }
  }

  /**
   * One event to the assembler, its reports handled. A joined delta the assembler
   * refuses goes again as the deltas it was joined from: those before the refused one are kept
   * and shown, as they would have been had they come in separate reads.
   */
  #push(event: StreamEvent): void {
    let reports: readonly AssemblerReport[];
    try {
      reports = this.#assembler.push(event);
    } catch (err) {
      const joined = deltasJoinedIn(event);
      if (!joined) throw err;
      for (const part of joined) {
        for (const report of this.#assembler.push(part)) this.#handle(report);
      }
      return;
    }
    for (const report of reports) this.#handle(report);
  }

  #handle(report: AssemblerReport): void {
    const round = this.#round;
    switch (report.type) {
      case "block-start": {
        const block = report.block;
        const isCall = isCallBlock(block);
        this.#clock.blockStart(
          report.index,
          block.type,
          isCall ? block.id : undefined,
          isCall ? block.name : undefined,
        );
        if (block.type === "tool_use") {
          this.#emit({
            type: "tool-call-start",
            round,
            index: report.index,
            callId: block.id,
            name: block.name,
          });
        } else if ("tool_use_id" in block) {
          this.#emit({
            type: "server-tool",
            round,
            index: report.index,
            callId: block.tool_use_id,
            name: block.type,
            phase: "result",
            result: block.content,
          });
        }
        return;
      }
      case "text-delta":
        this.#emit({ type: "text-delta", round, index: report.index, text: report.text });
        return;
      case "thinking-delta":
        this.#emit({
          type: "thinking-delta",
          round,
          index: report.index,
          thinking: report.thinking,
        });
        return;
      case "tool-input-delta": {
        if (report.server) return;
        // One sender per call, made at its first delta: deltas only update what it will send.
        let pending = this.#previewsDue.get(report.callId);
        if (pending) pending.report = report;
        else {
          const due: PreviewDue = { report, send: () => this.#sendPreview(due.report) };
          pending = due;
          this.#previewsDue.set(report.callId, due);
        }
        this.#previews.update(report.callId, pending.send);
        return;
      }
      case "block-stop": {
        this.#clock.blockStop(report.index);
        const cited = report.block.type === "text" ? citationLinks(report.block.citations) : [];
        if (cited.length > 0) {
          this.#emit({ type: "citations", round, index: report.index, citations: cited });
        }
        return;
      }
      case "tool-call":
        this.#clock.blockStop(report.index);
        this.#toolCall(report);
        return;
      case "message-end":
        this.#final = {
          message: report.message,
          toolUses: report.toolUses,
          stopReason: report.stopReason,
        };
        return;
      case "stream-error":
        this.#streamError = new OverlapError(
          "stream_error",
          `The model stream reported ${report.errorType}: ${report.message}`,
          {
            details: { errorType: report.errorType },
            category: errorCategoryOf({ type: report.errorType, message: report.message }),
          },
        );
        return;
      default:
        return;
    }
  }

  #sendPreview(report: ToolInputDelta): void {
    this.#emit({
      type: "tool-input-preview",
      round: this.#round,
      index: report.index,
      callId: report.callId,
      name: report.name,
      preview: report.preview(),
      bytes: report.bytes,
    });
  }

  /** Moment 2: the call's arguments are complete. Dispatch it now. */
  #toolCall(report: Extract<AssemblerReport, { type: "tool-call" }>): void {
    const { callId, name, index, input } = report;
    const round = this.#round;
    this.#previews.finish(callId);
    this.#previewsDue.delete(callId);
    const value = input.ok ? input.value : {};
    if (report.server) {
      this.#emit({ type: "server-tool", round, index, callId, name, phase: "call", input: value });
      return;
    }
    if (!input.ok) {
      this.#emit({
        type: "tool-call",
        round,
        index,
        callId,
        name,
        input: value,
        dispatch: "invalid",
        error: input.error,
      });
      return;
    }
    const call = report.call;
    // A repeated id: the first call owns it (the assembler renames repeats, so this is a guard).
    const first = !this.#calls.has(callId);
    if (first) this.#calls.set(callId, call);
    // Announce the real decision before dispatching, so no status event precedes the call.
    const dispatch = this.#dispatcher.decide(call);
    if (first && dispatch !== "duplicate") this.#journal(call);
    this.#emit({ type: "tool-call", round, index, callId, name, input: value, dispatch });
    if (dispatch === "started") {
      this.#clock.toolReady(callId, name);
      this.#started = true;
    }
    this.#dispatcher.dispatch(call);
  }

  /** Hands the call to the journal without waiting; the round joins the write before it ends. */
  #journal(call: ToolCall): void {
    const journal = this.#options.journal;
    if (!journal) return;
    let write: Promise<void> | void;
    try {
      // Called now, before the dispatch: the write is issued ahead of anything the tool does.
      write = journal.callComplete(call);
    } catch (error) {
      write = Promise.reject(error);
    }
    this.#journaling.push(
      Promise.resolve(write).catch((error: unknown) => {
        try {
          this.#options.onJournalError?.(error, call);
        } catch {
          // A failing error handler must not break the round.
        }
      }),
    );
  }

  /** The stream failed or was cancelled: stop every tool and answer from what was generated. */
  #interrupt(error: OverlapError | undefined): Final {
    this.#dispatcher.cancelAll(
      error?.code === "aborted" ? "the response was cancelled" : "the response was interrupted",
    );
    let partial: Pick<Final, "message" | "toolUses">;
    try {
      partial = this.#final ?? this.#assembler.partial();
    } catch {
      // A stream malformed enough to break the partial view too: keep nothing rather than throw.
      partial = { message: { role: "assistant", content: [] }, toolUses: [] };
    }
    return { message: partial.message, toolUses: partial.toolUses, stopReason: "error" };
  }

  #finish(final: Final, outcomes: ToolOutcome[], error: OverlapError | undefined): RoundResult {
    const round = this.#round;
    for (const outcome of outcomes) {
      const { callId, name } = outcome;
      for (const ui of outcome.events) this.#emit({ type: "ui", round, callId, name, ui });
      this.#emit({
        type: "tool-result",
        round,
        callId,
        name,
        isError: outcome.isError,
        status: outcome.status,
        resultText: outcome.resultText,
        // Structured results travel as data too (a text result is already `resultText`).
        ...(outcome.output !== undefined && typeof outcome.output !== "string"
          ? { output: outcome.output }
          : {}),
        ...(outcome.problem !== undefined ? { problem: outcome.problem } : {}),
      });
    }
    const timings = this.#clock.end();
    const usage = this.#assembler.usage;
    this.#emit({ type: "round-end", round, stopReason: final.stopReason, usage, timings });
    const result: RoundResult = {
      assistant: final.message,
      toolResults: outcomes.length > 0 ? toolResultMessage(outcomes) : undefined,
      stopReason: final.stopReason,
      outcomes,
      calls: [...this.#calls.values()].sort((a, b) => a.index - b.index),
      usage,
      timings,
    };
    if (error) result.error = error;
    return result;
  }

  #emit(event: AgentEvent): void {
    this.#sink(event);
  }
}

/** ONE user message answering every call, tool_result blocks in call order. */
export function toolResultMessage(outcomes: readonly ToolOutcome[]): UserMessage {
  return {
    role: "user",
    content: outcomes.map(
      (o): ToolResultBlock =>
        o.isError
          ? { type: "tool_result", tool_use_id: o.callId, content: o.resultText, is_error: true }
          : { type: "tool_result", tool_use_id: o.callId, content: o.resultText },
    ),
  };
}

function abortedError(): OverlapError {
  return new OverlapError("aborted", "The round was cancelled.");
}

function streamCut(): OverlapError {
  return new OverlapError("stream_interrupted", "The model stream ended before message_stop.");
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Runs `task` once this turn of the event loop is over (where there is no setImmediate, a timer). */
const afterThisTurn: (task: () => void) => void =
  typeof setImmediate === "function" ? (task) => setImmediate(task) : (task) => setTimeout(task, 0);
