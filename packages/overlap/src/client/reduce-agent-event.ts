/**
 * The pure core of the client: folds one received AgentEvent into an {@link AgentState}. Updates
 * are immutable and an event that changes nothing returns the very same state, so a UI can skip
 * rendering by reference. An event whose id was already applied is ignored: that is what makes a
 * resume exactly-once even when a server replays an overlapping range. Events with a
 * `parentCallId` come from a delegate's inner agent; they go to `delegated[parentCallId]`, never
 * into the outer turn's text, rounds or end.
 */

import type { AgentEvent, DispatchDecision } from "../protocol/agent-event.js";
import {
  type AgentError,
  type AgentState,
  type AssistantTurn,
  type CallPhase,
  type CallResult,
  type CallView,
  initialAgentState,
  type RoundInfo,
  type ServerToolItem,
} from "./agent-state.js";
import type { ReceivedEvent } from "./read-agent-events.js";

/** Applies one received event; returns `state` itself when the event changes nothing. */
export function reduceAgentEvent(state: AgentState, received: ReceivedEvent): AgentState {
  const { id, event } = received;
  if (id !== undefined && state.seenIds.has(id)) return state;
  const applied =
    event.parentCallId === undefined
      ? applyOwn(state, event)
      : applyDelegated(state, event.parentCallId, event);
  if (id === undefined) return applied;
  return { ...applied, lastEventId: id, seenIds: applied.seenIds.add(id) };
}

type EventOf<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;

/** The fields a call event may carry, enough to create its entry. */
type CallEvent = EventOf<
  | "tool-call-start"
  | "tool-input-preview"
  | "tool-call"
  | "tool-status"
  | "approval-request"
  | "approval-resolved"
  | "ui"
  | "tool-result"
>;

function applyDelegated(state: AgentState, parentCallId: string, event: AgentEvent): AgentState {
  const inner = state.delegated[parentCallId] ?? initialAgentState();
  const next = applyOwn(inner, event);
  const latestUi = event.type === "ui" ? withUi(state.latestUi, event) : state.latestUi;
  if (next === inner && latestUi === state.latestUi) return state;
  const delegated = next === inner ? state.delegated : { ...state.delegated, [parentCallId]: next };
  return { ...state, latestUi, delegated };
}

/** Applies an event as one of `state`'s own agent. */
function applyOwn(state: AgentState, event: AgentEvent): AgentState {
  switch (event.type) {
    case "round-start":
      return updateTurn(state, event.agent, (turn) =>
        turn.rounds[event.round] ? turn : withRound(turn, openRound(event.round)),
      );
    case "text-delta":
      return updateTurn(state, event.agent, (turn) => appendText(turn, event));
    case "thinking-delta":
      return updateTurn(state, event.agent, (turn) => appendThinking(turn, event));
    case "tool-call-start":
      return updateCall(state, event, (entry) => entry);
    case "tool-input-preview":
      return updateCall(state, event, (entry) =>
        // A preview is display-only: once the strict arguments or a final card exist it is stale.
        entry.phase !== "streaming-args" || entry.ui.length > 0
          ? entry
          : { ...entry, preview: event.preview, previewBytes: event.bytes },
      );
    case "tool-call":
      return updateCall(state, event, (entry) => ({
        ...entry,
        index: event.index,
        input: event.input,
        dispatch: event.dispatch,
        inputError: event.error,
        phase: entry.phase === "streaming-args" ? phaseOfDispatch(event.dispatch) : entry.phase,
      }));
    case "tool-status":
      return applyStatus(state, event);
    case "server-tool":
      return updateTurn(state, event.agent, (turn) => applyServerTool(turn, event));
    case "citations":
      return updateTurn(state, event.agent, (turn) => applyCitations(turn, event));
    case "approval-request":
      return updateCall(state, event, (entry) =>
        // A replayed request never reopens an approval that already ended; a later ask (the
        // effect changed after it was approved) does.
        entry.approval &&
        entry.approval.status !== "pending" &&
        (event.ask ?? 1) <= (entry.approval.ask ?? 1)
          ? entry
          : {
              ...entry,
              approval: {
                status: "pending",
                summary: event.summary,
                details: event.details,
                timeoutMs: event.timeoutMs,
                reason: undefined,
                ...(event.digest !== undefined ? { digest: event.digest } : {}),
                ...(event.changes !== undefined ? { changes: event.changes } : {}),
                ...(event.ask !== undefined ? { ask: event.ask } : {}),
              },
            },
      );
    case "approval-resolved":
      return updateCall(state, event, (entry) => ({
        ...entry,
        approval: {
          summary: "",
          details: undefined,
          timeoutMs: undefined,
          ...entry.approval,
          status: event.decision,
          reason: event.reason,
        },
      }));
    case "ui": {
      const next = updateCall(state, event, (entry) => ({
        ...entry,
        ui: [...entry.ui, event.ui],
        preview: undefined,
      }));
      return { ...next, latestUi: withUi(next.latestUi, event) };
    }
    case "tool-result":
      return applyResult(state, event);
    case "round-end":
      return updateTurn(state, event.agent, (turn) =>
        withRound(turn, {
          round: event.round,
          stopReason: event.stopReason,
          usage: event.usage,
          timings: event.timings,
        }),
      );
    case "error": {
      const error: AgentError = { code: event.code, message: event.message };
      if (event.category !== undefined) error.category = event.category;
      if (event.retryAfterMs !== undefined) error.retryAfterMs = event.retryAfterMs;
      const next = updateTurn(state, event.agent, (turn) => ({ ...turn, error }));
      return { ...next, error };
    }
    case "done":
      return updateTurn(state, event.agent, (turn) => ({
        ...turn,
        done: { roundCount: event.roundCount, stopReason: event.stopReason },
      }));
    default:
      // Unreachable for validated events; a hand-built unknown one changes nothing.
      return state;
  }
}

