/**
 * A stored conversation (`GET /api/sessions/:id`: messages in the Messages API's shape) as the
 * client's {@link AgentState}, so a reload shows what was said and the client can go on from it.
 * The messages are turned into the AgentEvents the turn would have sent and folded with the
 * client's own reducer: one code path for live and restored conversations. What the messages do
 * not keep (final cards, approval cards, per-round timings) the server keeps with each turn
 * (`display`: the turn's `ui`, approval and `round-end` events, by the position of the message that
 * started it), folded in at their place. A running or just-ended last turn is replayed from the
 * server's event log instead (`GET .../stream`), previews included.
 */

import {
  type AgentEvent,
  type AgentState,
  addUserMessage,
  citationLinks,
  initialAgentState,
  isAgentEvent,
  reduceAgentEvent,
  stopAgentTurn,
} from "overlap-runtime/client";
import { isRecord } from "../api/types";

/** What `GET /api/sessions/:id` answers. */
export interface StoredConversation {
  messages: readonly unknown[];
  /** A turn of the session is running on the server now. */
  running: boolean;
  /** The server still holds the event log of the session's last turn (it can be replayed). */
  hasTurnLog: boolean;
  /** What each turn showed besides its messages, by the position of the message that started it. */
  display: ReadonlyMap<number, readonly AgentEvent[]>;
}

/** The `display` of the answer: each turn's kept events, read with the client's own parser. */
function readDisplay(value: unknown): Map<number, AgentEvent[]> {
  const display = new Map<number, AgentEvent[]>();
  if (!Array.isArray(value)) return display;
  for (const row of value) {
    if (!isRecord(row) || typeof row.seq !== "number" || !Array.isArray(row.events)) continue;
    const events = row.events.filter(isAgentEvent);
    display.set(row.seq, events);
  }
  return display;
}

/** Reads the answer of `GET /api/sessions/:id`, or `undefined`. */
export function readStoredConversation(value: unknown): StoredConversation | undefined {
  if (!isRecord(value) || !Array.isArray(value.messages)) return undefined;
  const turn = isRecord(value.turn) ? value.turn : {};
  return {
    messages: value.messages,
    running: turn.running === true,
    hasTurnLog: typeof turn.lastTurnId === "string",
    display: readDisplay(value.display),
  };
}

interface Block {
  type: string;
  [key: string]: unknown;
}

interface StoredMessage {
  role: "user" | "assistant";
  blocks: Block[];
  /** Its position in the stored conversation. */
  seq: number;
}

function readMessage(value: unknown, seq: number): StoredMessage | undefined {
  if (!isRecord(value) || (value.role !== "user" && value.role !== "assistant")) return undefined;
  const { content } = value;
  if (typeof content === "string")
    return { role: value.role, blocks: [{ type: "text", text: content }], seq };
  if (!Array.isArray(content)) return undefined;
  const blocks = content.filter(
    (b): b is Block => isRecord(b) && typeof (b as { type?: unknown }).type === "string",
  );
  return { role: value.role, blocks, seq };
}

/** The notes the shop puts before a shopper's words for the model (`<system-reminder>`s). */
const REMINDERS = /^(?:\s*<system-reminder>[\s\S]*?<\/system-reminder>)+\s*/;

/** The user's own words in a message (tool results and the shop's notes to the model are not). */
function userText(message: StoredMessage): string {
  return message.blocks
    .flatMap((b) =>
      b.type === "text" && typeof b.text === "string" ? [b.text.replace(REMINDERS, "")] : [],
    )
    .join("\n")
    .trim();
}

function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .flatMap((b) => (isRecord(b) && typeof b.text === "string" ? [b.text] : []))
    .join("\n");
}

/** A turn's kept events, sorted for folding: cards by call, timings by round. */
interface TurnShown {
  /** `ui` and `approval-*` events by call id, in the order they were sent. */
  byCall: Map<string, AgentEvent[]>;
  /** `round-end` by round. */
  roundEnds: Map<number, AgentEvent>;
}

function turnShown(events: readonly AgentEvent[] | undefined): TurnShown {
  const shown: TurnShown = { byCall: new Map(), roundEnds: new Map() };
  for (const event of events ?? []) {
    if (event.type === "round-end") shown.roundEnds.set(event.round, event);
    else if ("callId" in event && typeof event.callId === "string") {
      const list = shown.byCall.get(event.callId) ?? [];
      list.push(event);
      shown.byCall.set(event.callId, list);
    }
  }
  return shown;
}

