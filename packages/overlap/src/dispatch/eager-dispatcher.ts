/**
 * EagerDispatcher: starts a tool the moment its call is complete, keeps the
 * running task by call id, and at the end of the message joins every call of the final message in
 * that message's order, whatever order they finished in. Nothing runs twice: tasks are keyed by
 * call id, and a ledger (when given) replays outcomes recorded by an earlier attempt. How many run
 * at once is the {@link ConcurrencyLimiter}'s; the order within a sequence the
 * {@link SequenceQueue}'s; the wait for the user the approval gate's.
 */

import type { AgentEventSink, ToolCallState } from "../protocol/agent-event.js";
import type { ApprovalRequest, ApprovalResolved } from "../protocol/approval.js";
import type { StopReason } from "../protocol/stop-reason.js";
import type { ToolCall } from "../stream/tool-call.js";
import type { ApprovedEffect } from "../tools/approved-effect.js";
import type { ToolExecutor } from "../tools/tool-executor.js";
import { failedOutcome, type ToolOutcome } from "../tools/tool-outcome.js";
import { unparsedCallOutcome } from "../tools/unparsed-call-outcome.js";
import { runApproved } from "./approval-gate.js";
import { ConcurrencyLimiter, type ConcurrencySlot } from "./concurrency-limiter.js";
import type { DispatchSettings } from "./dispatch-settings.js";
import { internalErrorOutcome, replayRecorded, settleRecorded } from "./ledger-replay.js";
import { SequenceQueue } from "./sequence-queue.js";

/** Options of an {@link EagerDispatcher}: its {@link DispatchSettings} and where it reports. */
export interface EagerDispatcherOptions extends DispatchSettings {
  // biome-ignore lint/suspicious/noExplicitAny: the dispatcher is agnostic of the host context.
  executor: ToolExecutor<any>;
  /** Display channel for events tools send while running (delegate tools). */
  emit?: AgentEventSink;
  /** Told of every state change of a call, in the order they happen. */
  onStatus?: (callId: string, name: string, status: ToolCallState) => void;
  /** Told of ledger failures (the call's outcome says what the model needs to know). */
  onError?: (error: unknown, call: ToolCall) => void;
  /** Told when a call starts waiting for approval (before the source's `wait`). */
  onApprovalRequest?: (request: ApprovalRequest) => void;
  /** Told when a call's wait for approval ended (approved, declined, timeout, cancelled). */
  onApprovalResolved?: (resolved: ApprovalResolved) => void;
}

/** What {@link EagerDispatcher.dispatch} did with a call. */
export type DispatchResult = "started" | "queued" | "deferred" | "duplicate" | "cancelled";

interface Task {
  call: ToolCall;
  controller: AbortController;
  outcome: Promise<ToolOutcome>;
}

/** Stop reasons after which a complete eager call that never started may still start. */
const LATE_START_OK: ReadonlySet<StopReason> = new Set([
  "tool_use",
  "end_turn",
  "stop_sequence",
  "max_tokens",
  "pause_turn",
]);

/** One round's dispatcher. Create one per round. */
export class EagerDispatcher {
  readonly #options: EagerDispatcherOptions;
  readonly #tasks = new Map<string, Task>();
  readonly #limiter: ConcurrencyLimiter;
  /** Calls of tools naming one sequence (see `ToolConfig.sequence`), one at a time. */
  readonly #sequences = new SequenceQueue();
  #cancelReason: string | undefined;

  constructor(options: EagerDispatcherOptions) {
    this.#limiter = new ConcurrencyLimiter(options.concurrency);
    this.#options = options;
  }

  /** True once {@link cancelAll} was called. */
  get cancelled(): boolean {
    return this.#cancelReason !== undefined;
  }

  /**
   * Starts a complete call now (moment 2). A deferred tool is only noted; it starts in collect if
   * the message ends with stop reason tool_use. A second dispatch of the same id is a no-op. A
   * call whose arguments did not parse is answered by the executor without running.
   */
  dispatch(call: ToolCall): DispatchResult {
    const decision = this.decide(call);
    if (decision === "deferred") {
      // A deferred call of a sequence keeps its place: later calls of the sequence wait for it.
      const sequence = this.#options.executor.tool(call.name)?.sequence;
      if (sequence !== undefined) this.#sequences.hold(call.id, sequence);
    }
    return decision === "started" ? this.#start(call) : decision;
  }