/**
 * Updates the open assistant turn (the last turn, if it is an assistant turn without `done`), or
 * starts one: after the user's message, after a finished turn, or for a turn resumed on page load.
 */
function updateTurn(
  state: AgentState,
  agent: string | undefined,
  update: (turn: AssistantTurn) => AssistantTurn,
): AgentState {
  const last = state.turns.at(-1);
  const open = last?.role === "assistant" && last.done === undefined ? last : undefined;
  const turn = open ?? newAssistantTurn(agent);
  const next = update(turn);
  const running = next.done === undefined;
  if (next === open) return state.running === running ? state : { ...state, running };
  const turns = open ? [...state.turns.slice(0, -1), next] : [...state.turns, next];
  return { ...state, turns, rounds: next.rounds, running };
}

function newAssistantTurn(agent: string | undefined): AssistantTurn {
  return { role: "assistant", agent, items: [], rounds: {}, error: undefined, done: undefined };
}

function openRound(round: number): RoundInfo {
  return { round, stopReason: undefined, usage: undefined, timings: undefined };
}

function withRound(turn: AssistantTurn, info: RoundInfo): AssistantTurn {
  return { ...turn, rounds: { ...turn.rounds, [info.round]: info } };
}

function appendText(turn: AssistantTurn, event: EventOf<"text-delta">): AssistantTurn {
  const { round, index, text } = event;
  const at = turn.items.findLastIndex(
    (item) => item.kind === "text" && item.round === round && item.index === index,
  );
  const item = turn.items[at];
  if (item?.kind !== "text") {
    return { ...turn, items: [...turn.items, { kind: "text", round, index, text }] };
  }
  if (text === "") return turn;
  return replaceItem(turn, at, { ...item, text: item.text + text });
}

function appendThinking(turn: AssistantTurn, event: EventOf<"thinking-delta">): AssistantTurn {
  const { round, index, thinking } = event;
  const at = turn.items.findLastIndex(
    (item) => item.kind === "thinking" && item.round === round && item.index === index,
  );
  const item = turn.items[at];
  if (item?.kind !== "thinking") {
    return { ...turn, items: [...turn.items, { kind: "thinking", round, index, thinking }] };
  }
  if (thinking === "") return turn;
  return replaceItem(turn, at, { ...item, thinking: item.thinking + thinking });
}

function applyCitations(turn: AssistantTurn, event: EventOf<"citations">): AssistantTurn {
  const { round, index, citations } = event;
  const at = turn.items.findLastIndex(
    (item) => item.kind === "text" && item.round === round && item.index === index,
  );
  const item = turn.items[at];
  if (item?.kind !== "text") {
    return { ...turn, items: [...turn.items, { kind: "text", round, index, text: "", citations }] };
  }
  return replaceItem(turn, at, { ...item, citations });
}