const NOTHING_SHOWN: TurnShown = { byCall: new Map(), roundEnds: new Map() };

/**
 * The state showing `messages`, with what each turn showed besides them (`display`, by the
 * position of the message that started the turn): a call's cards and approval come right after its
 * `tool-call`'s place (before its result, as when it ran), a round's timings after its results.
 * With `stopBeforeLastTurn`, the last turn (from the user's last message on) is left out except
 * for that message, and the state is left running: the caller replays that turn from the
 * server's log, with everything the messages do not keep.
 */
export function conversationState(
  messages: readonly unknown[],
  options: { stopBeforeLastTurn: boolean; display?: ReadonlyMap<number, readonly AgentEvent[]> },
): AgentState {
  const parsed = messages
    .map((m, seq) => readMessage(m, seq))
    .filter((m): m is StoredMessage => m !== undefined);
  const lastTurnStart = options.stopBeforeLastTurn
    ? parsed.findLastIndex((m) => m.role === "user" && userText(m) !== "")
    : -1;
  let state = initialAgentState();
  const apply = (event: AgentEvent) => {
    state = reduceAgentEvent(state, { id: undefined, event });
  };
  let round = 0;
  let open = false;
  let shown = NOTHING_SHOWN;
  // The round whose timings come once its results are in (before the next round or the end).
  let endedRound = 0;
  const endRound = () => {
    const end = shown.roundEnds.get(endedRound);
    if (end) apply(end);
    endedRound = 0;
  };
  const close = () => {
    endRound();
    if (open) apply({ type: "done", roundCount: round, stopReason: "end_turn" });
    open = false;
  };
  const calls = new Map<string, { name: string; round: number }>();

  for (const [i, message] of parsed.entries()) {
    if (message.role === "user") {
      for (const block of message.blocks) {
        if (block.type !== "tool_result" || typeof block.tool_use_id !== "string") continue;
        const call = calls.get(block.tool_use_id);
        if (!call) continue;
        const isError = block.is_error === true;
        apply({
          type: "tool-result",
          round: call.round,
          callId: block.tool_use_id,
          name: call.name,
          isError,
          status: isError ? "error" : "ok",
          resultText: resultText(block.content),
        });
      }
      const text = userText(message);
      if (text === "") continue;
      close();
      state = addUserMessage(state, text);
      if (i === lastTurnStart) return state;
      shown = turnShown(options.display?.get(message.seq));
      round = 0;
      continue;
    }
    endRound();
    round++;
    open = true;
    apply({ type: "round-start", round });
    for (const [index, block] of message.blocks.entries()) {
      if (block.type === "text" && typeof block.text === "string" && block.text !== "") {
        apply({ type: "text-delta", round, index, text: block.text });
        const citations = citationLinks(Array.isArray(block.citations) ? block.citations : []);
        if (citations.length > 0) apply({ type: "citations", round, index, citations });
      } else if (block.type === "server_tool_use" && typeof block.id === "string") {
        // A tool the provider ran: its chip, then its result (the block answering it).
        const input = isRecord(block.input) ? block.input : {};
        const name = typeof block.name === "string" ? block.name : "server_tool";
        apply({ type: "server-tool", round, index, callId: block.id, name, phase: "call", input });
      } else if (typeof block.tool_use_id === "string" && block.type !== "tool_result") {
        apply({
          type: "server-tool",
          round,
          index,
          callId: block.tool_use_id,
          name: block.type,
          phase: "result",
          result: block.content,
        });
      } else if (
        block.type === "tool_use" &&
        typeof block.id === "string" &&
        typeof block.name === "string"
      ) {
        const callId = block.id;
        const name = block.name;
        calls.set(callId, { name, round });
        apply({ type: "tool-call-start", round, index, callId, name });
        const input = isRecord(block.input) ? block.input : {};
        apply({ type: "tool-call", round, index, callId, name, input, dispatch: "started" });
        const kept = shown.byCall.get(callId) ?? [];
        for (const event of kept) apply(event);
        // A stored turn is over: an approval it still waited for can no longer be answered.
        if (kept.at(-1)?.type === "approval-request") {
          apply({ type: "approval-resolved", round, callId, name, decision: "cancelled" });
        }
      }
    }
    endedRound = round;
  }
  close();
  return stopAgentTurn(state);
}
