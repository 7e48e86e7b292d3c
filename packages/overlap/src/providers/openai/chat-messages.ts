/**
 * The conversation (kept in the Messages API's shape) as OpenAI Chat Completions messages:
 * tool_use blocks become `tool_calls`, tool_result blocks become `tool` messages (placed first, as
 * they answer the previous assistant message), thinking and provider-side blocks are dropped (Chat
 * Completions has no place for them). A user's images and files become content parts
 * (`image_url`, `input_audio`, `file`); one Chat Completions cannot carry (a document at a URL)
 * ends the turn with an error naming it.
 */

import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { isMediaBlock } from "../../agent/media-parts.js";
import { openAIChatMediaPart } from "../../agent/openai-chat-messages.js";
import type { Message, TextBlock } from "../../stream/message.js";

/** Chat Completions messages for a system prompt and a conversation. */
export function toChatMessages(
  system: string | undefined,
  messages: readonly Message[],
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system) out.push({ role: "system", content: system });
  for (const [index, message] of messages.entries()) {
    if (message.role === "user") {
      if (typeof message.content === "string") {
        out.push({ role: "user", content: message.content });
        continue;
      }
      if (message.content.some(isMediaBlock)) {
        const parts: ChatCompletionContentPart[] = [];
        message.content.forEach((block, j) => {
          if (block.type === "tool_result") {
            const content = resultText(block.content);
            out.push({ role: "tool", tool_call_id: block.tool_use_id, content });
          } else if (block.type === "text") parts.push({ type: "text", text: block.text });
          else if (isMediaBlock(block)) parts.push(openAIChatMediaPart(block, index, j, true));
        });
        out.push({ role: "user", content: parts });
        continue;
      }
      const texts: string[] = [];
      for (const block of message.content) {
        if (block.type === "tool_result") {
          out.push({
            role: "tool",
            tool_call_id: block.tool_use_id,
            content: resultText(block.content),
          });
        } else if (block.type === "text") {
          texts.push(block.text);
        }
      }
      if (texts.length > 0) out.push({ role: "user", content: texts.join("\n\n") });
      continue;
    }
    const text = message.content
      .filter((b): b is TextBlock => b.type === "text")
      .map((b) => b.text)
      .join("");
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
    if (text === "" && calls.length === 0) continue;
    out.push({
      role: "assistant",
      content: text === "" ? null : text,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    });
  }
  return out;
}

function resultText(content: string | TextBlock[]): string {
  return typeof content === "string" ? content : content.map((b) => b.text).join("\n");
}
