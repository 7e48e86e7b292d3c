/**
 * Approval before irreversible actions, the round's side: a call whose tool needs the
 * user's approval is announced (`approval-request`), then waits for a decision from the host's
 * {@link ApprovalSource}, bounded by a timeout and by the round's cancellation. Approved, it runs
 * as usual; declined or unanswered, it is answered `declined` with a sentence the model reads;
 * cancelled while waiting, `not_executed`. Either way the conversation stays valid: the call gets
 * exactly one result. The wait holds no concurrency slot and blocks no other call of the round;
 * only the round's join waits for it.
 */

import type {
  ApprovalDecision,
  ApprovalRequest,
  ApprovalResolution,
  ApprovalResolved,
  ApprovalSource,
  EffectChange,
} from "../protocol/approval.js";
import { timerDelay } from "../protocol/timer-delay.js";
import type { ToolCall } from "../stream/tool-call.js";
import { type ApprovedEffect, effectChanges, effectDigest } from "../tools/approved-effect.js";
import type { ToolExecutor } from "../tools/tool-executor.js";
import { failedOutcome, type ToolOutcome } from "../tools/tool-outcome.js";

/** Default time to wait for the user: 5 minutes. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 5 * 60_000;

/** What the model reads when the user declined the call. */
export const APPROVAL_DECLINED_TEXT = "The user declined this action.";

/** What the model reads when the user did not answer in time. */
export const APPROVAL_TIMEOUT_TEXT = "No answer from the user in time; the action was not taken.";

/** The longest reason quoted to the model, in characters. */
const MAX_REASON_CHARS = 500;

/** Options of {@link awaitApproval}. */
export interface AwaitApprovalOptions {
  // biome-ignore lint/suspicious/noExplicitAny: the gate is agnostic of the host context.
  executor: ToolExecutor<any>;
  call: ToolCall;
  /** Where decisions come from; without one, a call that needs approval is never run. */
  approvals: ApprovalSource | undefined;
  /**
   * The effect approved before, when this asks again because the effect changed: the request
   * then carries what changed.
   */
  previous?: ApprovedEffect;
  /** Which time this call is asked (1 the first); a later ask reopens the call's approval card. */
  ask?: number;
  /** Default {@link DEFAULT_APPROVAL_TIMEOUT_MS}; `Infinity` waits without limit. */
  timeoutMs?: number;
  /** The call's own signal: aborted when the round is cancelled. */
  signal: AbortSignal;
  /** Told right before the wait begins (the host emits `approval-request`). */
  onRequest(request: ApprovalRequest): void;
  /** Told once the wait ended, whatever ended it (the host emits `approval-resolved`). */
  onResolved(resolved: ApprovalResolved): void;
  /** Told when the source failed (its `wait` rejected). */
  onError?: (error: unknown) => void;
}

/** How {@link awaitApproval} ended: the call may run (with the effect approved), or an answer. */
export type ApprovalGateResult =
  | { approved: ApprovedEffect | undefined }
  | { outcome: ToolOutcome }
  /** The user approved a request other than this one (its digest): ask again. */
  | { stale: true };

/** How many times one call is asked again because its effect changed, before giving up. */
export const MAX_APPROVAL_ASKS = 3;

/**
 * Asks for the call's approval when its tool needs it, then runs it with `run`; when the tool
 * finds its approved effect no longer matches the state (`EffectChangedError`: nothing happened),
 * or the user's decision was bound to another request, asks again showing what changed, up to
 * {@link MAX_APPROVAL_ASKS} times. Never rejects (as long as `run` does not).
 */
export async function runApproved(
  options: AwaitApprovalOptions,
  run: (approved: ApprovedEffect | undefined) => Promise<ToolOutcome>,
): Promise<ToolOutcome> {
  let previous: ApprovedEffect | undefined;
  for (let ask = 1; ; ask++) {
    const gate = await awaitApproval({
      ...options,
      ...(previous ? { previous } : {}),
      ...(ask > 1 ? { ask } : {}),
    });
    if ("outcome" in gate) return gate.outcome;
    if ("approved" in gate) {
      const outcome = await run(gate.approved);
      if (!outcome.effectChanged) return outcome;
      if (gate.approved) previous = gate.approved;
    }
    if (ask >= MAX_APPROVAL_ASKS) {
      const { call } = options;
      return failedOutcome(
        call.id,
        call.name,
        "not_executed",
        `${call.name} was not run: what it would do kept changing while the user was asked to approve it (${MAX_APPROVAL_ASKS} times). Tell the user, and call it again if they still want it.`,
      );
    }
  }
}

/**
 * Asks for the call's approval when its tool needs it, and waits. Resolves `approved` when the
 * call may run (approved, with the effect the user saw when the tool states one; or no approval
 * needed), else with the outcome that answers it instead. Never rejects.
 */
