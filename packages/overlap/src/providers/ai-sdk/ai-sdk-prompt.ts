/**
 * The conversation (kept in the Messages API's shape) as a Vercel AI SDK prompt
 * (`LanguageModelV3Prompt`, provider specification v3), and tools as V3 function tools.
 *
 * - `system` is a system message; a user message's `tool_result` blocks become one `tool` message
 *   (placed first: they answer the previous assistant message) with `tool-result` parts
 *   (`output` `text`, or `error-text` for `is_error`), its text, image and document blocks a user
 *   message (`text` and `file` parts).
 * - Assistant messages keep their order: `text` parts, `reasoning` parts (thinking; its
 *   `signature` and a `redacted_thinking` block's `data` go back as `providerOptions` under the
 *   model's provider key, e.g. `{ anthropic: { signature } }`), `tool-call` parts with the input
 *   object (`providerExecuted` for `server_tool_use`), and the results of provider-executed tools
 *   as `tool-result` parts. A block's `ai_sdk_metadata` (what the provider sent with it) is its
 *   `providerOptions`.
 * - Blank text, and blocks only other adapters read (OpenAI Responses reasoning items, and the
 *   Responses API's provider-side items: `openai_tool_result` blocks with the `server_tool_use`
 *   they answer...), are left out.
 */

import { type MediaBlock, unsupportedMedia } from "../../agent/media-parts.js";
import type { AssistantMessage, Message, ToolResultBlock } from "../../stream/message.js";
import type { ToolSpec } from "../../tools/define-tool.js";
import {
  AI_SDK_CITATION,
  AI_SDK_METADATA_FIELD,
  AI_SDK_TOOL_RESULT,
} from "./ai-sdk-stream-translator.js";
import type {
  JSONSchema7,
  JSONValue,
  LanguageModelV3FilePart,
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3TextPart,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3ToolResultPart,
  SharedV3ProviderOptions,
} from "./language-model-v3.js";

/** Options of {@link toLanguageModelV3Prompt}. */
export interface AiSdkPromptOptions {
  /**
   * The `providerOptions` key a thinking block's `signature` and a redacted_thinking block's
   * `data` are sent under (`anthropic`, `bedrock`...). Default `anthropic`.
   */
  reasoningKey?: string;
  /**
   * Provider metadata of a call whose block has none (see `onCallMetadata` of
   * `AiSdkStreamTranslator`), by call id.
   */
  callMetadata?: (callId: string) => SharedV3ProviderOptions | undefined;
}

type AssistantPart = Extract<LanguageModelV3Message, { role: "assistant" }>["content"][number];
type UserPart = LanguageModelV3TextPart | LanguageModelV3FilePart;
type ContentOutput = Extract<LanguageModelV3ToolResultOutput, { type: "content" }>["value"][number];

/** The V3 prompt for a system prompt and a conversation. */
export function toLanguageModelV3Prompt(
  system: string | undefined,
  messages: readonly Message[],
  options: AiSdkPromptOptions = {},
): LanguageModelV3Prompt {
  const reasoningKey = options.reasoningKey ?? "anthropic";
  const names = callNames(messages);
  const prompt: LanguageModelV3Prompt = [];
  if (system) prompt.push({ role: "system", content: system });
  for (const [index, message] of messages.entries()) {
    if (message.role === "assistant") {
      const content = assistantParts(message, reasoningKey, options.callMetadata);
      if (content.length > 0) prompt.push({ role: "assistant", content });
      continue;
    }
    if (typeof message.content === "string") {
      if (message.content !== "") {
        prompt.push({ role: "user", content: [{ type: "text", text: message.content }] });
      }
      continue;
    }
    const results: LanguageModelV3ToolResultPart[] = [];
    const parts: UserPart[] = [];
    for (const [j, block] of (message.content as unknown as readonly UserBlock[]).entries()) {
      if (block.type === "tool_result") {
        const result = block as unknown as ToolResultBlock;
        results.push({
          type: "tool-result",
          toolCallId: result.tool_use_id,
          toolName: names.get(result.tool_use_id) ?? "unknown_tool",
          output: toolOutput(result),
        });
      } else {
        const part = userPart(block);
        if (part) parts.push(part);
        else if (block.type === "image" || block.type === "document") {
          // A source only the Messages API reads (a Files API id): never dropped silently.
          throw unsupportedMedia(
            index,
            j,
            block as unknown as MediaBlock,
            "an AI SDK provider",
            "files inline (base64), at a URL, or plain text",
          );
        }
      }
    }
    if (results.length > 0) prompt.push({ role: "tool", content: results });
    if (parts.length > 0) prompt.push({ role: "user", content: parts });
  }
  return prompt;
}