  /**
   * What {@link dispatch} would do with the call now, without doing it ("started" covers both
   * starting and queueing). Lets a caller announce the decision before any status event.
   */
  decide(call: ToolCall): Exclude<DispatchResult, "queued"> {
    if (this.#tasks.has(call.id)) return "duplicate";
    if (this.#cancelReason !== undefined) return "cancelled";
    if (this.#options.executor.tool(call.name)?.dispatch === "deferred") return "deferred";
    return "started";
  }

  /**
   * Joins the round. `calls` is the final message's list of local calls, the truth: started
   * tasks are reused, missing ones are started when allowed, and every call gets exactly one
   * outcome, returned in this list's order.
   */
  async collect(calls: readonly ToolCall[], stopReason: StopReason): Promise<ToolOutcome[]> {
    const seen = new Set<string>();
    const outcomes = calls.map((call): Promise<ToolOutcome> => {
      if (seen.has(call.id)) {
        return Promise.resolve(
          failedOutcome(
            call.id,
            call.name,
            "not_executed",
            `Duplicate call id ${call.id}: ignored.`,
          ),
        );
      }
      seen.add(call.id);
      const task = this.#tasks.get(call.id);
      if (task) return task.outcome;
      const refusal = this.#whyNotStart(call, stopReason, call === calls.at(-1));
      if (refusal) {
        this.#sequences.free(call.id);
        return Promise.resolve(refusal);
      }
      this.#start(call);
      return this.#tasks.get(call.id)!.outcome;
    });
    // A deferred call the final message does not hold never runs: its place is given up.
    this.#sequences.freeAll();
    return Promise.all(outcomes);
  }

  /**
   * Aborts every running task and keeps queued ones from starting. Their outcomes become
   * `interrupted` / `not_executed`; tasks that already finished keep their real result.
   */
  cancelAll(reason: string): void {
    if (this.#cancelReason !== undefined) return;
    this.#cancelReason = reason;
    for (const task of this.#tasks.values()) task.controller.abort(new CancelledError(reason));
    // Nothing new starts now: the places deferred calls held are given up.
    this.#sequences.freeAll();
    // Queued tasks see the abort when their slot is granted and report not_executed.
    this.#limiter.admitAll();
  }

  #whyNotStart(call: ToolCall, stopReason: StopReason, last: boolean): ToolOutcome | undefined {
    const { id, name } = call;
    if (!call.input?.ok) return unparsedCallOutcome(call, call.input, { stopReason, last });
    if (this.#cancelReason !== undefined) return this.#cancelledOutcome(call);
    const deferred = this.#options.executor.tool(name)?.dispatch === "deferred";
    if (deferred && stopReason !== "tool_use") {
      return failedOutcome(
        id,
        name,
        "not_executed",
        `${name} was not run: it only runs when the response completes normally, and this one ended with "${stopReason}". Call it again if it is still wanted.`,
      );
    }
    if (!deferred && !LATE_START_OK.has(stopReason)) {
      return failedOutcome(
        id,
        name,
        "not_executed",
        `${name} was not run: the response ended with "${stopReason}".`,
      );
    }
    return undefined;
  }

  #start(call: ToolCall): DispatchResult {
    const controller = new AbortController();
    const tool = this.#options.executor.tool(call.name);
    // Its place in its sequence (a deferred call started by collect takes the one it held).
    const place =
      tool?.sequence === undefined ? undefined : this.#sequences.enter(call.id, tool.sequence);
    let outcome: Promise<ToolOutcome>;
    let queued = false;
    if (tool?.requiresApproval) {
      // Asks first, holding no slot: a call waiting for the user blocks no other call.
      outcome = this.#approved(call, controller, place?.turn);
    } else {
      const slot = this.#slot(place?.turn);
      queued = slot.queued;
      outcome = this.#run(call, controller, slot);
    }
    this.#tasks.set(call.id, { call, controller, outcome });
    // The call's end frees the next call of its sequence.
    if (place) void outcome.then(place.leave, place.leave);
    return queued ? "queued" : "started";
  }

  /** A concurrency slot, asked for once the call's turn in its sequence (if any) has come. */
  #slot(turn: Promise<void> | undefined): ConcurrencySlot {
    if (!turn) return this.#limiter.acquire();
    return { granted: turn.then(() => this.#limiter.acquire().granted), queued: true };
  }

  /**
   * A call whose tool may need the user's approval: a call recorded by an earlier attempt is
   * replayed without asking again; otherwise it asks (when its policy says so), then runs as any
   * call (taking a slot, looking the ledger up again: an answer may take minutes).
   */
  async #approved(
    call: ToolCall,
    controller: AbortController,
    turn: Promise<void> | undefined,
  ): Promise<ToolOutcome> {
    const status = this.#statusOf(call);
    const recorded = await this.#replay(call, status);
    if (recorded) return recorded;
    // Whether the call's status was told already (by #run, or here when cancelled).
    let told = false;
    const ran = (outcome: ToolOutcome) => {
      if (!outcome.effectChanged) told = true;
      return outcome;
    };
    const outcome = await runApproved(
      {
        executor: this.#options.executor,
        call,
        approvals: this.#options.approvals,
        ...(this.#options.approvalTimeoutMs !== undefined
          ? { timeoutMs: this.#options.approvalTimeoutMs }
          : {}),
        signal: controller.signal,
        onRequest: (request) => this.#options.onApprovalRequest?.(request),
        onResolved: (resolved) => this.#options.onApprovalResolved?.(resolved),
        onError: (error) => this.#options.onError?.(error, call),
      },
      async (approved) => {
        if (controller.signal.aborted) {
          // Approved just as the round was cancelled: cancelAll released the queue already.
          status("cancelled");
          told = true;
          return this.#cancelledOutcome(call);
        }
        return ran(await this.#run(call, controller, this.#slot(turn), approved));
      },
    );
    // Answered by the gate (declined, timed out, cancelled while waiting, changed too often).
    if (!told) status(stateOf(outcome));
    return outcome;
  }

  /** Runs the call once its slot is granted: replayed from the ledger, or executed and recorded. */
  async #run(
    call: ToolCall,
    controller: AbortController,
    slot: ConcurrencySlot,
    approved?: ApprovedEffect,
  ): Promise<ToolOutcome> {
    const status = this.#statusOf(call);
    let holdsSlot = false;
    try {
      if (slot.queued) status("queued");
      await slot.granted;
      holdsSlot = true;
      if (controller.signal.aborted) {
        status("cancelled");
        return this.#cancelledOutcome(call);
      }
      const recorded = await this.#replay(call, status);
      if (recorded) return recorded;
      const { executor, ledger, emit, onError } = this.#options;
      const ran = await executor.execute(call, {
        signal: controller.signal,
        onStart: () => status("running"),
        ...(emit ? { emit } : {}),
        ...(approved ? { approved } : {}),
      });
      // Nothing happened and the user is asked again: no status, no record.
      if (ran.effectChanged) return ran;
      const outcome = await settleRecorded(ledger, call, ran, onError);
      status(stateOf(outcome));
      return outcome;
    } catch (error) {
      // The executor never rejects and the ledger's failures are caught: only a host's callback
      // can throw here. The call still gets its one answer.
      this.#options.onError?.(error, call);
      status("failed");
      return internalErrorOutcome(call);
    } finally {
      if (holdsSlot) this.#limiter.release();
    }
  }

  /** The outcome recorded by an earlier attempt (or a failed lookup's), told as the call's state. */
  async #replay(
    call: ToolCall,
    status: (state: ToolCallState) => void,
  ): Promise<ToolOutcome | undefined> {
    const recorded = await replayRecorded(this.#options.ledger, call, this.#options.onError);
    if (recorded) status(recorded.isError ? "failed" : "done");
    return recorded;
  }

  #statusOf(call: ToolCall): (state: ToolCallState) => void {
    return (state) => this.#options.onStatus?.(call.id, call.name, state);
  }

  /** The answer to a call that never started because the round was cancelled. */
  #cancelledOutcome(call: ToolCall): ToolOutcome {
    return failedOutcome(
      call.id,
      call.name,
      "not_executed",
      `${call.name} was not run: ${this.#cancelReason ?? "the response was cancelled"}.`,
    );
  }
}

/** The abort reason given to tools when a round is cancelled. */
export class CancelledError extends Error {
  override readonly name = "AbortError";
}

function stateOf(outcome: ToolOutcome): ToolCallState {
  if (outcome.status === "ok") return "done";
  return outcome.status === "interrupted" ||
    outcome.status === "not_executed" ||
    outcome.status === "declined"
    ? "cancelled"
    : "failed";
}