function applyServerTool(turn: AssistantTurn, event: EventOf<"server-tool">): AssistantTurn {
  const at = turn.items.findIndex(
    (item) => item.kind === "server-tool" && item.callId === event.callId,
  );
  const found = turn.items[at];
  const item: ServerToolItem =
    found?.kind === "server-tool"
      ? found
      : {
          kind: "server-tool",
          round: event.round,
          index: event.index,
          callId: event.callId,
          name: event.name,
          input: undefined,
          result: undefined,
          hasResult: false,
        };
  const next: ServerToolItem =
    event.phase === "call"
      ? { ...item, input: event.input ?? item.input }
      : { ...item, result: event.result, hasResult: true };
  return at === -1 ? { ...turn, items: [...turn.items, next] } : replaceItem(turn, at, next);
}

function replaceItem(
  turn: AssistantTurn,
  at: number,
  item: AssistantTurn["items"][number],
): AssistantTurn {
  const items = turn.items.slice();
  items[at] = item;
  return { ...turn, items };
}

/**
 * Updates the entry of the event's call, creating it (and its place in the turn, in start order)
 * when this is the first event of the call seen: normally `tool-call-start`, but a resume from a
 * stored id may begin later.
 */
function updateCall(
  state: AgentState,
  event: CallEvent,
  update: (entry: CallView) => CallView,
): AgentState {
  const existing = state.calls[event.callId];
  const entry = existing ?? newCallView(event);
  const next = update(entry);
  if (next === existing) return state;
  const calls = { ...state.calls, [event.callId]: next };
  if (existing) return { ...state, calls };
  return updateTurn({ ...state, calls }, event.agent, (turn) => ({
    ...turn,
    items: [...turn.items, { kind: "call", callId: event.callId }],
  }));
}

function newCallView(event: CallEvent): CallView {
  return {
    callId: event.callId,
    name: event.name,
    round: event.round,
    index: "index" in event ? event.index : undefined,
    phase: "streaming-args",
    dispatch: undefined,
    preview: undefined,
    previewBytes: 0,
    input: undefined,
    inputError: undefined,
    ui: [],
    result: undefined,
    approval: undefined,
    parentCallId: event.parentCallId,
    agent: event.agent,
    startedAt: undefined,
    endedAt: undefined,
  };
}

function phaseOfDispatch(dispatch: DispatchDecision): CallPhase {
  switch (dispatch) {
    case "deferred":
      return "deferred";
    case "invalid":
      return "invalid";
    case "cancelled":
      return "cancelled";
    default:
      // `started` runs now or waits for a slot; `duplicate` runs once: statuses follow.
      return "queued";
  }
}

/** Phases after which a call's status cannot change any more. */
const SETTLED: ReadonlySet<CallPhase> = new Set(["done", "failed", "cancelled", "invalid"]);

function applyStatus(state: AgentState, event: EventOf<"tool-status">): AgentState {
  const { status, atMs } = event;
  const terminal = status === "done" || status === "failed" || status === "cancelled";
  const next = updateCall(state, event, (entry) =>
    // Statuses never go backwards, even if a broken server sent them out of order.
    SETTLED.has(entry.phase)
      ? entry
      : {
          ...entry,
          phase: status,
          startedAt: status === "running" ? atMs : entry.startedAt,
          endedAt: terminal ? atMs : entry.endedAt,
        },
  );
  if (!terminal || next.statusOrder.includes(event.callId)) return next;
  return { ...next, statusOrder: [...next.statusOrder, event.callId] };
}

function applyResult(state: AgentState, event: EventOf<"tool-result">): AgentState {
  const result: CallResult = {
    isError: event.isError,
    status: event.status,
    text: event.resultText,
    ...(event.problem !== undefined ? { problem: event.problem } : {}),
  };
  const next = updateCall(state, event, (entry) => ({
    ...entry,
    result,
    phase: SETTLED.has(entry.phase) ? entry.phase : phaseOfResult(event.status, event.isError),
  }));
  if (next.resultOrder.includes(event.callId)) return next;
  return { ...next, resultOrder: [...next.resultOrder, event.callId] };
}

/**
 * A result ends the call even when no terminal status preceded it (a deferred call that never
 * ran, a cut stream): the phase settles so a UI stops showing a spinner.
 */
function phaseOfResult(status: string, isError: boolean): CallPhase {
  if (status === "not_executed" || status === "interrupted" || status === "declined") {
    return "cancelled";
  }
  return isError ? "failed" : "done";
}

function withUi(latestUi: AgentState["latestUi"], event: EventOf<"ui">): AgentState["latestUi"] {
  return { ...latestUi, [event.ui.type]: event.ui };
}
