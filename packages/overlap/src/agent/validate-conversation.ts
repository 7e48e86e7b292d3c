/**
 * The structural rules of the Messages API, checked before a request is sent: a conversation
 * that breaks one is rejected by the provider with a 400, after the tools already ran. Checking
 * here turns that into a precise, local error that names the message and the call ids.
 */

import { OverlapError } from "../errors.js";
import {
  type AssistantMessage,
  isCallBlock,
  type Message,
  type TextBlock,
  type UserMessage,
} from "../stream/message.js";

/** Which rule a conversation breaks. */
export type ConversationViolationCode =
  /** There are no messages at all. */
  | "empty_conversation"
  /** The first message is not a user message. */
  | "first_not_user"
  /**
   * Two consecutive messages have the same role. The API would merge them; our runtime never
   * produces them, so they reveal a bug in whatever built the conversation.
   */
  | "roles_not_alternating"
  /** A tool_use has no tool_result in the immediately following user message. */
  | "tool_use_unanswered"
  /** A user message has a tool_result after some other block. */
  | "results_not_first"
  /** A tool_result answers no tool_use of the immediately preceding assistant message. */
  | "orphan_tool_result"
  /** A tool_use (or server_tool_use) id appears twice in the conversation. */
  | "duplicate_tool_use_id"
  /** One user message has two tool_results for the same id. */
  | "duplicate_tool_result"
  /** A text block (or a user message's string content) is empty or only whitespace. */
  | "empty_text"
  /** A message has no content at all. */
  | "empty_message";

/** One broken rule, located. */
export interface ConversationViolation {
  code: ConversationViolationCode;
  /** Index of the message where the rule is broken. */
  messageIndex: number;
  /** A sentence for people, naming the message and the ids concerned. */
  message: string;
  /** The call id concerned, for the tool rules. */
  toolUseId?: string;
}

/** Options of {@link validateConversation}. */
export interface ValidateConversationOptions {
  /**
   * Accept tool_use blocks without results in the conversation's last message, when it is an
   * assistant message: the state between a round's end and its tool results, which is fine to
   * store but must never be sent.
   */
  allowTrailingToolUse?: boolean;
}

/**
 * Checks a conversation against the Messages API's structural rules. Returns every violation in
 * message order (empty when the conversation is valid); never throws.
 *
 * Not checked: a provider-side call (`server_tool_use`, `mcp_tool_use`...) without its result
 * block, which the API allows when the response stopped with `pause_turn` and in programmatic
 * tool calling (the result arrives responses later), facts the conversation does not record.
 */
export function validateConversation(
  messages: readonly Message[],
  options: ValidateConversationOptions = {},
): ConversationViolation[] {
  const violations: ConversationViolation[] = [];
  if (messages.length === 0) {
    violations.push({
      code: "empty_conversation",
      messageIndex: 0,
      message: "The conversation has no messages; it must start with a user message.",
    });
    return violations;
  }
  /** Where each tool id was first used, to find reuse. */
  const firstUse = new Map<string, number>();
  messages.forEach((message, i) => {
    const add = (code: ConversationViolationCode, text: string, toolUseId?: string): void => {
      violations.push(
        toolUseId === undefined
          ? { code, messageIndex: i, message: text }
          : { code, messageIndex: i, message: text, toolUseId },
      );
    };
    const previous = messages[i - 1];
    if (i === 0 && message.role !== "user") {
      add(
        "first_not_user",
        `Message 0 is ${roleName(message)}; a conversation must start with a user message.`,
      );
    }
    if (previous !== undefined && previous.role === message.role) {
      add(
        "roles_not_alternating",
        `Messages ${i - 1} and ${i} are both ${message.role} messages; roles must alternate between user and assistant.`,
      );
    }
    if (message.role === "assistant") {
      checkAssistant(message, i, messages[i + 1], firstUse, options, add);
    } else {
      checkUser(message, i, previous, add);
    }
  });
  return violations;
}

/**
 * Throws {@link OverlapError} `invalid_conversation` naming the first violation (all of them are
 * in the error's `details`) when the conversation breaks a rule; returns quietly otherwise.
 */
