/**
 * What the Messages API must not receive from a conversation another provider took part in
 * (one conversation shape, every adapter translating at its edge). Claude rejects fields it
 * does not know on a block, and a thinking block it did not sign:
 *
 * - the opaque fields other adapters keep on blocks (`thoughtSignature` of Gemini, see
 *   `gemini-chunk-translator.ts`; `ai_sdk_metadata` of `aiSdkModel`) are removed from every block;
 * - a provider-executed call recorded through the AI SDK (`server_tool_use` answered by an
 *   `ai_sdk_tool_result` block) is left out with its result;
 * - thinking blocks with an empty `signature` (Gemini thoughts, Chat Completions reasoning) are
 *   left out: Claude signs its own thinking, and only that can be sent back. An assistant message
 *   left empty is left out too (the API joins the turns around it).
 *
 * A conversation with none of these is returned as it is (same array, same objects), so a
 * Claude-only conversation keeps its exact bytes for prompt caching.
 */

import type { AssistantContentBlock, Message } from "../stream/message.js";

/** Fields other adapters keep on blocks for their own provider. */
const FOREIGN_FIELDS = ["thoughtSignature", "ai_sdk_metadata"] as const;

/** The conversation without what only other providers understand (see the module comment). */
export function messagesForClaude(messages: readonly Message[]): readonly Message[] {
  if (!messages.some((m) => m.role === "assistant" && m.content.some(isForeign))) return messages;
  const out: Message[] = [];
  for (const message of messages) {
    if (message.role !== "assistant" || !message.content.some(isForeign)) {
      out.push(message);
      continue;
    }
    // A provider-executed call the AI SDK recorded is answered by its own result block type:
    // both go (Claude would see a server call without its result).
    const aiSdkResults = new Set(
      message.content.flatMap((b) =>
        (b.type as string) === "ai_sdk_tool_result" && "tool_use_id" in b
          ? [String(b.tool_use_id)]
          : [],
      ),
    );
    const content = message.content.flatMap((block): AssistantContentBlock[] => {
      if (block.type === "thinking" && block.signature === "") return [];
      if ((block.type as string) === "ai_sdk_tool_result") return [];
      if ("id" in block && block.type !== "tool_use" && aiSdkResults.has(block.id)) return [];
      if (!FOREIGN_FIELDS.some((field) => field in block)) return [block];
      const rest: Record<string, unknown> = { ...block };
      for (const field of FOREIGN_FIELDS) delete rest[field];
      return [rest as unknown as AssistantContentBlock];
    });
    if (content.length > 0) out.push({ ...message, content });
  }
  return out;
}

function isForeign(block: AssistantContentBlock): boolean {
  return (
    FOREIGN_FIELDS.some((field) => field in block) ||
    (block.type as string) === "ai_sdk_tool_result" ||
    (block.type === "thinking" && block.signature === "")
  );
}
