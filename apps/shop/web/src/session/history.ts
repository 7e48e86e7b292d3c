/**
 * A stored conversation (`GET /api/sessions/:id`: messages in the Messages API's shape) as the
 * client's {@link AgentState}, so a reload shows what was said and the client can go on from it.
 * The messages are turned into the AgentEvents the turn would have sent and folded with the
 * client's own reducer: one code path for live and restored conversations. What the messages do
 * not keep (previews, final cards, per-round timings) comes back only for the last turn, which the
 * caller replays from the server's event log (`GET .../stream`).
 */

import {
  type AgentEvent,
  type AgentState,
  addUserMessage,
  initialAgentState,
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
}

/** Reads the answer of `GET /api/sessions/:id`, or `undefined`. */
export function readStoredConversation(value: unknown): StoredConversation | undefined {
  if (!isRecord(value) || !Array.isArray(value.messages)) return undefined;
  const turn = isRecord(value.turn) ? value.turn : {};
  return {
    messages: value.messages,
    running: turn.running === true,
    hasTurnLog: typeof turn.lastTurnId === "string",
  };
}

interface Block {
  type: string;
  [key: string]: unknown;
}

interface StoredMessage {
  role: "user" | "assistant";
  blocks: Block[];
}

function readMessage(value: unknown): StoredMessage | undefined {
  if (!isRecord(value) || (value.role !== "user" && value.role !== "assistant")) return undefined;
  const { content } = value;
  if (typeof content === "string")
    return { role: value.role, blocks: [{ type: "text", text: content }] };
  if (!Array.isArray(content)) return undefined;
  const blocks = content.filter(
    (b): b is Block => isRecord(b) && typeof (b as { type?: unknown }).type === "string",
  );
  return { role: value.role, blocks };
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

/**
 * The state showing `messages`. With `stopBeforeLastTurn`, the last turn (from the user's last
 * message on) is left out except for that message, and the state is left running: the caller
 * replays that turn from the server's log, with everything the messages do not keep.
 */
export function conversationState(
  messages: readonly unknown[],
  options: { stopBeforeLastTurn: boolean },
): AgentState {
  const parsed = messages.map(readMessage).filter((m): m is StoredMessage => m !== undefined);
  const lastTurnStart = options.stopBeforeLastTurn
    ? parsed.findLastIndex((m) => m.role === "user" && userText(m) !== "")
    : -1;
  let state = initialAgentState();
  const apply = (event: AgentEvent) => {
    state = reduceAgentEvent(state, { id: undefined, event });
  };
  let round = 0;
  let open = false;
  const close = () => {
    if (open) apply({ type: "done", rounds: round, stopReason: "end_turn" });
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
      round = 0;
      continue;
    }
    round++;
    open = true;
    apply({ type: "round-start", round });
    for (const [index, block] of message.blocks.entries()) {
      if (block.type === "text" && typeof block.text === "string" && block.text !== "") {
        apply({ type: "text-delta", round, index, text: block.text });
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
      }
    }
  }
  close();
  return stopAgentTurn(state);
}
