/**
 * Cleaning a conversation of what only the OpenAI Responses API reads, for every other adapter's
 * request (the Messages API's among them): shared by the adapters, so it sits below them.
 */

import type { AssistantContentBlock, Citation, Message, TextBlock } from "../stream/message.js";

/**
 * The conversation without what only the Responses API reads (`openai_reasoning` blocks,
 * provider-side items: `openai_tool_result` blocks and the `server_tool_use` blocks they answer,
 * the `openai_item` fields, the API's annotations among a text's citations), for the other
 * adapters' requests. Messages without any are returned by identity (and the list too, when
 * nothing changed); an assistant message left empty is dropped.
 */
export function withoutResponsesData(messages: readonly Message[]): readonly Message[] {
  let out: Message[] | undefined;
  messages.forEach((message, i) => {
    if (message.role !== "assistant" || !message.content.some(hasResponsesData)) {
      out?.push(message);
      return;
    }
    out ??= messages.slice(0, i);
    const providerItems = new Set(
      message.content.flatMap((b) => (b.type === "openai_tool_result" ? [b.tool_use_id] : [])),
    );
    const content = message.content.flatMap((block): AssistantContentBlock[] => {
      if (block.type === "openai_reasoning" || block.type === "openai_tool_result") return [];
      if (block.type === "server_tool_use" && providerItems.has(block.id)) return [];
      if (block.type === "text" && (block.openai_item || hasAnnotations(block))) {
        const { openai_item: _fields, ...rest } = block;
        if (!hasAnnotations(block)) return [rest];
        const { citations, ...bare } = rest;
        const kept = (citations ?? []).filter((c) => !isAnnotation(c));
        return [kept.length > 0 ? { ...bare, citations: kept } : bare];
      }
      if (block.type === "tool_use" && block.openai_item) {
        const { openai_item: _fields, ...rest } = block;
        return [rest];
      }
      return [block];
    });
    if (content.length > 0) out.push({ role: "assistant", content });
  });
  return out ?? messages;
}

function hasResponsesData(block: AssistantContentBlock): boolean {
  return (
    block.type === "openai_reasoning" ||
    block.type === "openai_tool_result" ||
    ((block.type === "text" || block.type === "tool_use") && block.openai_item !== undefined) ||
    (block.type === "text" && hasAnnotations(block))
  );
}

/** The Responses API's `output_text` annotation types, kept among a text block's citations. */
const ANNOTATION_TYPES: ReadonlySet<unknown> = new Set([
  "url_citation",
  "file_citation",
  "container_file_citation",
  "file_path",
]);

function isAnnotation(citation: Citation): boolean {
  return ANNOTATION_TYPES.has(citation.type);
}

function hasAnnotations(block: TextBlock): boolean {
  return block.citations?.some(isAnnotation) ?? false;
}