/** Our tool definitions as V3 function tools. */
export function toLanguageModelV3Tools(tools: readonly ToolSpec[]): LanguageModelV3FunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    inputSchema: tool.input_schema as JSONSchema7,
  }));
}

/** Any block of a user message (images and documents pass through opaquely in our types). */
type UserBlock = { type: string; [field: string]: unknown };

/** Result blocks of other adapters' provider-side calls, never sent to an AI SDK provider. */
const FOREIGN_RESULT_TYPES: ReadonlySet<string> = new Set([
  "openai_tool_result",
  "gemini_tool_result",
  "bedrock_tool_result",
]);

function assistantParts(
  message: AssistantMessage,
  reasoningKey: string,
  callMetadata: AiSdkPromptOptions["callMetadata"],
): AssistantPart[] {
  const parts: AssistantPart[] = [];
  // A provider-side call answered in another adapter's own shape (an OpenAI Responses item, a
  // Gemini code execution part, a Bedrock server tool result): its call and its result go back
  // only to that provider.
  const foreignCalls = new Set(
    message.content.flatMap((b) =>
      FOREIGN_RESULT_TYPES.has(b.type) && "tool_use_id" in b ? [String(b.tool_use_id)] : [],
    ),
  );
  for (const block of message.content as unknown as readonly UserBlock[]) {
    if (block.type === "server_tool_use" && foreignCalls.has(String(block.id))) continue;
    const isCall = block.type === "tool_use" || block.type === "server_tool_use";
    const providerOptions =
      metadataOf(block) ?? (isCall ? callMetadata?.(String(block.id)) : undefined);
    const withOptions = <P extends object>(part: P, options = providerOptions) =>
      options ? { ...part, providerOptions: options } : part;
    switch (block.type) {
      case "text":
        if (typeof block.text === "string" && block.text.trim() !== "") {
          parts.push(
            withOptions({ type: "text", text: block.text }, withCitations(providerOptions, block)),
          );
        }
        break;
      case "thinking": {
        const signature = typeof block.signature === "string" ? block.signature : "";
        const options =
          signature === ""
            ? providerOptions
            : {
                ...providerOptions,
                [reasoningKey]: { ...providerOptions?.[reasoningKey], signature },
              };
        parts.push(withOptions({ type: "reasoning", text: String(block.thinking ?? "") }, options));
        break;
      }
      case "redacted_thinking":
        parts.push({
          type: "reasoning",
          text: "",
          providerOptions: {
            ...providerOptions,
            [reasoningKey]: {
              ...providerOptions?.[reasoningKey],
              redactedData: String(block.data),
            },
          },
        });
        break;
      case "tool_use":
      case "server_tool_use":
        parts.push(
          withOptions({
            type: "tool-call",
            toolCallId: String(block.id),
            toolName: String(block.name),
            input: block.input ?? {},
            ...(block.type === "server_tool_use" ? { providerExecuted: true } : {}),
          }),
        );
        break;
      case AI_SDK_TOOL_RESULT:
        parts.push({
          type: "tool-result",
          toolCallId: String(block.tool_use_id),
          toolName: String(block.name),
          output: {
            type: block.is_error ? "error-json" : "json",
            value: (block.content ?? null) as JSONValue,
          },
        });
        break;
      default:
        // Blocks of other providers' own (openai_reasoning, Anthropic server tool results...).
        break;
    }
  }
  return parts;
}