export function assertValidConversation(
  messages: readonly Message[],
  options: ValidateConversationOptions = {},
): void {
  const violations = validateConversation(messages, options);
  const first = violations[0];
  if (first === undefined) return;
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : "";
  throw new OverlapError("invalid_conversation", `Invalid conversation: ${first.message}${more}`, {
    details: violations,
  });
}

type Add = (code: ConversationViolationCode, text: string, toolUseId?: string) => void;

function checkAssistant(
  message: AssistantMessage,
  i: number,
  next: Message | undefined,
  firstUse: Map<string, number>,
  options: ValidateConversationOptions,
  add: Add,
): void {
  if (message.content.length === 0) {
    add("empty_message", `Message ${i} (assistant) has no content.`);
    return;
  }
  const answered = next?.role === "user" ? resultIds(next) : new Set<string>();
  message.content.forEach((block, b) => {
    if (block.type === "text") checkText(block, i, b, add);
    if (!isCallBlock(block)) return;
    const earlier = firstUse.get(block.id);
    if (earlier === undefined) {
      firstUse.set(block.id, i);
    } else {
      add(
        "duplicate_tool_use_id",
        `Message ${i} reuses the id ${block.id} (${block.name}), already used in message ${earlier}; tool_use ids must be unique in a conversation.`,
        block.id,
      );
    }
    if (block.type !== "tool_use" || answered.has(block.id)) return;
    if (next === undefined && options.allowTrailingToolUse) return;
    const where =
      next === undefined
        ? "but no user message follows with its tool_result"
        : `but message ${i + 1} has no tool_result for it`;
    add(
      "tool_use_unanswered",
      `Message ${i} calls ${block.name} (tool_use ${block.id}), ${where}.`,
      block.id,
    );
  });
}

function checkUser(message: UserMessage, i: number, previous: Message | undefined, add: Add): void {
  if (typeof message.content === "string") {
    if (message.content === "") add("empty_message", `Message ${i} (user) has no content.`);
    else if (message.content.trim() === "") {
      add("empty_text", `Message ${i} (user) has only whitespace as its text; the API rejects it.`);
    }
    return;
  }
  if (message.content.length === 0) {
    add("empty_message", `Message ${i} (user) has no content.`);
    return;
  }
  const calls =
    previous?.role === "assistant"
      ? new Set(previous.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])))
      : new Set<string>();
  const results = new Set<string>();
  let otherSeen = false;
  let misplacedReported = false;
  message.content.forEach((block, b) => {
    if (block.type !== "tool_result") {
      otherSeen = true;
      if (block.type === "text") checkText(block, i, b, add);
      return;
    }
    const id = block.tool_use_id;
    if (otherSeen && !misplacedReported) {
      // One report per message: the fix (move the results first) is the same for all of them.
      misplacedReported = true;
      add(
        "results_not_first",
        `Message ${i} has the tool_result for ${id} after other content; tool_result blocks must come first in a user message.`,
        id,
      );
    }
    if (results.has(id)) {
      add("duplicate_tool_result", `Message ${i} has two tool_result blocks for ${id}.`, id);
    } else if (!calls.has(id)) {
      const because =
        previous?.role === "assistant"
          ? `which is not a tool_use of message ${i - 1}`
          : "but no assistant message precedes it";
      add("orphan_tool_result", `Message ${i} has a tool_result for ${id}, ${because}.`, id);
    }
    results.add(id);
    if (Array.isArray(block.content)) {
      for (const inner of block.content) {
        if (inner.type === "text" && inner.text.trim() === "") {
          add(
            "empty_text",
            `Message ${i} has an empty text block inside the tool_result for ${id}; the API rejects text blocks without non-whitespace text.`,
            id,
          );
        }
      }
    }
  });
}

function checkText(block: TextBlock, i: number, b: number, add: Add): void {
  if (block.text.trim() !== "") return;
  const what = block.text === "" ? "an empty" : "a whitespace-only";
  add(
    "empty_text",
    `Message ${i} has ${what} text block at position ${b}; the API rejects text blocks without non-whitespace text.`,
  );
}

function resultIds(message: UserMessage): Set<string> {
  if (typeof message.content === "string") return new Set();
  return new Set(message.content.flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : [])));
}

function roleName(message: Message): string {
  return message.role === "assistant" ? "an assistant message" : `a ${message.role} message`;
}
