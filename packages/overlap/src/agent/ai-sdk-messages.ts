/**
 * The AI SDK's message shapes to and from overlap's conversation: `UIMessage[]` (what useChat
 * sends and keeps) and `ModelMessage[]` (what streamText takes and returns). No AI SDK package is
 * imported: the shapes are declared structurally (see message-shapes.ts), and the outputs are
 * assignable to the AI SDK's own types.
 *
 * What has no place on the other side is left out, never guessed: provider-executed tool calls,
 * sources, data parts, reasoning without an Anthropic signature; a tool part that never got an
 * output (the stream was stopped while it ran) is left out with its call; so are files the
 * model generated. The user's images and files are image and document blocks (ai-sdk-media.ts).
 */

import type {
  AssistantContentBlock,
  Message,
  ToolResultBlock,
  UserContentBlock,
} from "../stream/message.js";
import {
  type ModelMediaPartOut,
  modelMediaPart,
  type UIFilePartOut,
  uiFilePart,
  userBlocksOfModelParts,
  userBlocksOfUIParts,
} from "./ai-sdk-media.js";
import { isMediaBlock } from "./media-parts.js";
import {
  type ConvertedConversation,
  callNames,
  inputObject,
  joinSameRole,
  type ModelMessageLike,
  type ModelMessagePartLike,
  misplacedSystem,
  outputOfText,
  recordOf,
  refuse,
  resultContentText,
  textBlocks,
  textOfOutput,
  type UIMessageLike,
  type UIMessagePartLike,
} from "./message-shapes.js";

/** Anthropic's replay data of a reasoning part, where the AI SDK keeps it. */
type ReasoningMetadata =
  | { anthropic: { signature: string } }
  | { anthropic: { redactedData: string } };

/** A part of a UI message {@link toUIMessages} writes (assignable to the AI SDK's `UIMessagePart`). */
export type UIMessagePartOut =
  | { type: "text"; text: string; state: "done" }
  | { type: "reasoning"; text: string; state: "done"; providerMetadata: ReasoningMetadata }
  | { type: "step-start" }
  | UIFilePartOut
  | {
      type: `tool-${string}`;
      toolCallId: string;
      state: "output-available";
      input: Record<string, unknown>;
      output: unknown;
    }
  | {
      type: `tool-${string}`;
      toolCallId: string;
      state: "output-error";
      input: Record<string, unknown>;
      errorText: string;
    }
  | {
      type: `tool-${string}`;
      toolCallId: string;
      state: "input-available";
      input: Record<string, unknown>;
    };

/** A UI message {@link toUIMessages} writes (assignable to the AI SDK's `UIMessage`). */
export interface UIMessageOut {
  id: string;
  role: "system" | "user" | "assistant";
  parts: UIMessagePartOut[];
}

/** Options of {@link toUIMessages}. */
export interface ToUIMessagesOptions {
  /** A system prompt to show as a leading system message. Default: none. */
  system?: string;
  /** The id of the `n`-th UI message written (from 0). Default: `msg-<n>`. */
  generateId?: (n: number) => string;
}

/**
 * Reads useChat's `UIMessage[]` as overlap's conversation. Each assistant UI message becomes its
 * rounds (split at `step-start` parts): an assistant message, then a user message of the results
 * of its tool parts (`output-available`; `output-error` and `output-denied` as error results).
 * Leading system messages become `system`. Throws `OverlapError` (`invalid_conversation`) naming
 * the message it cannot read.
 */
export function fromUIMessages(messages: readonly UIMessageLike[]): ConvertedConversation {
  const out: Message[] = [];
  const system: string[] = [];
  messages.forEach((message, i) => {
    if (!Array.isArray(message?.parts)) refuse(i, "is not a UI message: it has no `parts` array.");
    for (const [n, part] of message.parts.entries()) checkPart(i, n, part);
    const texts = message.parts.flatMap((p) => (p.type === "text" ? [p.text ?? ""] : []));
    if (message.role === "system") {
      if (out.length > 0) misplacedSystem(i);
      system.push(texts.join(""));
    } else if (message.role === "user") {
      out.push({ role: "user", content: userBlocksOfUIParts(message.parts, i) });
    } else if (message.role === "assistant") {
      out.push(...roundsOfUIMessage(message.parts));
    } else {
      refuse(i, `has the role ${JSON.stringify((message as { role: unknown }).role)}.`);
    }
  });
  return withSystem(joinSameRole(out), system);
}