function toolOutput(block: ToolResultBlock): LanguageModelV3ToolResultOutput {
  const content = (
    typeof block.content === "string" ? [{ type: "text", text: block.content }] : block.content
  ) as readonly UserBlock[];
  const text = content
    .flatMap((b) => (b.type === "text" && typeof b.text === "string" ? [b.text] : []))
    .join("\n");
  if (block.is_error) return { type: "error-text", value: text };
  const images = content.filter((b) => b.type === "image");
  if (images.length === 0) return { type: "text", value: text };
  // Images in a result (screenshots...): the content form keeps them next to the text.
  return {
    type: "content",
    value: content.flatMap((b): ContentOutput[] => {
      if (b.type === "text" && typeof b.text === "string") return [{ type: "text", text: b.text }];
      const source = b.source as {
        type?: string;
        media_type?: string;
        data?: string;
        url?: string;
      };
      if (b.type === "image" && source?.type === "base64" && source.data) {
        return [
          { type: "image-data", data: source.data, mediaType: source.media_type ?? "image/*" },
        ];
      }
      if (b.type === "image" && source?.type === "url" && source.url) {
        return [{ type: "image-url", url: source.url }];
      }
      return [];
    }),
  };
}

/** A user text, image or document block as a V3 part; other blocks are left out. */
function userPart(block: UserBlock): UserPart | undefined {
  if (block.type === "text") {
    return typeof block.text === "string" && block.text !== ""
      ? { type: "text", text: block.text }
      : undefined;
  }
  if (block.type !== "image" && block.type !== "document") return undefined;
  const source = block.source as
    | { type?: string; media_type?: string; data?: string; url?: string }
    | undefined;
  const fallback = block.type === "image" ? "image/*" : "application/pdf";
  if (source?.type === "base64" && typeof source.data === "string") {
    return { type: "file", data: source.data, mediaType: source.media_type ?? fallback };
  }
  if (source?.type === "url" && typeof source.url === "string") {
    return { type: "file", data: new URL(source.url), mediaType: source.media_type ?? fallback };
  }
  if (source?.type === "text" && typeof source.data === "string") {
    return { type: "text", text: source.data };
  }
  return undefined;
}

/** Every call id of the conversation with its tool name (tool-result parts name the tool). */
function callNames(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) {
      if ("id" in block && "name" in block) names.set(block.id, block.name);
    }
  }
  return names;
}

/**
 * A text's `providerOptions` with the citations its provider reported (`ai_sdk_citation`), under
 * that provider's key as it reported them (`{ anthropic: { citations } }`).
 */
function withCitations(
  options: SharedV3ProviderOptions | undefined,
  block: UserBlock,
): SharedV3ProviderOptions | undefined {
  const cited = (Array.isArray(block.citations) ? block.citations : []).filter(
    (c): c is { type: string; provider: string; citation: unknown } =>
      c !== null && typeof c === "object" && c.type === AI_SDK_CITATION,
  );
  if (cited.length === 0) return options;
  const out: Record<string, Record<string, unknown>> = { ...options };
  for (const { provider, citation } of cited) {
    const own = out[provider] ?? {};
    const list = Array.isArray(own.citations) ? own.citations : [];
    out[provider] = { ...own, citations: [...list, citation] };
  }
  return out as SharedV3ProviderOptions;
}

function metadataOf(block: UserBlock): SharedV3ProviderOptions | undefined {
  const metadata = block[AI_SDK_METADATA_FIELD];
  return metadata !== null && typeof metadata === "object"
    ? (metadata as SharedV3ProviderOptions)
    : undefined;
}
