/**
 * The AgentEvent protocol: what a round tells the user interface (docs/protocol.md). Two channels
 * share it: display events (`text-delta`, `tool-call-start`, `tool-input-preview`,
 * `tool-call`, `tool-status`, `server-tool`, `approval-request`, `approval-resolved`) flow while
 * the model generates (and, for approvals, during the join); result events (`ui`,
 * `tool-result`) are emitted in call order after the join. Every event concerning a call carries
 * `callId`, so a preview and its final card meet (one card per call, from first byte to result).
 */

import type { ApprovalResolution, EffectChange } from "./approval.js";
import type { CitationLink } from "./citation-links.js";
import type { ErrorCategory } from "./error-category.js";
import type { JsonPreview } from "./json-preview.js";
import type { RoundTimings } from "./round-timings.js";
import type { StopReason } from "./stop-reason.js";
import type { ToolProblem } from "./tool-problem.js";
import type { UiEvent } from "./ui-event.js";
import type { Usage } from "./usage.js";

/** Fields every event may carry. */
export interface AgentEventBase {
  /** Set on events forwarded from a delegate tool's inner agent: the parent call's id. */
  parentCallId?: string;
  /** Which agent produced the event (e.g. "shopper", "merchant"), when the host names them. */
  agent?: string;
}

/** Lifecycle of a tool call as shown to the user. */
export type ToolCallState = "queued" | "running" | "done" | "failed" | "cancelled";

/**
 * How a completed call was handled at its block stop: `started` (running, or queued for a
 * concurrency slot), `deferred` (runs only if the message ends with tool_use), `invalid` (its
 * arguments are not valid JSON; never run), `cancelled` (the round was being cancelled),
 * `duplicate` (the same call id was already dispatched; it runs once).
 */
export type DispatchDecision = "started" | "deferred" | "invalid" | "cancelled" | "duplicate";

/** Every event a round emits. The `type` is the SSE `event:` name. */
export type AgentEvent = AgentEventBase &
  (
    | { type: "round-start"; round: number }
    | { type: "text-delta"; round: number; index: number; text: string }
    | { type: "thinking-delta"; round: number; index: number; thinking: string }
    | { type: "tool-call-start"; round: number; index: number; callId: string; name: string }
    | {
        type: "tool-input-preview";
        round: number;
        index: number;
        callId: string;
        name: string;
        /** Tolerant snapshot of the arguments so far: display only. */
        preview: JsonPreview | undefined;
        /** Bytes of argument text received so far. */
        bytes: number;
      }
    | {
        type: "tool-call";
        round: number;
        index: number;
        callId: string;
        name: string;
        /** The strictly parsed arguments (`{}` when they were invalid). */
        input: Readonly<Record<string, unknown>>;
        dispatch: DispatchDecision;
        /** For `invalid`: what was wrong, as told to the model. */
        error?: string;
      }
    | {
        type: "tool-status";
        round: number;
        callId: string;
        name: string;
        status: ToolCallState;
        /** Milliseconds since the round started. */
        atMs: number;
      }
    | {
        type: "server-tool";
        round: number;
        index: number;
        callId: string;
        name: string;
        phase: "call" | "result";
        input?: Readonly<Record<string, unknown>>;
        result?: unknown;
      }
    | {
        /**
         * The web pages a text block cites, once the block is complete (each page once, in the
         * order first cited; see `citationLinks`). Only for a block with at least one.
         */
        type: "citations";
        round: number;
        index: number;
        citations: readonly CitationLink[];
      }
    | {
        /** A call waits for the user's approval before it runs (its tool's `approval`). */
        type: "approval-request";
        round: number;
        callId: string;
        name: string;
        /** The call's arguments (strict parse). */
        input: Readonly<Record<string, unknown>>;
        /** What the call will do, in words, for the user. */
        summary: string;
        /** Structured details from the tool's `summarize` (the host's shape). */
        details?: Readonly<Record<string, unknown>>;
        /** How long the round waits for an answer; absent when it waits without limit. */
        timeoutMs?: number;
        /** The exact effect asked for, when the tool states one (see `ApprovalRequest.effect`). */
        effect?: unknown;
        /** The effect's digest; a decision sent with it approves only this request. */
        digest?: string;
        /** What changed since the call was last approved, when this asks again. */
        changes?: readonly EffectChange[];
        /** Which time this call is asked, from the second on: replaces the earlier card. */
        ask?: number;
      }
    | {
        /** The wait for approval ended: `approved` (the call runs), `declined`, `timeout`, `cancelled`. */
        type: "approval-resolved";
        round: number;
        callId: string;
        name: string;
        decision: ApprovalResolution;
        /** The user's reason, when they gave one. */
        reason?: string;
      }
    | { type: "ui"; round: number; callId: string; name: string; ui: UiEvent }
    | {
        type: "tool-result";
        round: number;
        callId: string;
        name: string;
        isError: boolean;
        status: string;
        /** What the model reads next round. */
        resultText: string;
        /**
         * The object or array the tool returned (the model read it as JSON in `resultText`), for
         * a UI that renders data; absent for a text result.
         */
        output?: unknown;
        /** Why it failed, for programs: a code and its facts (see {@link ToolProblem}). */
        problem?: ToolProblem;
      }
    | {
        type: "round-end";
        round: number;
        stopReason: StopReason;
        usage: Usage;
        timings: RoundTimings;
      }
    | {
        type: "done";
        /**
         * How many rounds the turn ran (a count; the rounds themselves are
         * `AgentTurnResult.rounds` on the server and `AssistantTurn.rounds` in the client).
         */
        roundCount: number;
        stopReason: StopReason;
      }
    | {
        type: "error";
        /** The `OverlapError` code (`provider_error`, `aborted`, `max_rounds`...). */
        code: string;
        /** A masked sentence, safe to show: it says which failure, never the provider's words. */
        message: string;
        /** For a failure of the model service: which kind (see {@link ErrorCategory}). */
        category?: ErrorCategory;
        /** For `rate_limited`: how long the service asked to wait, in milliseconds. */
        retryAfterMs?: number;
      }
  );

/** The name of an AgentEvent (the SSE `event:` field). */
export type AgentEventType = AgentEvent["type"];

/** Receives AgentEvents as they happen. Must not throw; a slow sink does not block the round. */
export type AgentEventSink = (event: AgentEvent) => void;