export async function awaitApproval(options: AwaitApprovalOptions): Promise<ApprovalGateResult> {
  const { call, signal } = options;
  const need = await options.executor.approvalOf(call);
  if (!need) return { approved: undefined };
  if (signal.aborted) return { outcome: cancelledWhileWaiting(call) };
  const source = options.approvals;
  if (!source) {
    return {
      outcome: failedOutcome(
        call.id,
        call.name,
        "not_executed",
        `${call.name} was not run: it needs the user's approval, and there is no way to ask for it here.`,
      ),
    };
  }
  let bound: ApprovedEffect | undefined;
  let changes: EffectChange[] | undefined;
  if (need.effect !== undefined) {
    try {
      bound = { effect: need.effect, digest: await effectDigest(need.effect) };
    } catch (error) {
      // An effect JSON cannot say (a cycle, a non-finite number) binds nothing: refuse to ask.
      notify(() => options.onError?.(error));
      return {
        outcome: failedOutcome(
          call.id,
          call.name,
          "error",
          `${call.name} could not be run because of an internal error. It may be retried.`,
        ),
      };
    }
    if (options.previous) changes = effectChanges(options.previous.effect, need.effect);
  }
  // A wait longer than a timer can hold has no limit.
  const timeoutMs = timerDelay(options.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS);
  const request: ApprovalRequest = {
    callId: call.id,
    name: call.name,
    // Only a call whose arguments parsed can need approval (approvalOf says so).
    input: call.input?.ok ? call.input.value : {},
    summary: need.summary,
    ...(need.details ? { details: need.details } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(bound ? { effect: bound.effect, digest: bound.digest } : {}),
    ...(changes ? { changes } : {}),
    ...(options.ask !== undefined && options.ask > 1 ? { ask: options.ask } : {}),
  };
  notify(() => options.onRequest(request));

  const waiting = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  type Ended = { decision: ApprovalResolution; reason?: string; stale?: true };
  const ended = await new Promise<Ended>((resolve) => {
    onAbort = () => resolve({ decision: "cancelled" });
    signal.addEventListener("abort", onAbort, { once: true });
    if (timeoutMs !== undefined)
      timer = setTimeout(() => resolve({ decision: "timeout" }), timeoutMs);
    let answered: Promise<ApprovalDecision>;
    try {
      // Called now, in the same tick as the request was announced: a decision sent as soon as
      // the request was seen finds the source waiting.
      answered = Promise.resolve(source.wait(call.id, waiting.signal, request));
    } catch (error) {
      answered = Promise.reject(error);
    }
    answered.then(
      (answer) => {
        const reason = reasonOf(answer?.reason);
        const decision = answer?.approve === true ? "approved" : "declined";
        // Bound to another request (an earlier card): it approves nothing shown now.
        const stale =
          decision === "approved" &&
          bound !== undefined &&
          typeof answer?.digest === "string" &&
          answer.digest !== bound.digest;
        if (stale) resolve({ decision: "cancelled", stale: true });
        else resolve(reason === undefined ? { decision } : { decision, reason });
      },
      (error: unknown) => {
        if (!waiting.signal.aborted) notify(() => options.onError?.(error));
        resolve({ decision: "cancelled" });
      },
    );
  });
  clearTimeout(timer);
  if (onAbort) signal.removeEventListener("abort", onAbort);
  // The source stops waiting too (and forgets the request) when something else ended the wait.
  waiting.abort(
    new DOMException(
      ended.decision === "timeout" ? "No answer in time." : "No longer waiting.",
      ended.decision === "timeout" ? "TimeoutError" : "AbortError",
    ),
  );
  notify(() =>
    options.onResolved({
      callId: call.id,
      name: call.name,
      decision: ended.decision,
      ...(ended.reason === undefined ? {} : { reason: ended.reason }),
    }),
  );
  if (ended.stale) return { stale: true };
  switch (ended.decision) {
    case "approved":
      return { approved: bound };
    case "declined":
      return {
        outcome: failedOutcome(
          call.id,
          call.name,
          "declined",
          ended.reason === undefined
            ? APPROVAL_DECLINED_TEXT
            : `${APPROVAL_DECLINED_TEXT} Their reason: ${JSON.stringify(ended.reason)}.`,
        ),
      };
    case "timeout":
      return { outcome: failedOutcome(call.id, call.name, "declined", APPROVAL_TIMEOUT_TEXT) };
    default:
      return { outcome: cancelledWhileWaiting(call) };
  }
}

function cancelledWhileWaiting(call: ToolCall): ToolOutcome {
  return failedOutcome(
    call.id,
    call.name,
    "not_executed",
    `${call.name} was not run: the response was cancelled while it waited for the user's approval.`,
  );
}

function reasonOf(reason: unknown): string | undefined {
  if (typeof reason !== "string") return undefined;
  const trimmed = reason.trim();
  if (trimmed === "") return undefined;
  return trimmed.length > MAX_REASON_CHARS ? `${trimmed.slice(0, MAX_REASON_CHARS - 1)}…` : trimmed;
}

/** Calls a host callback; its failure must not break the call's answer. */
function notify(callback: () => void): void {
  try {
    callback();
  } catch {
    // A failing listener (a closed connection) changes nothing here.
  }
}
