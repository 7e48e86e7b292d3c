/**
 * Reads whatever history a host passes to a turn as overlap's conversation: its own messages as
 * they are; string content for any role; leading system messages as the system prompt; the AI
 * SDK's UI and model messages and OpenAI's chat messages, told apart per message; consecutive
 * messages of one role joined, as the Messages API does with consecutive user turns. So the
 * conversation of any turn, however it ended, continues with a plain append.
 */

import { OverlapError } from "../errors.js";
import type { Message } from "../stream/message.js";
import { fromModelMessages, fromUIMessages } from "./ai-sdk-messages.js";
import {
  type ConvertedConversation,
  joinSameRole,
  type MessageInput,
  type ModelMessageLike,
  misplacedSystem,
  type OpenAIChatMessageLike,
  refuse,
  textBlocks,
  type UIMessageLike,
} from "./message-shapes.js";
import { fromOpenAIChatMessages } from "./openai-chat-messages.js";

/** A normalized conversation, and where it first differs from the input (for a store's write). */
export interface NormalizedConversation extends ConvertedConversation {
  /**
   * The first position of the input that the normalized conversation does not hold unchanged
   * (the same object at the same place); the input's length when it holds all of it.
   */
  firstChanged: number;
}

/** Part types only the AI SDK's model messages use. */
const MODEL_PART_TYPES = new Set(["tool-call", "tool-result", "reasoning"]);
/** Part types only OpenAI's chat messages use. */
const OPENAI_PART_TYPES = new Set(["image_url", "input_audio", "refusal"]);

/**
 * Which shape a content part is of. `image` and `file` are told by their fields: the Messages
 * API's image (`source`) and document blocks pass through as they are, the AI SDK's `image`/`file`
 * parts (`image`, `data`) and OpenAI's `file` part (`file`) are not overlap's.
 */
function partShape(part: unknown): "model" | "openai" | "own" | "none" {
  const type = partType(part);
  if (type === "") return "none";
  if (MODEL_PART_TYPES.has(type)) return "model";
  if (OPENAI_PART_TYPES.has(type)) return "openai";
  const fields = part as Record<string, unknown>;
  if (type === "image" && "image" in fields) return "model";
  if (type === "file" && "file" in fields) return "openai";
  if (type === "file" && ("data" in fields || "mediaType" in fields)) return "model";
  return "own";
}

/**
 * Normalizes a turn's input. Throws `OverlapError` (`invalid_conversation`) naming the first
 * message it cannot read; the turn reports it in its result.
 */
export function normalizeMessages(input: readonly MessageInput[]): NormalizedConversation {
  if (!Array.isArray(input)) {
    throw new OverlapError("invalid_conversation", "`messages` is not an array of messages.");
  }
  const out: Message[] = [];
  const system: string[] = [];
  input.forEach((message, i) => {
    const converted = convertOne(message, i);
    if (converted.system !== undefined) {
      if (out.length > 0) misplacedSystem(i);
      system.push(converted.system);
    }
    out.push(...converted.messages);
  });
  const messages = joinSameRole(out);
  let firstChanged = messages.findIndex((m, i) => m !== input[i]);
  if (firstChanged === -1) firstChanged = messages.length;
  const text = system.filter((s) => s !== "").join("\n\n");
  return text === "" ? { messages, firstChanged } : { messages, system: text, firstChanged };
}

function convertOne(message: MessageInput, i: number): ConvertedConversation {
  try {
    return convertAt(message, i);
  } catch (err) {
    // The converters number the one message they were given 0: say which message it is.
    if (err instanceof OverlapError && err.message.startsWith("Message 0 ")) {
      throw new OverlapError("invalid_conversation", `Message ${i} ${err.message.slice(10)}`);
    }
    throw err;
  }
}

function convertAt(message: MessageInput, i: number): ConvertedConversation {
  if (typeof message !== "object" || message === null || !("role" in message)) {
    refuse(i, "is not a message: expected an object with a `role`.");
  }
  if ("parts" in message && Array.isArray(message.parts)) {
    return fromUIMessages([message as UIMessageLike]);
  }
  const { role } = message;
  const content = "content" in message ? message.content : undefined;
  if (role === "system" || role === "developer") {
    return fromOpenAIChatMessages([message as OpenAIChatMessageLike]);
  }
  if (role === "tool") {
    return Array.isArray(content) && content.some((p) => partType(p) === "tool-result")
      ? fromModelMessages([message as ModelMessageLike])
      : fromOpenAIChatMessages([message as OpenAIChatMessageLike]);
  }
  if (role !== "user" && role !== "assistant") {
    return fromOpenAIChatMessages([message as OpenAIChatMessageLike]);
  }
  if ("tool_calls" in message || content === null || "refusal" in message) {
    return fromOpenAIChatMessages([message as OpenAIChatMessageLike]);
  }
  if (typeof content === "string") {
    if (role === "user") return { messages: [message as Message] };
    return { messages: [{ role: "assistant", content: textBlocks([content]) }] };
  }
  if (!Array.isArray(content)) {
    refuse(i, `(${role}) has no content: expected a string or an array of blocks.`);
  }
  const shapes = content.map(partShape);
  if (shapes.includes("model")) return fromModelMessages([message as ModelMessageLike]);
  if (shapes.includes("openai")) return fromOpenAIChatMessages([message as OpenAIChatMessageLike]);
  if (shapes.includes("none")) refuse(i, "has a content block without a `type`.");
  return { messages: [message as Message] };
}

function partType(part: unknown): string {
  const type = typeof part === "object" && part !== null ? (part as { type?: unknown }).type : "";
  return typeof type === "string" ? type : "";
}

/** Wraps a refusal of the converters as the turn reports it (unexpected errors pass through). */
export function asConversationError(err: unknown): OverlapError {
  return err instanceof OverlapError
    ? err
    : new OverlapError("invalid_conversation", "The conversation could not be read.", {
        cause: err,
      });
}