/** Refuses a part whose fields are not of their types (JSON from a client may hold anything). */
function checkPart(index: number, n: number, part: UIMessagePartLike): void {
  const fields = part as unknown as Record<string, unknown> | null;
  if (typeof fields !== "object" || fields === null || typeof fields.type !== "string") {
    refuse(index, `has a part (${n}) that is not an object with a string \`type\`.`);
  }
  for (const key of [
    "text",
    "toolCallId",
    "toolName",
    "state",
    "errorText",
    "mediaType",
    "url",
    "filename",
  ]) {
    const value = fields[key];
    if (value !== undefined && typeof value !== "string") {
      refuse(index, `has a part (${n}) whose \`${key}\` is not a string.`);
    }
  }
}

function roundsOfUIMessage(parts: readonly UIMessagePartLike[]): Message[] {
  const out: Message[] = [];
  let content: AssistantContentBlock[] = [];
  let results: ToolResultBlock[] = [];
  const flush = () => {
    if (content.length > 0) out.push({ role: "assistant", content });
    if (results.length > 0) out.push({ role: "user", content: results });
    content = [];
    results = [];
  };
  for (const part of parts) {
    if (part.type === "step-start") flush();
    else if (part.type === "text") content.push(...textBlocks([part.text ?? ""]));
    else if (part.type === "reasoning") {
      const block = reasoningBlock(part.text ?? "", part.providerMetadata);
      if (block) content.push(block);
    } else if (part.type.startsWith("tool-") || part.type === "dynamic-tool") {
      const name = part.type === "dynamic-tool" ? (part.toolName ?? "") : part.type.slice(5);
      const result = uiToolResult(part);
      if (part.providerExecuted || !result || part.toolCallId === undefined) continue;
      content.push({ type: "tool_use", id: part.toolCallId, name, input: inputObject(part.input) });
      results.push(result);
    }
  }
  flush();
  return out;
}

function uiToolResult(part: UIMessagePartLike): ToolResultBlock | undefined {
  const id = part.toolCallId ?? "";
  switch (part.state) {
    case "output-available":
      return { type: "tool_result", tool_use_id: id, content: textOfOutput(part.output) };
    case "output-error":
      return {
        type: "tool_result",
        tool_use_id: id,
        content: part.errorText ?? "",
        is_error: true,
      };
    case "output-denied":
      return { type: "tool_result", tool_use_id: id, content: DENIED, is_error: true };
    default:
      return undefined;
  }
}

const DENIED = "The user denied this call; it was not run.";

/**
 * Writes overlap's conversation as useChat's `UIMessage[]`: one assistant UI message per run of
 * model rounds (a `step-start` part before each), each call a `tool-<name>` part with its result
 * (`output` is the object when the result text is the JSON of one, as a tool returning data
 * writes it); text, reasoning with an Anthropic signature, calls and results; other blocks are
 * left out.
 */
export function toUIMessages(
  messages: readonly Message[],
  options: ToUIMessagesOptions = {},
): UIMessageOut[] {
  const id = options.generateId ?? ((n: number) => `msg-${n}`);
  const out: UIMessageOut[] = [];
  const add = (role: UIMessageOut["role"], parts: UIMessagePartOut[]): UIMessageOut => {
    const message: UIMessageOut = { id: id(out.length), role, parts };
    out.push(message);
    return message;
  };
  if (options.system) add("system", [{ type: "text", text: options.system, state: "done" }]);
  const calls = new Map<string, number>();
  let assistant: UIMessageOut | undefined;
  for (const message of messages) {
    if (message.role === "user") {
      const blocks: UserContentBlock[] =
        typeof message.content === "string"
          ? [{ type: "text", text: message.content }]
          : message.content;
      const texts: UIMessagePartOut[] = [];
      for (const block of blocks) {
        if (block.type === "text") texts.push({ type: "text", text: block.text, state: "done" });
        else if (isMediaBlock(block)) texts.push(uiFilePart(block));
        else if (block.type === "tool_result" && assistant) answerUI(assistant, calls, block);
      }
      if (texts.length > 0) {
        add("user", texts);
        assistant = undefined;
      }
      continue;
    }
    assistant ??= add("assistant", []);
    assistant.parts.push({ type: "step-start" });
    for (const block of message.content) {
      const part = uiPartOf(block);
      if (!part) continue;
      if (block.type === "tool_use") calls.set(block.id, assistant.parts.length);
      assistant.parts.push(part);
    }
  }
  return out;
}

