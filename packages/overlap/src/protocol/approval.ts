/**
 * The approval vocabulary every layer and the browser share: what the user is asked, how they
 * answer, how a request ends. The round's gate that waits for the answer is `dispatch/approval-gate.ts`.
 */

/** The user's answer to one approval request. */
export interface ApprovalDecision {
  approve: boolean;
  /** Why (optional); a declined call's result quotes it to the model. */
  reason?: string;
  /**
   * The digest of the request the user answered (its `digest`), when the request had one. An
   * approval whose digest is not the request's (the user confirmed an earlier card) does not
   * approve: the round asks again. Absent, the decision is taken as given to the pending request.
   */
  digest?: string;
}

/** One difference between the effect a user was shown before and the one shown now. */
export interface EffectChange {
  /** Where, e.g. `lines["p-aero/US 10"].unitPriceCents` or `totalCents`; `""` for the whole. */
  path: string;
  /** The value before; absent when it was added. */
  before?: unknown;
  /** The value now; absent when it was removed. */
  after?: unknown;
}

/** What the user is asked to approve; also the `approval-request` event's fields. */
export interface ApprovalRequest {
  callId: string;
  name: string;
  /** The call's arguments (strict parse). */
  input: Readonly<Record<string, unknown>>;
  /** What the call will do, in words (the tool's `summarize`, or a generic sentence). */
  summary: string;
  /** Structured details from the tool's `summarize` (the host's shape), for a richer card. */
  details?: Record<string, unknown>;
  /** How long the round waits for an answer; absent when it waits without limit. */
  timeoutMs?: number;
  /**
   * The exact effect asked for (the tool's `summarize` `effect`: e.g. order lines and a total),
   * when the tool states one. Once approved the tool runs only if the state still gives this
   * effect; otherwise nothing happens and the user is asked again.
   */
  effect?: unknown;
  /** `sha256:<hex>` of the effect's canonical JSON; a decision may carry it back to bind itself. */
  digest?: string;
  /**
   * Present when this request asks again because the effect changed after an earlier approval
   * of the same call: what changed, from what the user approved to what would happen now.
   */
  changes?: EffectChange[];
  /**
   * Which time this call is asked, from the second on (absent the first time): a request with a
   * later `ask` replaces the call's earlier one, even one that was answered.
   */
  ask?: number;
}

/**
 * Where decisions come from: the host's link to its user (a UI's buttons behind an HTTP route,
 * a terminal prompt...). `wait` resolves with the user's decision; `signal` aborts when the round
 * stops waiting (timeout: reason named `TimeoutError`; the round was cancelled: `AbortError`),
 * after which its result is ignored and the source should forget the request.
 */
export interface ApprovalSource {
  wait(callId: string, signal: AbortSignal, request: ApprovalRequest): Promise<ApprovalDecision>;
}

/**
 * How an approval request ended: `approved` (the call runs), `declined`, `timeout` (no answer in
 * time), `cancelled` (the round was cancelled while waiting, or the source failed).
 */
export type ApprovalResolution = "approved" | "declined" | "timeout" | "cancelled";

/** An approval request that ended; also the `approval-resolved` event's fields. */
export interface ApprovalResolved {
  callId: string;
  name: string;
  decision: ApprovalResolution;
  /** The user's reason, when they gave one. */
  reason?: string;
}
