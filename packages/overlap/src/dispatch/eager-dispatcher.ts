/**
 * EagerDispatcher: starts a tool the moment its call is complete, keeps the
 * running task by call id, and at the end of the message joins every call of the final message in
 * that message's order, whatever order they finished in. Nothing runs twice: tasks are keyed by
 * call id, and a ledger (when given) replays outcomes recorded by an earlier attempt.
 */

import type { AgentEventSink, ToolCallState } from "../protocol/agent-event.js";
import type { ApprovalRequest, ApprovalResolved } from "../protocol/approval.js";
import type { StopReason } from "../protocol/stop-reason.js";
import type { ToolCall } from "../stream/tool-call.js";
import type { ApprovedEffect } from "../tools/approved-effect.js";
import type { ToolExecutor } from "../tools/tool-executor.js";
import { failedOutcome, type ToolOutcome } from "../tools/tool-outcome.js";
import { runApproved } from "./approval-gate.js";
import type { DispatchSettings } from "./dispatch-settings.js";

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
  /** Calls waiting for a concurrency slot, in dispatch order. */
  readonly #waiting: Array<() => void> = [];
  #running = 0;
  /** Per sequence (see `ToolConfig.sequence`): settles when the last call entered so far has ended. */
  readonly #sequenceTails = new Map<string, Promise<void>>();
  /**
   * Deferred calls of a sequence, noted at dispatch: their place in the sequence is held (later
   * calls wait for them) until collect starts or refuses them.
   */
  readonly #heldPlaces = new Map<
    string,
    { previous: Promise<void> | undefined; end: () => void }
  >();
  #cancelReason: string | undefined;

  constructor(options: EagerDispatcherOptions) {
    const limit = options.concurrency;
    if (
      limit !== undefined &&
      !(limit === Number.POSITIVE_INFINITY || (Number.isInteger(limit) && limit > 0))
    ) {
      // 0, NaN or a negative limit would queue every call forever.
      throw new RangeError(`concurrency must be a positive integer, got ${limit}.`);
    }
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
    if (decision === "deferred") this.#holdPlace(call);
    return decision === "started" ? this.#start(call) : decision;
  }

  /** A deferred call of a sequence keeps its place: later calls of the sequence wait for it. */
  #holdPlace(call: ToolCall): void {
    const sequence = this.#options.executor.tool(call.name)?.sequence;
    if (sequence === undefined || this.#heldPlaces.has(call.id)) return;
    const previous = this.#sequenceTails.get(sequence);
    let end = () => {};
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    this.#setTail(sequence, ended);
    this.#heldPlaces.set(call.id, { previous, end });
  }

  /** `ended` is the sequence's last call; once it settles with nothing after it, none is ahead. */
  #setTail(sequence: string, ended: Promise<void>): void {
    this.#sequenceTails.set(sequence, ended);
    void ended.then(() => {
      if (this.#sequenceTails.get(sequence) === ended) this.#sequenceTails.delete(sequence);
    });
  }

  /** Gives up a held place (the call was refused, or the round ended without it). */
  #freePlace(callId: string): void {
    this.#heldPlaces.get(callId)?.end();
    this.#heldPlaces.delete(callId);
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
        this.#freePlace(call.id);
        return Promise.resolve(refusal);
      }
      this.#start(call);
      return this.#tasks.get(call.id)!.outcome;
    });
    // A deferred call the final message does not hold never runs: its place is given up.
    for (const id of [...this.#heldPlaces.keys()]) this.#freePlace(id);
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
    for (const id of [...this.#heldPlaces.keys()]) this.#freePlace(id);
    // Queued tasks see the abort when their slot is granted and report not_executed.
    for (const grant of this.#waiting.splice(0)) {
      this.#running++; // each released waiter holds a slot until its finally releases it
      grant();
    }
  }

  #whyNotStart(call: ToolCall, stopReason: StopReason, last: boolean): ToolOutcome | undefined {
    const { id, name } = call;
    if (call.input === null) {
      const why =
        stopReason === "max_tokens"
          ? "the response reached its length limit (max_tokens) before the arguments were complete"
          : "the response was interrupted before the arguments were complete";
      return failedOutcome(
        id,
        name,
        stopReason === "max_tokens" ? "invalid_input" : "not_executed",
        `${name} was not run: ${why}. Call it again with complete arguments${stopReason === "max_tokens" ? ", keeping the response shorter" : ""}.`,
        stopReason === "max_tokens" ? { code: "input_cut" } : undefined,
      );
    }
    if (!call.input.ok) {
      // Only the response's last call can have been cut by its token limit.
      const cut = last && stopReason === "max_tokens";
      return failedOutcome(id, name, "invalid_input", `${name} was not run. ${call.input.error}`, {
        code: cut ? "input_cut" : "invalid_json",
      });
    }
    if (this.#cancelReason !== undefined) {
      return failedOutcome(id, name, "not_executed", `${name} was not run: ${this.#cancelReason}.`);
    }
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
    const after = this.#enterSequence(call.id, tool?.sequence);
    let outcome: Promise<ToolOutcome>;
    let queued = false;
    if (tool?.requiresApproval) {
      // Asks first, holding no slot: a call waiting for the user blocks no other call.
      outcome = this.#approved(call, controller, after);
    } else if (after) {
      // Its turn in the sequence comes first, then a concurrency slot.
      queued = true;
      outcome = this.#run(call, controller, this.#slotAfter(after), true);
    } else {
      const slot = this.#slot();
      queued = slot.queued;
      outcome = this.#run(call, controller, slot.limit, queued);
    }
    this.#tasks.set(call.id, { call, controller, outcome });
    if (tool?.sequence !== undefined) this.#leaveSequence(call.id, tool.sequence, outcome);
    return queued ? "queued" : "started";
  }

  /**
   * Enters a call into its sequence: what it must wait for (the previous call of the sequence,
   * still running or held by a deferred call), or `undefined` when nothing is ahead of it.
   */
  #enterSequence(callId: string, sequence: string | undefined): Promise<void> | undefined {
    if (sequence === undefined) return undefined;
    const held = this.#heldPlaces.get(callId);
    // A deferred call started by collect waits for what was ahead of it when it was noted.
    return held ? held.previous : this.#sequenceTails.get(sequence);
  }

  /** The call's end frees the next call of its sequence (and its held place, if it had one). */
  #leaveSequence(callId: string, sequence: string, outcome: Promise<ToolOutcome>): void {
    const ended = outcome.then(
      () => {},
      () => {},
    );
    const held = this.#heldPlaces.get(callId);
    if (held) {
      this.#heldPlaces.delete(callId);
      void ended.then(held.end);
    } else {
      this.#setTail(sequence, ended);
    }
  }

  /** A concurrency slot, asked for once `after` has settled. */
  async #slotAfter(after: Promise<void>): Promise<void> {
    await after;
    await this.#slot().limit;
  }

  #slot(): { limit: Promise<void>; queued: boolean } {
    const max = this.#options.concurrency ?? Number.POSITIVE_INFINITY;
    if (this.#running < max) {
      this.#running++;
      return { limit: Promise.resolve(), queued: false };
    }
    // The slot is handed over by the task that frees it, so the count never exceeds max.
    return { limit: new Promise<void>((grant) => this.#waiting.push(grant)), queued: true };
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#running--;
  }

  /**
   * A call whose tool may need the user's approval: a call recorded by an earlier attempt is
   * replayed without asking again; otherwise it asks (when its policy says so), then runs as any
   * call (taking a slot, looking the ledger up again: an answer may take minutes).
   */
  async #approved(
    call: ToolCall,
    controller: AbortController,
    after: Promise<void> | undefined,
  ): Promise<ToolOutcome> {
    const { ledger } = this.#options;
    const status = (s: ToolCallState) => this.#options.onStatus?.(call.id, call.name, s);
    try {
      const recorded = await ledger?.lookup(call.id);
      if (recorded) {
        status(recorded.isError ? "failed" : "done");
        return { ...recorded, replayed: true };
      }
    } catch (error) {
      this.#options.onError?.(error, call);
      status("failed");
      return failedOutcome(
        call.id,
        call.name,
        "error",
        `${call.name} could not be run because of an internal error. It may be retried.`,
      );
    }
    // Whether the call's status was told already (by #run, or here when cancelled).
    let told = false;
    const ran = (outcome: ToolOutcome) => {
      if (!outcome.effectChanged) told = true;
      return outcome;
    };
    return runApproved(
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
      (approved) => {
        if (controller.signal.aborted) {
          // Approved just as the round was cancelled: cancelAll released the queue already.
          status("cancelled");
          told = true;
          return Promise.resolve(
            failedOutcome(
              call.id,
              call.name,
              "not_executed",
              `${call.name} was not run: ${this.#cancelReason ?? "the response was cancelled"}.`,
            ),
          );
        }
        if (after) {
          return this.#run(call, controller, this.#slotAfter(after), true, approved).then(ran);
        }
        const { limit, queued } = this.#slot();
        return this.#run(call, controller, limit, queued, approved).then(ran);
      },
    ).then((outcome) => {
      // Answered by the gate (declined, timed out, cancelled while waiting, changed too often).
      if (!told) status(stateOf(outcome));
      return outcome;
    });
  }

  async #run(
    call: ToolCall,
    controller: AbortController,
    slot: Promise<void>,
    queued: boolean,
    approved?: ApprovedEffect,
  ): Promise<ToolOutcome> {
    const { executor, ledger, emit } = this.#options;
    const status = (s: ToolCallState) => this.#options.onStatus?.(call.id, call.name, s);
    let holdsSlot = false;
    try {
      if (queued) status("queued");
      await slot;
      holdsSlot = true;
      if (controller.signal.aborted) {
        status("cancelled");
        return failedOutcome(
          call.id,
          call.name,
          "not_executed",
          `${call.name} was not run: ${this.#cancelReason}.`,
        );
      }
      const recorded = await ledger?.lookup(call.id);
      if (recorded) {
        status(recorded.isError ? "failed" : "done");
        return { ...recorded, replayed: true };
      }
      let outcome = await executor.execute(call, {
        signal: controller.signal,
        onStart: () => status("running"),
        ...(emit ? { emit } : {}),
        ...(approved ? { approved } : {}),
      });
      // Nothing happened and the user is asked again: no status, no record.
      if (outcome.effectChanged) return outcome;
      if (ledger && (outcome.status === "interrupted" || outcome.status === "timeout")) {
        // A tool that records its outcome in its effect's transaction may have committed just
        // before the abort: then the effect happened, and its record is the truth to report.
        const committed = await Promise.resolve()
          .then(() => ledger.lookup(call.id))
          .catch((error: unknown) => {
            this.#options.onError?.(error, call);
            return undefined;
          });
        if (committed) outcome = committed;
      }
      if (ledger && (outcome.status === "ok" || outcome.status === "error")) {
        // The effect happened whatever the ledger says: a failed write must not hide the result.
        // A record already written by the tool itself (in its transaction) is kept.
        const recorded = outcome;
        await Promise.resolve()
          .then(() => ledger.record(recorded, call))
          .catch((error: unknown) => this.#options.onError?.(error, call));
      }
      status(stateOf(outcome));
      return outcome;
    } catch (error) {
      // Only the ledger lookup can throw here (the executor never does, record is caught above):
      // the tool did not run.
      this.#options.onError?.(error, call);
      status("failed");
      return failedOutcome(
        call.id,
        call.name,
        "error",
        `${call.name} could not be run because of an internal error. It may be retried.`,
      );
    } finally {
      if (holdsSlot) this.#release();
    }
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
