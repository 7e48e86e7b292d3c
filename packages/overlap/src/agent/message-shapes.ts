/**
 * The message shapes people store besides overlap's own, as far as the converters read them:
 * the AI SDK's `UIMessage` (useChat) and `ModelMessage` (streamText), and OpenAI's Chat
 * Completions messages. Declared here, structurally, so that neither the converters nor a user's
 * type-check needs an AI SDK or OpenAI package: a value of the real types is assignable to these.
 */

import { OverlapError } from "../errors.js";
import type { Message, TextBlock, ToolResultBlock, UserContentBlock } from "../stream/message.js";

/** A conversation read from another shape: its messages, and the system prompt it held. */
export interface ConvertedConversation {
  /** The conversation in overlap's shape, valid to continue. */
  messages: Message[];
  /** The leading system message(s) joined, when there were any; pass it as `system`. */
  system?: string;
}

/** The AI SDK's `UIMessage` (what `useChat` sends and keeps), as the converters read it. */
export interface UIMessageLike {
  id?: string;
  role: "system" | "user" | "assistant";
  metadata?: unknown;
  parts: readonly UIMessagePartLike[];
}

/** One part of a {@link UIMessageLike}: text, reasoning, `tool-<name>`, `dynamic-tool`, ... */
export interface UIMessagePartLike {
  type: string;
  text?: string;
  toolName?: string;
  toolCallId?: string;
  state?: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  providerExecuted?: boolean;
  providerMetadata?: unknown;
  /** A `file` part's media type, URL (a `data:` URL for inline data) and name. */
  mediaType?: string;
  url?: string;
  filename?: string;
}

/** The AI SDK's `ModelMessage` (what `streamText` takes and returns), as the converters read it. */
export interface ModelMessageLike {
  role: "system" | "user" | "assistant" | "tool";
  content: string | readonly ModelMessagePartLike[];
  providerOptions?: unknown;
}

/** One part of a {@link ModelMessageLike}: text, reasoning, tool-call, tool-result, ... */
export interface ModelMessagePartLike {
  type: string;
  text?: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  output?: unknown;
  providerOptions?: unknown;
  providerExecuted?: boolean;
  /** An `image` part's image: base64 text, bytes, or a URL. */
  image?: unknown;
  /** A `file` part's data: base64 text, bytes, or a URL. */
  data?: unknown;
  /** The media type of an `image` or `file` part, and a file's name. */
  mediaType?: string;
  filename?: string;
}

/** An OpenAI Chat Completions message (`ChatCompletionMessageParam`), as the converters read it. */
export interface OpenAIChatMessageLike {
  /** `function` (the deprecated role) is refused: convert such history to `tool` messages. */
  role: "system" | "developer" | "user" | "assistant" | "tool" | "function";
  content?: string | readonly OpenAIChatContentPartLike[] | null;
  name?: string;
  tool_calls?: readonly OpenAIChatToolCallLike[] | null;
  tool_call_id?: string;
  refusal?: string | null;
}

/** A content part of an OpenAI chat message: `text`, `refusal`, `image_url`, `input_audio`, `file`. */
export interface OpenAIChatContentPartLike {
  type: string;
  text?: string;
  refusal?: string;
  /** An image: a URL, or a `data:` URL for inline data. */
  image_url?: { url: string; detail?: string };
  /** Audio as base64 (`wav` or `mp3`). */
  input_audio?: { data: string; format: string };
  /** A file: `file_data` a `data:` URL (`file_id`, an upload of OpenAI's, cannot be read here). */
  file?: { file_data?: string; file_id?: string; filename?: string };
}

/** One `tool_calls` entry of an OpenAI assistant message. */
export interface OpenAIChatToolCallLike {
  id: string;
  type: string;
  function?: { name: string; arguments: string };
}

/**
 * Every message `runAgentTurn` accepts: overlap's own {@link Message}, the same with string
 * content for any role (and a leading system message), and the shapes above, mixed freely.
 */
export type MessageInput =
  | Message
  | { role: "user" | "assistant" | "system" | "developer"; content: string }
  | UIMessageLike
  | ModelMessageLike
  | OpenAIChatMessageLike;

/** Refuses a message the converters cannot read, naming it and what to do. */
export function refuse(index: number, why: string): never {
  throw new OverlapError("invalid_conversation", `Message ${index} ${why}`);
}

/** The refusal of a system message after the conversation began. */
export function misplacedSystem(index: number): never {
  refuse(
    index,
    "is a system message after the conversation began; only leading system messages are taken as the system prompt. Pass instructions as the `system` option of runAgentTurn instead.",
  );
}

/** Text blocks of non-empty texts (the APIs refuse empty text blocks). */
export function textBlocks(texts: readonly string[]): TextBlock[] {
  return texts.filter((text) => text.trim() !== "").map((text) => ({ type: "text", text }));
}

/**
 * Joins consecutive messages of one role into one, as the Messages API does with consecutive user
 * turns, and drops messages left without content. In a joined user message the tool results come
 * first (the API requires it). Messages that need no change are returned as they are.
 */
export function joinSameRole(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    if (isEmpty(message)) continue;
    const last = out.at(-1);
    if (last === undefined || last.role !== message.role) {
      out.push(message);
      continue;
    }
    if (last.role === "assistant" && message.role === "assistant") {
      out[out.length - 1] = { role: "assistant", content: [...last.content, ...message.content] };
    } else if (last.role === "user" && message.role === "user") {
      const blocks = [...userBlocks(last), ...userBlocks(message)];
      const results = blocks.filter((b): b is ToolResultBlock => b.type === "tool_result");
      const rest = blocks.filter((b) => b.type !== "tool_result");
      out[out.length - 1] = { role: "user", content: [...results, ...rest] };
    }
  }
  return out;
}

function userBlocks(message: Message & { role: "user" }): UserContentBlock[] {
  return typeof message.content === "string" ? textBlocks([message.content]) : [...message.content];
}

/** A message of no blocks (an assistant message of only empty text, say); an empty string stays, for the validator to name. */
function isEmpty(message: Message): boolean {
  return typeof message.content !== "string" && message.content.length === 0;
}

/** The tool names of a conversation's calls, by call id (other shapes name the tool per result). */
export function callNames(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content)
      if (block.type === "tool_use") names.set(block.id, block.name);
  }
  return names;
}

/** A tool_result's content as one text. */
export function resultContentText(content: string | readonly TextBlock[]): string {
  return typeof content === "string" ? content : content.map((b) => b.text).join("\n");
}

/**
 * A tool result's text as the object it holds, when it is the canonical JSON of an object or an
 * array (what a tool returning data produces); otherwise the text itself.
 */
export function outputOfText(text: string): unknown {
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[") return text;
  try {
    const value: unknown = JSON.parse(text);
    return JSON.stringify(value) === text ? value : text;
  } catch {
    return text;
  }
}

/** The text a tool result holds for an output of another shape: strings as they are, else JSON. */
export function textOfOutput(output: unknown): string {
  if (typeof output === "string") return output;
  return JSON.stringify(output) ?? "null";
}

/** A tool call's input as the object tool_use blocks hold (a JSON text is parsed; else `{}`). */
export function inputObject(input: unknown): Record<string, unknown> {
  let value = input;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
  }
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** A plain record, for reading provider metadata and options. */
export function recordOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
