/**
 * OpenAI Chat Completions messages to and from overlap's conversation, for history stored in
 * that shape (whatever model the next turn runs on). No OpenAI package is imported: the shapes
 * are declared structurally, and the output is assignable to the SDK's
 * `ChatCompletionMessageParam`.
 *
 * Chat Completions has no place for thinking, provider-side blocks or a result's error flag:
 * those are left out on the way there (an error result's text says what failed).
 */

import type { AssistantContentBlock, Message, ToolResultBlock } from "../stream/message.js";
import {
  type ConvertedConversation,
  inputObject,
  joinSameRole,
  misplacedSystem,
  type OpenAIChatContentPartLike,
  type OpenAIChatMessageLike,
  refuse,
  resultContentText,
  textBlocks,
} from "./message-shapes.js";

/** A message {@link toOpenAIChatMessages} writes (assignable to `ChatCompletionMessageParam`). */
export type OpenAIChatMessageOut =
  | { role: "system"; content: string }
  | { role: "user"; content: string | Array<{ type: "text"; text: string }> }
  | {
      role: "assistant";
      content: string | Array<{ type: "text"; text: string }> | null;
      tool_calls?: Array<{
        id: string;
        type: "function";
        function: { name: string; arguments: string };
      }>;
    }
  | { role: "tool"; tool_call_id: string; content: string };

/**
 * Reads OpenAI chat messages as overlap's conversation: `tool_calls` become tool_use blocks (their
 * `arguments` parsed; text that is not a JSON object gives `{}`), `tool` messages become user
 * messages of tool results, `content: null` is no text, a refusal is text; leading `system` and
 * `developer` messages become `system`. Throws `OverlapError` (`invalid_conversation`) naming the
 * message it cannot read (images, audio, files, the deprecated `function` role).
 */
export function fromOpenAIChatMessages(
  messages: readonly OpenAIChatMessageLike[],
): ConvertedConversation {
  const out: Message[] = [];
  const system: string[] = [];
  messages.forEach((message, i) => {
    const texts = textsOf(message, i);
    switch (message?.role) {
      case "system":
      case "developer":
        if (out.length > 0) misplacedSystem(i);
        system.push(texts.join(""));
        return;
      case "user":
        out.push(
          typeof message.content === "string"
            ? { role: "user", content: message.content }
            : { role: "user", content: textBlocks(texts) },
        );
        return;
      case "assistant": {
        const content: AssistantContentBlock[] = textBlocks(texts);
        for (const call of message.tool_calls ?? []) {
          if (!call.function) refuse(i, `has a tool call of type ${JSON.stringify(call.type)}.`);
          content.push({
            type: "tool_use",
            id: call.id,
            name: call.function.name,
            input: inputObject(call.function.arguments),
          });
        }
        out.push({ role: "assistant", content });
        return;
      }
      case "tool": {
        const result: ToolResultBlock = {
          type: "tool_result",
          tool_use_id: message.tool_call_id ?? "",
          content: texts.join("") || "(empty)",
        };
        out.push({ role: "user", content: [result] });
        return;
      }
      default:
        refuse(
          i,
          `has the role ${JSON.stringify((message as { role?: unknown })?.role)}; write function results as \`tool\` messages.`,
        );
    }
  });
  const joined = joinSameRole(out);
  const text = system.filter((s) => s !== "").join("\n\n");
  return text === "" ? { messages: joined } : { messages: joined, system: text };
}

function textsOf(message: OpenAIChatMessageLike, i: number): string[] {
  const content = message?.content;
  const texts: string[] =
    typeof content === "string"
      ? [content]
      : Array.isArray(content)
        ? (content as readonly OpenAIChatContentPartLike[]).map((part) => {
            if (part.type === "text") return part.text ?? "";
            if (part.type === "refusal") return part.refusal ?? "";
            return refuse(
              i,
              `has a part of type ${JSON.stringify(part.type)}; overlap converts text only.`,
            );
          })
        : [];
  if (typeof message?.refusal === "string" && message.refusal !== "") texts.push(message.refusal);
  return texts;
}

/**
 * Writes overlap's conversation as OpenAI chat messages: tool_use blocks become `tool_calls` of
 * the assistant message (after its text), tool results become `tool` messages placed first.
 * Thinking, provider-side blocks and results' error flags are left out.
 */
export function toOpenAIChatMessages(
  messages: readonly Message[],
  options: { system?: string } = {},
): OpenAIChatMessageOut[] {
  const out: OpenAIChatMessageOut[] = [];
  if (options.system) out.push({ role: "system", content: options.system });
  for (const message of messages) {
    if (message.role === "user") {
      if (typeof message.content === "string") {
        out.push({ role: "user", content: message.content });
        continue;
      }
      const texts: { type: "text"; text: string }[] = [];
      for (const block of message.content) {
        if (block.type === "tool_result") {
          const content = resultContentText(block.content);
          out.push({ role: "tool", tool_call_id: block.tool_use_id, content });
        } else if (block.type === "text") texts.push({ type: "text", text: block.text });
      }
      if (texts.length > 0) out.push({ role: "user", content: texts });
      continue;
    }
    const texts = message.content.flatMap((b) =>
      b.type === "text" ? [{ type: "text" as const, text: b.text }] : [],
    );
    const calls = message.content.flatMap((b) =>
      b.type === "tool_use"
        ? [
            {
              id: b.id,
              type: "function" as const,
              function: { name: b.name, arguments: JSON.stringify(b.input) },
            },
          ]
        : [],
    );
    if (texts.length === 0 && calls.length === 0) continue;
    const content = texts.length === 0 ? null : texts.length === 1 ? texts[0]!.text : texts;
    out.push(
      calls.length > 0
        ? { role: "assistant", content, tool_calls: calls }
        : { role: "assistant", content },
    );
  }
  return out;
}
