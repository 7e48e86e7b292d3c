/**
 * Restoring the round a crash cut off (pure): a process killed mid-round never handed the round
 * to `onMessages`, but its calls left records elsewhere: the round journal (every valid call, at
 * its block stop) and the ledger (every call that finished, with its real outcome; tools with
 * effects write it in the effect's own transaction). `restoreRound` puts the calls the
 * conversation does not hold back into it: one assistant message with their tool_use blocks
 * (original ids, in call order), then one user message answering each, with the recorded outcome
 * when there is one, else as not run. The conversation then tells the model every effect that
 * happened, and no more.
 */

import {
  type AssistantMessage,
  isCallBlock,
  type Message,
  type ToolResultBlock,
  type ToolUseBlock,
} from "../stream/message.js";
import type { ToolCall } from "../stream/tool-call.js";
import type { ToolOutcome } from "../tools/tool-outcome.js";
import { MISSING_RESULT_TEXT } from "./repair-conversation.js";

/** Why a journaled call without a record did not run. */
export const NOT_RUN_AFTER_RESTART = "the server stopped before it ran";

/** The result text of a journaled call that has no record: it was never run. */
export function notRunAfterRestartText(name: string): string {
  return `${name} was not run: ${NOT_RUN_AFTER_RESTART}. Call it again if it is still wanted.`;
}

/**
 * What restoring needs of a stored call: where it stood and its block (which holds its id, name
 * and input). A host may store just these; records stored before a call carried more read back
 * as they are.
 */
export type StoredCall = Pick<ToolCall, "round" | "index" | "block">;

/** A ledger record with the call it belongs to. */
export interface RecordedCall {
  call: StoredCall;
  outcome: ToolOutcome;
}

/** What storage holds about the calls of rounds that may never have been stored. */
export interface RestoreRoundInput {
  /** Journaled calls not cleared yet. */
  journaled: readonly StoredCall[];
  /** Ledger records of calls the conversation may lack (records of calls it holds are ignored). */
  recorded: readonly RecordedCall[];
}

/** Options of {@link restoreRound}. */
export interface RestoreRoundOptions {
  /**
   * The result text of a journaled call without a record. The default says it was not run,
   * which is only true when every tool with an effect records its outcome atomically with the
   * effect (in the effect's transaction); a host that cannot promise that should answer with
   * something like `MISSING_RESULT_TEXT` ("may or may not have taken effect").
   */
  notRunText?: (block: ToolUseBlock) => string;
}

/** The conversation with the restored calls. */
export interface RestoredRound {
  /** The whole conversation; messages before `from` are the input's, by identity. */
  messages: Message[];
  /** The first position that differs from the input (its length when nothing was restored). */
  from: number;
  /** The ids of the restored calls, in call order. */
  restored: string[];
}

/**
 * Adds to `messages` every journaled or recorded call it does not hold (by call id), answered
 * exactly once: the recorded outcome when the ledger has one, else as not run. Calls are ordered
 * by round, then by block index. Given a conversation a store may hold (valid, possibly ending
 * with an assistant message), the result is valid (`validateConversation`). Idempotent: restoring
 * again from the same records adds nothing.
 */
export function restoreRound(
  messages: readonly Message[],
  input: RestoreRoundInput,
  options: RestoreRoundOptions = {},
): RestoredRound {
  const present = callIds(messages);
  const byId = new Map<string, { call: StoredCall; outcome?: ToolOutcome }>();
  for (const call of input.journaled) {
    const id = call.block.id;
    if (!present.has(id) && !byId.has(id)) byId.set(id, { call });
  }
  for (const { call, outcome } of input.recorded) {
    const id = call.block.id;
    if (present.has(id) || outcome.callId !== id) continue;
    // The journal and the ledger name the same call: the record adds its outcome.
    byId.set(id, { call: byId.get(id)?.call ?? call, outcome });
  }
  if (byId.size === 0) return { messages: [...messages], from: messages.length, restored: [] };

  const ordered = [...byId.values()].sort(
    (a, b) =>
      a.call.round - b.call.round ||
      a.call.index - b.call.index ||
      (a.call.block.id < b.call.block.id ? -1 : 1),
  );
  const notRun =
    options.notRunText ?? ((block: ToolUseBlock) => notRunAfterRestartText(block.name));
  const blocks = ordered.map(({ call }) => structuredClone(call.block));
  const results = ordered.map(({ call, outcome }): ToolResultBlock => {
    const id = call.block.id;
    if (!outcome) {
      return { type: "tool_result", tool_use_id: id, content: notRun(call.block), is_error: true };
    }
    return outcome.isError
      ? { type: "tool_result", tool_use_id: id, content: outcome.resultText, is_error: true }
      : { type: "tool_result", tool_use_id: id, content: outcome.resultText };
  });

  const out = [...messages];
  let from = out.length;
  const last = out.at(-1);
  let assistant: AssistantMessage;
  if (last?.role === "assistant") {
    // A stored assistant message without its results (after pause_turn, the round continued it):
    // the lost round's calls belong to it, as they would have been stored.
    from = out.length - 1;
    assistant = { role: "assistant", content: [...last.content, ...blocks] };
    out[from] = assistant;
    const earlier = unansweredCalls(last).map(
      (id): ToolResultBlock => ({
        type: "tool_result",
        tool_use_id: id,
        content: MISSING_RESULT_TEXT,
        is_error: true,
      }),
    );
    results.unshift(...earlier);
  } else {
    if (out.length === 0) out.push({ role: "user", content: "(conversation resumed)" });
    assistant = { role: "assistant", content: blocks };
    out.push(assistant);
  }
  out.push({ role: "user", content: results });
  return { messages: out, from, restored: ordered.map(({ call }) => call.block.id) };
}

/** Every call id the conversation holds (local and provider-side calls). */
function callIds(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) if (isCallBlock(block)) ids.add(block.id);
  }
  return ids;
}

/** The local calls of a trailing assistant message: none of them has a result yet. */
function unansweredCalls(message: AssistantMessage): string[] {
  return message.content.filter((b) => b.type === "tool_use").map((b) => b.id);
}
