/**
 * What the Messages API must not receive from a conversation another provider took part in
 * (one conversation shape, every adapter translating at its edge). Claude rejects fields it
 * does not know on a block, and a thinking block it did not sign:
 *
 * - the opaque fields other adapters keep on blocks (`thoughtSignature` of Gemini, see
 *   `gemini-chunk-translator.ts`; `ai_sdk_metadata` of `aiSdkModel`) are removed from every block;
 * - a provider-executed call recorded through the AI SDK (`server_tool_use` answered by an
 *   `ai_sdk_tool_result` block), or by Gemini's or Bedrock's adapter (answered by a
 *   `gemini_tool_result` / `bedrock_tool_result` block), is left out with its result, and so is
 *   Gemini's grounding metadata block; their citations (`gemini_grounding`, `bedrock_citation`,
 *   `ai_sdk_citation`, an AI SDK provider's own, and `chat_url_citation`)
 *   are removed from text blocks;
 * - thinking blocks with an empty `signature` (Gemini thoughts, Chat Completions reasoning) are
 *   left out: Claude signs its own thinking, and only that can be sent back. An assistant message
 *   left empty is left out too (the API joins the turns around it).
 *
 * The user's images and documents are checked and adapted first (media-for-claude.ts).
 *
 * A conversation with none of these is returned as it is (same array, same objects), so a
 * Claude-only conversation keeps its exact bytes for prompt caching.
 */

import type { AssistantContentBlock, Message } from "../../stream/message.js";
import { mediaForClaude } from "./media-for-claude.js";

/** Fields other adapters keep on blocks for their own provider. */
const FOREIGN_FIELDS = ["thoughtSignature", "ai_sdk_metadata"] as const;

/** Result block types of other adapters' provider-side calls. */
const FOREIGN_RESULTS: ReadonlySet<string> = new Set([
  "ai_sdk_tool_result",
  "gemini_tool_result",
  "bedrock_tool_result",
]);

/** Blocks only another adapter reads, left out whole. */
const FOREIGN_BLOCKS: ReadonlySet<string> = new Set([
  ...FOREIGN_RESULTS,
  "gemini_grounding_metadata",
]);

/** Citation types of other adapters. */
const FOREIGN_CITATIONS: ReadonlySet<unknown> = new Set([
  "gemini_grounding",
  "bedrock_citation",
  "ai_sdk_citation",
  "chat_url_citation",
]);

/** The conversation without what only other providers understand (see the module comment). */
export function messagesForClaude(given: readonly Message[]): readonly Message[] {
  const messages = mediaForClaude(given);
  if (!messages.some((m) => m.role === "assistant" && m.content.some(isForeign))) return messages;
  const out: Message[] = [];
  for (const message of messages) {
    if (message.role !== "assistant" || !message.content.some(isForeign)) {
      out.push(message);
      continue;
    }
    // A provider-executed call another adapter recorded is answered by its own result block
    // type: both go (Claude would see a server call without its result).
    const foreignResults = new Set(
      message.content.flatMap((b) =>
        FOREIGN_RESULTS.has(b.type) && "tool_use_id" in b ? [String(b.tool_use_id)] : [],
      ),
    );
    const content = message.content.flatMap((block): AssistantContentBlock[] => {
      if (block.type === "thinking" && block.signature === "") return [];
      if (FOREIGN_BLOCKS.has(block.type)) return [];
      if ("id" in block && block.type !== "tool_use" && foreignResults.has(block.id)) return [];
      if (block.type === "text" && hasForeignCitations(block)) {
        const kept = (block.citations ?? []).filter((c) => !FOREIGN_CITATIONS.has(c.type));
        const { citations: _citations, ...rest } = block;
        block = kept.length > 0 ? { ...rest, citations: kept } : rest;
      }
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
    FOREIGN_BLOCKS.has(block.type) ||
    (block.type === "thinking" && block.signature === "") ||
    (block.type === "text" && hasForeignCitations(block))
  );
}

function hasForeignCitations(block: { citations?: readonly { type?: unknown }[] | null }): boolean {
  return (block.citations ?? []).some((c) => FOREIGN_CITATIONS.has(c.type));
}
