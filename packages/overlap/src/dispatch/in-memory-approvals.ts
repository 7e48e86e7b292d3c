/**
 * An {@link ApprovalSource} in memory: the round's waits are kept by call id until the host calls
 * {@link InMemoryApprovals.decide} (from an HTTP route, a prompt...). It remembers how each request
 * ended, so a second answer is told apart from one for a call that never asked. One per turn (or
 * per process for a single user); for tests and single-process hosts.
 */

import type {
  ApprovalDecision,
  ApprovalRequest,
  ApprovalResolution,
  ApprovalSource,
} from "../protocol/approval.js";

/** What {@link InMemoryApprovals.decide} did. */
export type DecideResult =
  /** The waiting call got the decision. */
  | { status: "resolved" }
  /** No call with that id is waiting or has waited here. */
  | { status: "unknown" }
  /** The request already ended: decided before, timed out, or cancelled. */
  | { status: "ended"; decision: ApprovalResolution };

interface Waiting {
  request: ApprovalRequest;
  resolve(decision: ApprovalDecision): void;
}

/** How many ended requests are remembered (oldest forgotten first). */
const MAX_ENDED = 1_000;

/** Approval requests waiting in memory for {@link decide}. */
export class InMemoryApprovals implements ApprovalSource {
  readonly #waiting = new Map<string, Waiting>();
  readonly #ended = new Map<string, ApprovalResolution>();
  /** Which ask of each call was the last one requested here (a later ask may wait again). */
  readonly #asks = new Map<string, number>();
  #closed = false;

  wait(callId: string, signal: AbortSignal, request: ApprovalRequest): Promise<ApprovalDecision> {
    if (this.#closed) return Promise.reject(new Error("The approval source is closed."));
    // A second wait for the same id replaces nothing: the first request stays the one answered;
    // only a later ask (the effect changed after the approval) opens the call again.
    const ask = request.ask ?? 1;
    const asked = this.#asks.get(callId);
    if (this.#waiting.has(callId) || (this.#ended.has(callId) && (asked ?? 1) >= ask)) {
      return Promise.reject(new Error(`Approval of ${callId} was already requested.`));
    }
    this.#ended.delete(callId);
    this.#asks.set(callId, ask);
    return new Promise<ApprovalDecision>((resolve, reject) => {
      const onAbort = () => {
        this.#waiting.delete(callId);
        this.#end(callId, isTimeout(signal.reason) ? "timeout" : "cancelled");
        reject(signal.reason);
      };
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.set(callId, {
        request,
        resolve: (decision) => {
          signal.removeEventListener("abort", onAbort);
          resolve(decision);
        },
      });
    });
  }

  /** Answers the call waiting under `callId`. */
  decide(callId: string, decision: ApprovalDecision): DecideResult {
    const waiting = this.#waiting.get(callId);
    if (!waiting) {
      const ended = this.#ended.get(callId);
      return ended === undefined ? { status: "unknown" } : { status: "ended", decision: ended };
    }
    this.#waiting.delete(callId);
    this.#end(callId, decision.approve ? "approved" : "declined");
    waiting.resolve(decision);
    return { status: "resolved" };
  }

  /** The requests waiting for a decision, in the order they were made. */
  pending(): ApprovalRequest[] {
    return [...this.#waiting.values()].map((w) => w.request);
  }

  /** True when a call of that id waits for a decision. */
  isWaiting(callId: string): boolean {
    return this.#waiting.has(callId);
  }

  /**
   * No more requests: later waits reject, waiting ones are declined (the round answers them and
   * goes on). Idempotent.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const [callId, waiting] of [...this.#waiting]) {
      this.#waiting.delete(callId);
      this.#end(callId, "declined");
      waiting.resolve({ approve: false });
    }
  }

  #end(callId: string, decision: ApprovalResolution): void {
    this.#ended.set(callId, decision);
    if (this.#ended.size > MAX_ENDED) {
      const oldest = this.#ended.keys().next().value;
      if (oldest !== undefined) {
        this.#ended.delete(oldest);
        this.#asks.delete(oldest);
      }
    }
  }
}

function isTimeout(reason: unknown): boolean {
  return (
    typeof reason === "object" &&
    reason !== null &&
    (reason as { name?: unknown }).name === "TimeoutError"
  );
}
