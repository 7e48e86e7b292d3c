/**
 * Repair: turns a conversation left behind by a crash, a cancelled turn or a
 * dropped connection into one the Messages API accepts, without losing what was generated.
 * Untouched messages are returned by identity, so a store can rewrite only from the first change.
 */

import {
  type AssistantMessage,
  isCallBlock,
  type Message,
  type ToolResultBlock,
  type UserContentBlock,
  type UserMessage,
} from "../stream/message.js";

/** The result text for a call whose result was never recorded (e.g. a restart mid-round). */
export const MISSING_RESULT_TEXT =
  "No result was recorded for this call: the conversation was interrupted before it finished. It may or may not have taken effect; check the current state before calling it again.";

/**
 * Returns a structurally valid version of `messages`: call ids made unique (a repeated id and its
 * result are renamed), empty blocks and messages dropped, same-role neighbours merged, every
 * tool_use answered in the next user message (missing answers added, results first, orphan and
 * duplicate results dropped).
 */
export function repairConversation(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const message of withUniqueCallIds(messages)) {
    const cleaned = withoutEmptyBlocks(message);
    if (cleaned === undefined) continue;
    const last = out.at(-1);
    if (last && last.role === cleaned.role) out[out.length - 1] = mergeMessages(last, cleaned);
    else out.push(cleaned);
  }
  if (out[0]?.role === "assistant")
    out.unshift({ role: "user", content: "(conversation resumed)" });
  for (let i = 0; i < out.length; i++) {
    const message = out[i]!;
    if (message.role !== "user") continue;
    const previous = out[i - 1];
    const ids = previous?.role === "assistant" ? toolUseIds(previous) : [];
    out[i] = answerCalls(message, ids);
  }
  const last = out.at(-1);
  if (last?.role === "assistant" && toolUseIds(last).length > 0) {
    out.push(answerCalls({ role: "user", content: [] }, toolUseIds(last)));
  }
  // answerCalls may leave a user message empty (it held only orphan results): drop and re-merge.
  return out.some((m) => m.role === "user" && Array.isArray(m.content) && m.content.length === 0)
    ? repairConversation(
        out.filter(
          (m) => !(m.role === "user" && Array.isArray(m.content) && m.content.length === 0),
        ),
      )
    : out;
}

/**
 * Appends a new user text to a conversation: as a new message, or merged into a trailing user
 * message (tool results of an interrupted turn) so roles keep alternating. Returns the new list
 * and the first position that changed, for {@link ConversationStore.write}.
 */
export function appendUserText(
  messages: readonly Message[],
  text: string,
): { messages: Message[]; from: number } {
  const repaired = repairConversation(messages);
  let from = repaired.findIndex((m, i) => m !== messages[i]);
  if (from === -1) from = Math.min(repaired.length, messages.length);
  const last = repaired.at(-1);
  if (last?.role === "user") {
    repaired[repaired.length - 1] = mergeMessages(last, { role: "user", content: text });
    from = Math.min(from, repaired.length - 1);
  } else {
    repaired.push({ role: "user", content: text });
    from = Math.min(from, repaired.length - 1);
  }
  return { messages: repaired, from };
}

/**
 * Renames every call id already used earlier (in the conversation or the same message), and the
 * matching result in the next user message: the k-th call with an id owns the k-th result with it.
 */
function withUniqueCallIds(messages: readonly Message[]): readonly Message[] {
  const seen = new Set<string>();
  let out: Message[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role !== "assistant") continue;
    const occurrences = new Map<string, number>();
    const renames = new Map<string, string>(); // `${old}#${occurrence}` -> new id
    const content = message.content.map((block) => {
      if (!isCallBlock(block)) return block;
      const occurrence = (occurrences.get(block.id) ?? 0) + 1;
      occurrences.set(block.id, occurrence);
      if (!seen.has(block.id)) {
        seen.add(block.id);
        return block;
      }
      let id = block.id;
      for (let n = 2; seen.has(id); n++) id = `${block.id}_dup${n}`;
      seen.add(id);
      renames.set(`${block.id}#${occurrence}`, id);
      return { ...block, id };
    });
    if (renames.size === 0) continue;
    out ??= [...messages];
    out[i] = { role: "assistant", content };
    const next = out[i + 1];
    if (next?.role !== "user" || typeof next.content === "string") continue;
    const seenResults = new Map<string, number>();
    out[i + 1] = {
      role: "user",
      content: next.content.map((block) => {
        if (block.type !== "tool_result") return block;
        const occurrence = (seenResults.get(block.tool_use_id) ?? 0) + 1;
        seenResults.set(block.tool_use_id, occurrence);
        const id = renames.get(`${block.tool_use_id}#${occurrence}`);
        return id === undefined ? block : { ...block, tool_use_id: id };
      }),
    };
  }
  return out ?? messages;
}

function toolUseIds(message: AssistantMessage): string[] {
  return message.content.filter((b) => b.type === "tool_use").map((b) => b.id);
}

function userBlocks(message: UserMessage): UserContentBlock[] {
  return typeof message.content === "string"
    ? [{ type: "text", text: message.content }]
    : message.content;
}

/** Puts exactly one result per call first, in call order; drops orphans; keeps other blocks. */
function answerCalls(message: UserMessage, ids: readonly string[]): UserMessage {
  const blocks = userBlocks(message);
  const results = new Map<string, ToolResultBlock>();
  const others: UserContentBlock[] = [];
  for (const block of blocks) {
    if (block.type !== "tool_result") others.push(block);
    else if (ids.includes(block.tool_use_id) && !results.has(block.tool_use_id)) {
      results.set(block.tool_use_id, block);
    }
  }
  const ordered: ToolResultBlock[] = ids.map(
    (id) =>
      results.get(id) ?? {
        type: "tool_result",
        tool_use_id: id,
        content: MISSING_RESULT_TEXT,
        is_error: true,
      },
  );
  const content: UserContentBlock[] = [...ordered, ...others];
  const unchanged = content.length === blocks.length && content.every((b, i) => b === blocks[i]);
  if (unchanged) return message;
  return { role: "user", content };
}

function mergeMessages(a: Message, b: Message): Message {
  if (a.role === "assistant" && b.role === "assistant") {
    return { role: "assistant", content: [...a.content, ...b.content] };
  }
  const blocks = [...userBlocks(a as UserMessage), ...userBlocks(b as UserMessage)];
  // Results must come first; answerCalls reorders them against the preceding calls afterwards.
  return { role: "user", content: blocks };
}

function withoutEmptyBlocks(message: Message): Message | undefined {
  if (message.role === "user") {
    if (typeof message.content === "string")
      return message.content.trim() === "" ? undefined : message;
    const content = message.content.filter((b) => !(b.type === "text" && b.text.trim() === ""));
    if (content.length === 0) return undefined;
    return content.length === message.content.length ? message : { role: "user", content };
  }
  const content = message.content.filter((b) => !(b.type === "text" && b.text.trim() === ""));
  if (content.length === 0) return undefined;
  return content.length === message.content.length ? message : { role: "assistant", content };
}
