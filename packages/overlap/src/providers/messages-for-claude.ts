/**
 * What the Messages API must not receive from a conversation another provider took part in
 * (B7: one conversation shape, every adapter translating at its edge). Claude rejects fields it
 * does not know on a block, and a thinking block it did not sign:
 *
 * - the opaque `thoughtSignature` field Gemini blocks keep (see `gemini-chunk-translator.ts`) is
 *   removed from every block;
 * - thinking blocks with an empty `signature` (Gemini thoughts, Chat Completions reasoning) are
 *   left out: Claude signs its own thinking, and only that can be sent back. An assistant message
 *   left empty is left out too (the API joins the turns around it).
 *
 * A conversation with none of these is returned as it is (same array, same objects), so a
 * Claude-only conversation keeps its exact bytes for prompt caching.
 */

import type { AssistantContentBlock, Message } from "../stream/message.js";

/** The conversation without what only other providers understand (see the module comment). */
export function messagesForClaude(messages: readonly Message[]): readonly Message[] {
  if (!messages.some((m) => m.role === "assistant" && m.content.some(isForeign))) return messages;
  const out: Message[] = [];
  for (const message of messages) {
    if (message.role !== "assistant" || !message.content.some(isForeign)) {
      out.push(message);
      continue;
    }
    const content = message.content.flatMap((block): AssistantContentBlock[] => {
      if (block.type === "thinking" && block.signature === "") return [];
      if (!("thoughtSignature" in block)) return [block];
      const { thoughtSignature: _dropped, ...rest } = block as AssistantContentBlock & {
        thoughtSignature?: unknown;
      };
      return [rest as AssistantContentBlock];
    });
    if (content.length > 0) out.push({ ...message, content });
  }
  return out;
}

function isForeign(block: AssistantContentBlock): boolean {
  return "thoughtSignature" in block || (block.type === "thinking" && block.signature === "");
}
