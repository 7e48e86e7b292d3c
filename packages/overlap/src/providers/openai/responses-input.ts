/**
 * The conversation (kept in the Messages API's shape) as OpenAI Responses API input items, and
 * back out of other adapters' requests:
 *
 * - user text → a user message item; tool_result blocks → `function_call_output` items by
 *   `call_id` (placed first, as they answer the previous assistant message), their text joined;
 * - assistant text → an assistant message item (the text blocks of one output item, as recorded
 *   in `openai_item`, become that one item again, with its id and `phase`), each part's
 *   citations as its `annotations` (the API takes them back on `output_text`); tool_use →
 *   `function_call` items (`call_id`, `name`, `arguments` as JSON text, the item's `id`);
 *   `openai_reasoning` blocks → their item, unchanged, in place; `openai_tool_result` blocks →
 *   their provider-side item (web search, file search, code interpreter, MCP...), unchanged, in
 *   place (the `server_tool_use` block before each, its call shown, adds nothing);
 * - a user's images → `input_image` (a URL, or a `data:` URL), other files → `input_file`
 *   (`file_data` as a `data:` URL with the file's name, or `file_url`); audio, which a message
 *   item cannot hold, ends the turn with an error naming the part;
 * - Anthropic-only blocks (thinking, server tools and their results) have no place here and are
 *   left out.
 *
 * A reasoning item must be followed by the item it preceded (a message, a function call or a
 * provider-side item): one that is not (a response cut right after its reasoning) is left out
 * rather than rejected.
 */

import type {
  EasyInputMessage,
  ResponseFunctionToolCall,
  ResponseInputContent,
  ResponseInputItem,
  ResponseOutputMessage,
  ResponseOutputText,
} from "openai/resources/responses/responses";
import {
  isKnownSource,
  isMediaBlock,
  type MediaBlock,
  unsupportedMedia,
  urlOfSource,
} from "../../agent/media-parts.js";
import { fileNameOf } from "../../agent/openai-chat-messages.js";
import type {
  AssistantMessage,
  Message,
  OpenAIItemFields,
  TextBlock,
  UserMessage,
} from "../../stream/message.js";

/** Responses API input items for a conversation (the system prompt goes to `instructions`). */
export function toResponsesInput(messages: readonly Message[]): ResponseInputItem[] {
  const out: ResponseInputItem[] = [];
  for (const [index, message] of messages.entries()) {
    if (message.role === "user") out.push(...userItems(message, index));
    else out.push(...assistantItems(message));
  }
  return out;
}

function userItems(message: UserMessage, index: number): ResponseInputItem[] {
  if (typeof message.content === "string") return [{ role: "user", content: message.content }];
  const items: ResponseInputItem[] = [];
  const texts: string[] = [];
  if (message.content.some(isMediaBlock)) {
    const content: ResponseInputContent[] = [];
    message.content.forEach((block, j) => {
      if (block.type === "tool_result") {
        items.push({
          type: "function_call_output",
          call_id: block.tool_use_id,
          output: resultText(block.content),
        });
      } else if (block.type === "text") content.push({ type: "input_text", text: block.text });
      else if (isMediaBlock(block)) content.push(responsesMediaPart(block, index, j));
    });
    items.push({ role: "user", content });
    return items;
  }
  for (const block of message.content) {
    if (block.type === "tool_result") {
      items.push({
        type: "function_call_output",
        call_id: block.tool_use_id,
        output: resultText(block.content),
      });
    } else if (block.type === "text") {
      texts.push(block.text);
    }
  }
  if (texts.length === 1) items.push({ role: "user", content: texts[0]! });
  else if (texts.length > 1) {
    items.push({
      role: "user",
      content: texts.map((text) => ({ type: "input_text" as const, text })),
    });
  }
  return items;
}

function assistantItems(message: AssistantMessage): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  /** The output message being rebuilt from consecutive text blocks of one item. */
  let open: { id: unknown; item: ResponseOutputMessage } | undefined;
  for (const block of message.content) {
    if (block.type !== "text") open = undefined;
    switch (block.type) {
      case "text": {
        const fields = block.openai_item;
        if (fields?.id === undefined) {
          open = undefined;
          items.push({ role: "assistant", content: block.text } satisfies EasyInputMessage);
          break;
        }
        const part = {
          type: "output_text" as const,
          text: block.text,
          annotations: structuredClone(block.citations ?? []) as unknown as Annotations,
        };
        if (open !== undefined && open.id === fields.id) {
          open.item.content.push(part);
          break;
        }
        const item = {
          ...fields,
          type: "message",
          role: "assistant",
          status: "completed",
          content: [part],
        } as unknown as ResponseOutputMessage;
        open = { id: fields.id, item };
        items.push(item);
        break;
      }
      case "tool_use":
        items.push(functionCall(block.id, block.name, block.input, block.openai_item));
        break;
      case "openai_reasoning":
        items.push(structuredClone(block.item) as unknown as ResponseInputItem);
        break;
      case "openai_tool_result":
        items.push(structuredClone(block.content) as unknown as ResponseInputItem);
        break;
      default:
        // Thinking, server tool calls (a provider-side item goes with its result block) and the
        // Messages API's own results.
        break;
    }
  }
  return withFollowedReasoning(items);
}

/** The annotations of an `output_text` part (the block's citations, as the API sent them). */
type Annotations = ResponseOutputText["annotations"];

function functionCall(
  callId: string,
  name: string,
  input: Readonly<Record<string, unknown>>,
  fields: OpenAIItemFields | undefined,
): ResponseFunctionToolCall {
  return {
    ...fields,
    type: "function_call",
    call_id: callId,
    name,
    arguments: JSON.stringify(input),
  };
}

/** Leaves out each reasoning item not directly followed by the item it preceded. */
function withFollowedReasoning(items: readonly ResponseInputItem[]): ResponseInputItem[] {
  return items.filter((item, i) => {
    if (itemType(item) !== "reasoning") return true;
    const next = items[i + 1];
    return next !== undefined && itemType(next) !== "reasoning";
  });
}

function itemType(item: ResponseInputItem): string {
  const type = (item as { type?: unknown }).type;
  return typeof type === "string" ? type : "message";
}

function resultText(content: string | TextBlock[]): string {
  return typeof content === "string" ? content : content.map((b) => b.text).join("\n");
}

/** An image or a file as a Responses API input part (see the module comment). */
function responsesMediaPart(block: MediaBlock, index: number, part: number): ResponseInputContent {
  const source = block.source;
  const audio = (source.media_type ?? "").startsWith("audio/");
  if (!isKnownSource(source) || (block.type === "document" && audio)) {
    throw unsupportedMedia(
      index,
      part,
      block,
      "the OpenAI Responses API",
      "images and files (PDFs, text...) inline or at a URL; no audio in a message",
    );
  }
  if (block.type === "image") {
    return { type: "input_image", image_url: urlOfSource(source), detail: "auto" };
  }
  // The API asks for a name with inline data.
  const filename = block.title || fileNameOf(block, index, part);
  return source.type === "url"
    ? { type: "input_file", file_url: source.url, ...(block.title ? { filename } : {}) }
    : { type: "input_file", file_data: urlOfSource(source), filename };
}