function uiPartOf(block: AssistantContentBlock): UIMessagePartOut | undefined {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text, state: "done" };
    case "thinking":
      return block.signature
        ? {
            type: "reasoning",
            text: block.thinking,
            state: "done",
            providerMetadata: { anthropic: { signature: block.signature } },
          }
        : undefined;
    case "redacted_thinking":
      return {
        type: "reasoning",
        text: "",
        state: "done",
        providerMetadata: { anthropic: { redactedData: block.data } },
      };
    case "tool_use":
      return {
        type: `tool-${block.name}`,
        toolCallId: block.id,
        state: "input-available",
        input: { ...block.input },
      };
    default:
      return undefined;
  }
}

function answerUI(assistant: UIMessageOut, calls: Map<string, number>, block: ToolResultBlock) {
  const at = calls.get(block.tool_use_id);
  const part = at === undefined ? undefined : assistant.parts[at];
  if (!part || !("toolCallId" in part)) return;
  const text = resultContentText(block.content);
  const { type, toolCallId, input } = part;
  assistant.parts[at!] = block.is_error
    ? { type, toolCallId, state: "output-error", input, errorText: text }
    : { type, toolCallId, state: "output-available", input, output: outputOfText(text) };
}

/** A part of a model message {@link toModelMessages} writes (assignable to the AI SDK's parts). */
export type ModelMessagePartOut =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string; providerOptions: ReasoningMetadata }
  | { type: "tool-call"; toolCallId: string; toolName: string; input: Record<string, unknown> }
  | {
      type: "tool-result";
      toolCallId: string;
      toolName: string;
      output:
        | { type: "text"; value: string }
        | { type: "error-text"; value: string }
        | { type: "content"; value: Array<{ type: "text"; text: string }> };
    };

/** A model message {@link toModelMessages} writes (assignable to the AI SDK's `ModelMessage`). */
export type ModelMessageOut =
  | { role: "system"; content: string }
  | {
      role: "user";
      content: string | Array<Extract<ModelMessagePartOut, { type: "text" }> | ModelMediaPartOut>;
    }
  | {
      role: "assistant";
      content: Array<Exclude<ModelMessagePartOut, { type: "tool-result" }>>;
    }
  | { role: "tool"; content: Array<Extract<ModelMessagePartOut, { type: "tool-result" }>> };

/**
 * Reads the AI SDK's `ModelMessage[]` (streamText's `messages`, `response.messages`) as overlap's
 * conversation: `tool` messages become user messages of tool results; leading system messages
 * become `system`. Throws `OverlapError` (`invalid_conversation`) naming the message it cannot
 * read.
 */
export function fromModelMessages(messages: readonly ModelMessageLike[]): ConvertedConversation {
  const out: Message[] = [];
  const system: string[] = [];
  messages.forEach((message, i) => {
    const parts: readonly ModelMessagePartLike[] =
      typeof message?.content === "string"
        ? [{ type: "text", text: message.content }]
        : Array.isArray(message?.content)
          ? message.content
          : refuse(i, "has no content (a string or an array of parts).");
    const texts = parts.flatMap((p) => (p.type === "text" ? [p.text ?? ""] : []));
    switch (message.role) {
      case "system":
        if (out.length > 0) misplacedSystem(i);
        system.push(texts.join(""));
        return;
      case "user":
        out.push(
          typeof message.content === "string"
            ? { role: "user", content: message.content }
            : { role: "user", content: userBlocksOfModelParts(parts, i) },
        );
        return;
      case "assistant":
        out.push({ role: "assistant", content: parts.flatMap(assistantBlockOf) });
        return;
      case "tool":
        out.push({ role: "user", content: parts.flatMap(toolResultOf) });
        return;
      default:
        refuse(i, `has the role ${JSON.stringify((message as { role: unknown }).role)}.`);
    }
  });
  return withSystem(joinSameRole(out), system);
}

function assistantBlockOf(part: ModelMessagePartLike): AssistantContentBlock[] {
  if (part.type === "text") return textBlocks([part.text ?? ""]);
  if (part.type === "reasoning") {
    const block = reasoningBlock(part.text ?? "", part.providerOptions);
    return block ? [block] : [];
  }
  if (part.type === "tool-call" && !part.providerExecuted && part.toolCallId !== undefined) {
    return [
      {
        type: "tool_use",
        id: part.toolCallId,
        name: part.toolName ?? "",
        input: inputObject(part.input),
      },
    ];
  }
  return [];
}

