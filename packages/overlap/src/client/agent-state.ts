/**
 * What a user interface shows of a conversation with an agent, folded from AgentEvents by
 * `reduceAgentEvent`: the turns with their streaming text, one entry per tool call that goes
 * from argument preview to final card under the same call id, statuses in completion order
 * and results in call order, the latest UI event of each kind (the cart), errors, and the
 * per-round timeline. Every value is immutable; the operations here and the reducer return new
 * states and leave old ones intact, so a UI can compare by reference.
 */

import type { DispatchDecision } from "../protocol/agent-event.js";
import type { ApprovalResolution, EffectChange } from "../protocol/approval.js";
import type { CitationLink } from "../protocol/citation-links.js";
import type { JsonPreview } from "../protocol/json-preview.js";
import type { RoundTimings } from "../protocol/round-timings.js";
import type { StopReason } from "../protocol/stop-reason.js";
import type { ToolProblem } from "../protocol/tool-problem.js";
import type { UiEvent } from "../protocol/ui-event.js";
import type { Usage } from "../protocol/usage.js";
import { SeenIds } from "./seen-ids.js";

/**
 * Where a tool call is: `streaming-args` (its arguments are being generated), `queued` (complete,
 * waiting for a slot), `running`, `done`, `failed`, `cancelled`, `deferred` (runs only if the
 * message ends with tool_use), `invalid` (arguments were not valid JSON; never run).
 */
export type CallPhase =
  | "streaming-args"
  | "queued"
  | "running"
  | "done"
  | "failed"
  | "cancelled"
  | "deferred"
  | "invalid";

/**
 * A call's approval by the user (`approval-request`, then `approval-resolved`): `pending` while
 * the call waits for the user's decision, then how the wait ended.
 */
export interface CallApproval {
  status: "pending" | ApprovalResolution;
  /** What the call will do, in words (from the request; empty if only the resolution was seen). */
  summary: string;
  /** Structured details of the request (the host's shape), if any. */
  details: Readonly<Record<string, unknown>> | undefined;
  /** How long the server waits for an answer; `undefined` without limit. */
  timeoutMs: number | undefined;
  /** The user's reason, from the resolution. */
  reason: string | undefined;
  /** The request's digest: send it with the decision so that it approves only what was shown. */
  digest?: string;
  /** What changed since the call was last approved, when the server asks again. */
  changes?: readonly EffectChange[];
  /** Which time the call is asked, from the second on. */
  ask?: number;
}

/** The result the model reads next round, from `tool-result`. */
export interface CallResult {
  isError: boolean;
  /**
   * `ok`, `error`, `invalid_input`, `unknown_tool`, `timeout`, `interrupted`, `not_executed`,
   * `declined`.
   */
  status: string;
  text: string;
  /** Why it failed, for programs: write the user's words from this, not from `text`. */
  problem?: ToolProblem;
}

/**
 * The browser's view of one tool call: everything its events told so far, keyed by its call id.
 * (The server's record of a call, with its block and raw arguments, is the runtime's `ToolCall`;
 * the browser never sees it.)
 */
export interface CallView {
  callId: string;
  /** The tool's name. */
  name: string;
  /** The round (of its own agent's turn) the call was made in. */
  round: number;
  /** Its content block index; `undefined` when the call was first seen by a later event. */
  index: number | undefined;
  phase: CallPhase;
  /** How the server handled the call at its block stop (`tool-call`). */
  dispatch: DispatchDecision | undefined;
  /** The latest tolerant snapshot of the arguments (`tool-input-preview`); cleared by a final card. */
  preview: JsonPreview | undefined;
  /** Bytes of argument text received, from the latest preview. */
  previewBytes: number;
  /** The strictly parsed arguments (`tool-call`). */
  input: Readonly<Record<string, unknown>> | undefined;
  /** Why the arguments were invalid, for `dispatch: "invalid"`. */
  inputError: string | undefined;
  /**
   * The final cards (`ui` events). A call with any is final: its preview is no longer shown, and
   * because they share the call id a UI replaces the preview card in place.
   */
  ui: readonly UiEvent[];
  result: CallResult | undefined;
  /** The user's approval of the call, for a tool that needs one; `undefined` otherwise. */
  approval?: CallApproval | undefined;
  /** For a call made by a delegate's inner agent: the outer call's id. */
  parentCallId: string | undefined;
  /** The agent that made the call, when the host names agents. */
  agent: string | undefined;
  /** When it began running (`tool-status` `atMs`, ms since its round started). */
  startedAt: number | undefined;
  /** When it finished (`done`, `failed` or `cancelled` status `atMs`). */
  endedAt: number | undefined;
}

