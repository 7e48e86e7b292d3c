/**
 * overlap-runtime/client: follows an agent's turns in a browser (or Node) over SSE. Events are read with
 * {@link readAgentEvents}, validated, and folded into an {@link AgentState} by the pure
 * {@link reduceAgentEvent}; {@link AgentStreamClient} adds sending, reconnection with
 * `Last-Event-ID` and a subscribable store. Nothing here imports the server side: only types.
 */

export type {
  AgentEvent,
  AgentEventBase,
  AgentEventType,
  DispatchDecision,
  ToolCallState,
} from "../protocol/agent-event.js";
export type { EffectChange } from "../protocol/approval.js";
export { type CitationLink, citationLinks } from "../protocol/citation-links.js";
export type { JsonPreview } from "../protocol/json-preview.js";
export type { BlockTiming, RoundTimings, ToolTiming } from "../protocol/round-timings.js";
export type { StopReason } from "../protocol/stop-reason.js";
export type { InputIssue, ToolProblem } from "../protocol/tool-problem.js";
export type { UiEvent } from "../protocol/ui-event.js";
export type { Usage } from "../protocol/usage.js";
export {
  type AgentError,
  type AgentState,
  type AssistantTurn,
  addUserMessage,
  type CallApproval,
  type CallCard,
  type CallItem,
  type CallPhase,
  type CallResult,
  type CallView,
  type ConversationTurn,
  callCard,
  cartOf,
  failAgentTurn,
  initialAgentState,
  isTurnSettled,
  pendingApprovals,
  type RoundInfo,
  type ServerToolItem,
  stopAgentTurn,
  type TextItem,
  type ThinkingItem,
  type TurnItem,
  type UserTurn,
} from "./agent-state.js";
export {
  AgentStreamClient,
  type AgentStreamClientOptions,
  CONNECTION_LOST,
  DEFAULT_RETRY,
  NETWORK_ERROR,
  type RetryPolicy,
  TURN_LOST,
} from "./agent-stream-client.js";
export { errorFromResponse } from "./error-from-response.js";
export { isAgentEvent, parseAgentEvent } from "./parse-agent-event.js";
export {
  type ReadAgentEventsOptions,
  type ReadSummary,
  type ReceivedEvent,
  readAgentEvents,
} from "./read-agent-events.js";
export { reduceAgentEvent } from "./reduce-agent-event.js";
export { SeenIds } from "./seen-ids.js";