function toolResultOf(part: ModelMessagePartLike): ToolResultBlock[] {
  if (part.type !== "tool-result" || part.toolCallId === undefined) return [];
  const id = part.toolCallId;
  const output = recordOf(part.output) ?? {};
  const value = output.value;
  switch (output.type) {
    case "text":
      return [{ type: "tool_result", tool_use_id: id, content: String(value ?? "") }];
    case "json":
      return [{ type: "tool_result", tool_use_id: id, content: textOfOutput(value) }];
    case "error-text":
      return [
        { type: "tool_result", tool_use_id: id, content: String(value ?? ""), is_error: true },
      ];
    case "error-json":
      return [
        { type: "tool_result", tool_use_id: id, content: textOfOutput(value), is_error: true },
      ];
    case "execution-denied": {
      const reason = typeof output.reason === "string" ? ` ${output.reason}` : "";
      return [{ type: "tool_result", tool_use_id: id, content: DENIED + reason, is_error: true }];
    }
    case "content": {
      const items = Array.isArray(value) ? (value as { type?: unknown; text?: unknown }[]) : [];
      const texts = items.flatMap((v) => (v.type === "text" ? [String(v.text ?? "")] : []));
      const blocks = textBlocks(texts);
      return [
        { type: "tool_result", tool_use_id: id, content: blocks.length > 0 ? blocks : "(empty)" },
      ];
    }
    default:
      return [{ type: "tool_result", tool_use_id: id, content: textOfOutput(part.output) }];
  }
}

/**
 * Writes overlap's conversation as the AI SDK's `ModelMessage[]`: tool results become `tool`
 * messages (before the user's text of the same message); thinking with an Anthropic signature
 * becomes reasoning with it in `providerOptions`; provider-side blocks are left out.
 */
export function toModelMessages(
  messages: readonly Message[],
  options: { system?: string } = {},
): ModelMessageOut[] {
  const out: ModelMessageOut[] = [];
  if (options.system) out.push({ role: "system", content: options.system });
  const names = callNames(messages);
  for (const message of messages) {
    if (message.role === "assistant") {
      const content = message.content.flatMap((block) => {
        const part = modelPartOf(block);
        return part ? [part] : [];
      });
      if (content.length > 0) out.push({ role: "assistant", content });
      continue;
    }
    if (typeof message.content === "string") {
      out.push({ role: "user", content: message.content });
      continue;
    }
    const results = message.content.flatMap((b) => (b.type === "tool_result" ? [b] : []));
    const texts = message.content.flatMap(
      (b): Array<{ type: "text"; text: string } | ModelMediaPartOut> =>
        b.type === "text"
          ? [{ type: "text", text: b.text }]
          : isMediaBlock(b)
            ? [modelMediaPart(b)]
            : [],
    );
    if (results.length > 0) {
      out.push({
        role: "tool",
        content: results.map((b) => ({
          type: "tool-result",
          toolCallId: b.tool_use_id,
          toolName: names.get(b.tool_use_id) ?? "",
          output: b.is_error
            ? { type: "error-text", value: resultContentText(b.content) }
            : typeof b.content === "string"
              ? { type: "text", value: b.content }
              : { type: "content", value: b.content.map((t) => ({ type: "text", text: t.text })) },
        })),
      });
    }
    if (texts.length > 0) out.push({ role: "user", content: texts });
  }
  return out;
}

function modelPartOf(
  block: AssistantContentBlock,
): Exclude<ModelMessagePartOut, { type: "tool-result" }> | undefined {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "thinking":
      return block.signature
        ? {
            type: "reasoning",
            text: block.thinking,
            providerOptions: { anthropic: { signature: block.signature } },
          }
        : undefined;
    case "redacted_thinking":
      return {
        type: "reasoning",
        text: "",
        providerOptions: { anthropic: { redactedData: block.data } },
      };
    case "tool_use":
      return {
        type: "tool-call",
        toolCallId: block.id,
        toolName: block.name,
        input: { ...block.input },
      };
    default:
      return undefined;
  }
}

/** A reasoning part as a thinking block, when it carries Anthropic's signature (or redacted data). */
function reasoningBlock(text: string, metadata: unknown): AssistantContentBlock | undefined {
  const anthropic = recordOf(recordOf(metadata)?.anthropic);
  if (typeof anthropic?.signature === "string" && anthropic.signature !== "") {
    return { type: "thinking", thinking: text, signature: anthropic.signature };
  }
  if (typeof anthropic?.redactedData === "string") {
    return { type: "redacted_thinking", data: anthropic.redactedData };
  }
  return undefined;
}

function withSystem(messages: Message[], system: readonly string[]): ConvertedConversation {
  const text = system.filter((s) => s !== "").join("\n\n");
  return text === "" ? { messages } : { messages, system: text };
}