/** Model text of one content block, streaming in. */
export interface TextItem {
  kind: "text";
  round: number;
  index: number;
  text: string;
  /** The web pages the text cites (its `citations` event), once the block is complete. */
  citations?: readonly CitationLink[];
}

/** Extended thinking of one content block, streaming in. */
export interface ThinkingItem {
  kind: "thinking";
  round: number;
  index: number;
  thinking: string;
}

/** A tool call, by reference: its state lives in {@link AgentState.calls}. */
export interface CallItem {
  kind: "call";
  callId: string;
}

/** A provider-side tool (web search), never run locally. */
export interface ServerToolItem {
  kind: "server-tool";
  round: number;
  index: number;
  callId: string;
  name: string;
  input: Readonly<Record<string, unknown>> | undefined;
  /** The provider's result block, once `phase: "result"` arrived. */
  result: unknown;
  hasResult: boolean;
}

/** One piece of an assistant turn, in the order it started. */
export type TurnItem = TextItem | ThinkingItem | CallItem | ServerToolItem;

/** A message the user sent (added by the client when sending). */
export interface UserTurn {
  role: "user";
  text: string;
}

/** What one agent turn showed. */
export interface AssistantTurn {
  role: "assistant";
  /** The agent that answered, when the host names agents. */
  agent: string | undefined;
  /** Text and thinking blocks (by round and index) and tool calls, in the order they started. */
  items: readonly TurnItem[];
  /** This turn's timeline, by round number (rounds count from 1 per turn). */
  rounds: Readonly<Record<number, RoundInfo>>;
  /** The turn's `error`, when it stopped early. */
  error: AgentError | undefined;
  /** The turn's own `done`; `undefined` while it runs. */
  done: { roundCount: number; stopReason: StopReason } | undefined;
}

/** One entry of the conversation as the UI shows it. */
export type ConversationTurn = UserTurn | AssistantTurn;

/** One round of the timeline: open from `round-start`, filled in by `round-end`. */
export interface RoundInfo {
  round: number;
  stopReason: StopReason | undefined;
  usage: Usage | undefined;
  /** When each block streamed and each tool ran (see docs/protocol.md, Timings). */
  timings: RoundTimings | undefined;
}

/** An error to show: the server's (masked) or the client's own (`connection_lost`...). */
export interface AgentError {
  code: string;
  message: string;
  /** The facts behind the code, when the server sent them (e.g. a refused change's limits). */
  params?: Readonly<Record<string, unknown>>;
  /** For a failure of the model service: which kind (`rate_limited`, `authentication`...). */
  category?: string;
  /** For `rate_limited`: how long the service asked to wait, in milliseconds. */
  retryAfterMs?: number;
}

/** The whole client-side state of a conversation. */
export interface AgentState {
  /** The conversation: user messages and assistant turns. */
  turns: readonly ConversationTurn[];
  /**
   * Every tool call made by this state's agent, by call id (ids are unique in a conversation).
   * Calls of a delegate's inner agent live in {@link AgentState.delegated}.
   */
  calls: Readonly<Record<string, CallView>>;
  /** Call ids in the order their calls finished (terminal `tool-status`): completion order. */
  statusOrder: readonly string[];
  /** Call ids in the order their results arrived (`tool-result`): call order. */
  resultOrder: readonly string[];
  /**
   * The latest UI event of each type (`ui.type`), delegated ones included: the cart is one cart
   * whichever agent changed it. See {@link cartOf}.
   */
  latestUi: Readonly<Record<string, UiEvent>>;
  /**
   * The timeline of the current turn: the same object as the open (or last) assistant turn's
   * `rounds`, reset when the user sends a new message.
   */
  rounds: Readonly<Record<number, RoundInfo>>;
  /**
   * A turn is in progress: from the client's send (or the first event of a resumed turn) until
   * the turn's own `done`, or until the client stops or gives up.
   */
  running: boolean;
  /** The latest error of the current turn; cleared when the user sends again. */
  error: AgentError | undefined;
  /** The id of the last applied event: what a resume sends as `Last-Event-ID`. */
  lastEventId: string | undefined;
  /** Ids of every applied event: an event seen again (an overlapping replay) is ignored. */
  seenIds: SeenIds;
  /**
   * The inner agents of delegate calls, by the outer call's id (an event's `parentCallId`), each
   * reduced like a conversation of its own. Flat: a nested delegate's events name their own
   * parent call, which is a call of some inner state, so they get an entry here too.
   */
  delegated: Readonly<Record<string, AgentState>>;
}

/** A state with nothing in it. */
export function initialAgentState(): AgentState {
  return {
    turns: [],
    calls: {},
    statusOrder: [],
    resultOrder: [],
    latestUi: {},
    rounds: {},
    running: false,
    error: undefined,
    lastEventId: undefined,
    seenIds: SeenIds.empty,
    delegated: {},
  };
}

/** The user sent `text`: shows it, clears the last error and marks a turn as running. */
export function addUserMessage(state: AgentState, text: string): AgentState {
  return {
    ...state,
    turns: [...state.turns, { role: "user", text }],
    rounds: {},
    running: true,
    error: undefined,
  };
}

/** The client stopped reading (the user pressed stop): the turn no longer shows as running. */
export function stopAgentTurn(state: AgentState): AgentState {
  return state.running ? { ...state, running: false } : state;
}

/** The client could not follow the turn (HTTP error, connection lost): shows `error`, not running. */
export function failAgentTurn(state: AgentState, error: AgentError): AgentState {
  return { ...state, running: false, error };
}

/** True when the latest turn is an assistant turn that received its own `done`. */
export function isTurnSettled(state: AgentState): boolean {
  const last = state.turns.at(-1);
  return last?.role === "assistant" && last.done !== undefined;
}

/**
 * The cart as last sent by a `cart-updated` UI event (its `cart` field), or `undefined`. Its shape
 * is the host application's, so it is `unknown` here for the application to narrow.
 */
export function cartOf(state: AgentState): unknown {
  return state.latestUi["cart-updated"]?.cart;
}

/**
 * The calls waiting for the user's approval (`approval.status` `pending`), in the order the
 * calls were first seen. Delegated inner agents' calls are not included.
 */
export function pendingApprovals(state: AgentState): CallView[] {
  return Object.values(state.calls).filter((entry) => entry.approval?.status === "pending");
}

/** What to draw for a call: its final cards, or else its arguments as far as known. */
export type CallCard =
  | { kind: "final"; ui: readonly UiEvent[] }
  | {
      kind: "pending";
      /** The strict arguments once complete, else the latest preview. */
      args: Readonly<Record<string, unknown>> | JsonPreview | undefined;
    };

/** The card of a call: final cards replace the preview in place (same call id). */
export function callCard(entry: CallView): CallCard {
  if (entry.ui.length > 0) return { kind: "final", ui: entry.ui };
  return { kind: "pending", args: entry.input ?? entry.preview };
}
