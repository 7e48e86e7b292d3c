/**
 * The Bedrock `ConverseStream` request for a neutral request (pure). The conversation is kept in
 * the Messages API's shape; here it becomes Converse `messages`:
 *
 * - user messages: text → `{ text }`; each tool_result → `{ toolResult: { toolUseId, content:
 *   [{ text }], status: "error" } }` (`status` only for an error result; an empty result has no
 *   content block, as Converse rejects blank text); inline images (PNG, JPEG, GIF, WebP) →
 *   `{ image: { format, source: { bytes } } }`; inline documents of the formats Converse reads
 *   (PDF, CSV, Word, Excel, HTML, Markdown, text) → `{ document: { format, name, source: {
 *   bytes } } }`; any other file, or one at a URL, ends the turn with an error naming the part;
 * - assistant messages: text → `{ text }` (blank text left out, Converse rejects it); tool_use →
 *   `{ toolUse: { toolUseId, name, input } }`; thinking with a signature → `{ reasoningContent: {
 *   reasoningText: { text, signature } } }` and redacted_thinking → `{ reasoningContent: {
 *   redactedContent } }` (its base64 `data` as bytes), in place: Bedrock requires Claude's
 *   reasoning back in a tool loop. Bedrock's own provider-side tool use (a `server_tool_use`
 *   block answered by a `bedrock_tool_result` block of the same message) → `{ toolUse: {
 *   toolUseId, name, input, type: "server_tool_use" } }` and the `toolResult` as received, in
 *   place; text with Bedrock citations → `{ citationsContent: { content: [{ text }], citations }
 *   }` (each citation as the stream gave it).
 * - What only other providers read is left out: thinking without a signature (Gemini thoughts,
 *   Chat Completions reasoning), OpenAI `openai_reasoning` blocks, other providers' provider-side
 *   tool blocks and citations; the fields `thoughtSignature` and `openai_item` are never copied
 *   (blocks are rebuilt).
 * - Call ids outside Converse's pattern (`[a-zA-Z0-9_-]{1,64}`, e.g. some Chat Completions
 *   servers' `functions.f:0`) are rewritten the same way on the call and on its result.
 * - A message left with no blocks is left out, and consecutive messages of the same role are
 *   joined: Converse requires roles to alternate.
 * - `system` → `system: [{ text }]`; tools → `toolConfig.tools[].toolSpec` `{ name, description,
 *   inputSchema: { json } }`, then the provider's own tools (`providerTools`, e.g. `{ systemTool:
 *   { name: "nova_code_interpreter" } }`), then any `toolConfig.tools` in `params`: all sent
 *   together; the output limit → `inferenceConfig.maxTokens`; the tool choice →
 *   `toolConfig.toolChoice` (`auto`, `any` for `required`, `tool`; Converse has no `none`: the
 *   client tools are left out when the conversation holds no tool blocks, else they stay
 *   offered, as Converse requires `toolConfig` then, with the default choice).
 */

import type {
  ContentBlock,
  Message as ConverseMessage,
  ConverseStreamCommandInput,
  DocumentFormat,
  ToolChoice as ConverseToolChoice,
  ImageFormat,
  Tool,
} from "@aws-sdk/client-bedrock-runtime";
import {
  base64OfSource,
  isMediaBlock,
  type MediaBlock,
  unsupportedMedia,
} from "../../agent/media-parts.js";
import type { ModelRequest } from "../../agent/model-client.js";
import type { ToolChoice } from "../../agent/tool-choice.js";
import type { AssistantContentBlock, Citation, Message, TextBlock } from "../../stream/message.js";
import { BEDROCK_CITATION, BEDROCK_TOOL_RESULT } from "./bedrock-stream-translator.js";

/**
 * ConverseStream's own request fields, typed by the AWS SDK: `inferenceConfig` (temperature,
 * topP, stopSequences; merged with the runtime's `maxTokens`), `additionalModelRequestFields`
 * (e.g. Claude's `{ thinking: { type: "enabled", budget_tokens } }`), `guardrailConfig`,
 * `performanceConfig`, `promptVariables`, `requestMetadata`... The runtime owns the model id, the
 * messages, the system prompt and `toolConfig` (the tools, and `toolChoice`).
 */
export type BedrockProviderOptions = Partial<
  Omit<ConverseStreamCommandInput, "modelId" | "messages" | "system" | "toolConfig">
>;

/** Options of {@link converseStreamInput}. */
export interface BedrockRequestOptions {
  /** The model id, inference profile or ARN. */
  modelId: string;
  /** `inferenceConfig.maxTokens` unless the request sets a limit. */
  maxTokens?: number;
  /**
   * ConverseStream's own request fields, typed (see {@link BedrockProviderOptions}).
   */
  providerOptions?: BedrockProviderOptions;
  /**
   * Extra request fields: `inferenceConfig` (merged), `additionalModelRequestFields` (e.g.
   * Claude's `thinking`), `toolConfig` (its tools are added), `guardrailConfig`...
   * @deprecated Use `providerOptions` (the same fields, without the ones the runtime owns), and
   * `toolChoice` instead of `toolConfig.toolChoice`.
   */
  params?: Partial<Omit<ConverseStreamCommandInput, "modelId" | "messages">>;
  /**
   * The provider's own tools, sent in `toolConfig.tools` beside the toolSpecs of the request's
   * tools: Converse `Tool` members such as `{ systemTool: { name: "nova_code_interpreter" } }`
   * or `{ systemTool: { name: "nova_grounding" } }`. Their calls run at the service and come
   * back as `server_tool_use` + `bedrock_tool_result` blocks.
   */
  providerTools?: readonly Tool[];
}

/** The ConverseStream input for a neutral request. */
export function converseStreamInput(
  request: ModelRequest,
  options: BedrockRequestOptions,
): ConverseStreamCommandInput {
  const params = options.params ?? {};
  const typed = options.providerOptions ?? {};
  const input: ConverseStreamCommandInput = {
    ...params,
    ...typed,
    modelId: options.modelId,
    messages: toConverseMessages(request.messages),
  };
  const inference = { ...params.inferenceConfig, ...typed.inferenceConfig };
  if (Object.keys(inference).length > 0) input.inferenceConfig = inference;
  if (request.system) input.system = [{ text: request.system }];
  const choice = request.toolChoice;
  // Converse has no `none`: leave the client tools out, unless the conversation needs them.
  const offered = choice === "none" && !holdsToolBlocks(input.messages ?? []) ? [] : request.tools;
  const tools: Tool[] = offered.map(
    (tool): Tool => ({
      toolSpec: {
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        inputSchema: { json: tool.input_schema as never },
      },
    }),
  );
  tools.push(...(options.providerTools ?? []), ...(params.toolConfig?.tools ?? []));
  if (tools.length > 0) {
    input.toolConfig = { ...params.toolConfig, tools };
    const toolChoice = choice === undefined ? undefined : converseToolChoice(choice);
    if (toolChoice) input.toolConfig.toolChoice = toolChoice;
  }
  const limit = request.maxTokens ?? options.maxTokens;
  if (limit !== undefined) input.inferenceConfig = { ...inference, maxTokens: limit };
  return input;
}

/** Converse's `toolChoice` for a neutral one; undefined for `none`, which Converse lacks. */
export function converseToolChoice(choice: ToolChoice): ConverseToolChoice | undefined {
  if (typeof choice === "object") return { tool: { name: choice.toolName } };
  if (choice === "required") return { any: {} };
  return choice === "auto" ? { auto: {} } : undefined;
}

function holdsToolBlocks(messages: readonly ConverseMessage[]): boolean {
  return messages.some((m) => (m.content ?? []).some((b) => "toolUse" in b || "toolResult" in b));
}

/** The conversation as Converse `messages` (see the module comment). */
export function toConverseMessages(messages: readonly Message[]): ConverseMessage[] {
  const out: ConverseMessage[] = [];
  for (const [index, message] of messages.entries()) {
    const content =
      message.role === "user"
        ? userContent(message.content, index)
        : assistantContent(message.content);
    if (content.length === 0) continue;
    const last = out.at(-1);
    if (last?.role === message.role) last.content = [...(last.content ?? []), ...content];
    else out.push({ role: message.role, content });
  }
  return out;
}

function userContent(
  content: Extract<Message, { role: "user" }>["content"],
  index: number,
): ContentBlock[] {
  if (typeof content === "string") return content.trim() === "" ? [] : [{ text: content }];
  const blocks: ContentBlock[] = [];
  for (const [j, block] of content.entries()) {
    if (isMediaBlock(block)) {
      blocks.push(mediaContent(block, index, j));
    } else if (block.type === "text") {
      const text = String(block.text ?? "");
      if (text.trim() !== "") blocks.push({ text });
    } else if (block.type === "tool_result") {
      const text = resultText(block.content as string | TextBlock[]);
      blocks.push({
        toolResult: {
          toolUseId: converseId(String(block.tool_use_id)),
          content: text.trim() === "" ? [] : [{ text }],
          ...(block.is_error === true ? { status: "error" as const } : {}),
        },
      });
    }
  }
  return blocks;
}

function assistantContent(content: readonly AssistantContentBlock[]): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  // Provider-side calls Bedrock ran itself: those a bedrock_tool_result of this message answers.
  const served = new Set(
    content.flatMap((b) =>
      (b.type as string) === BEDROCK_TOOL_RESULT && "tool_use_id" in b
        ? [String(b.tool_use_id)]
        : [],
    ),
  );
  for (const block of content) {
    if ((block.type as string) === BEDROCK_TOOL_RESULT) {
      const result = (block as { content?: unknown }).content;
      if (typeof result === "object" && result !== null) {
        blocks.push({ toolResult: structuredClone(result) as never });
      }
    } else if (block.type === "server_tool_use") {
      if (!served.has(block.id)) continue; // another provider's
      blocks.push({
        toolUse: {
          toolUseId: block.id,
          name: block.name,
          input: block.input as never,
          type: "server_tool_use",
        },
      });
    } else if (block.type === "text") {
      if (block.text.trim() === "") continue;
      const citations = (block.citations ?? []).filter(isBedrockCitation);
      if (citations.length === 0) blocks.push({ text: block.text });
      else {
        blocks.push({
          citationsContent: {
            content: [{ text: block.text }],
            citations: citations.map(({ type: _type, ...fields }) => fields) as never,
          },
        });
      }
    } else if (block.type === "thinking") {
      // Thinking without a signature (another provider's) cannot be sent back.
      if (block.signature === "") continue;
      blocks.push({
        reasoningContent: { reasoningText: { text: block.thinking, signature: block.signature } },
      });
    } else if (block.type === "redacted_thinking") {
      blocks.push({ reasoningContent: { redactedContent: fromBase64(block.data) } });
    } else if (block.type === "tool_use") {
      blocks.push({
        toolUse: { toolUseId: converseId(block.id), name: block.name, input: block.input as never },
      });
    }
  }
  return blocks;
}

function isBedrockCitation(citation: Citation): boolean {
  return citation.type === BEDROCK_CITATION;
}

const IMAGE_FORMATS: Readonly<Record<string, ImageFormat>> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
};

const DOCUMENT_FORMATS: Readonly<Record<string, DocumentFormat>> = {
  "application/pdf": "pdf",
  "text/csv": "csv",
  "application/msword": "doc",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.ms-excel": "xls",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
  "text/html": "html",
  "text/markdown": "md",
  "text/plain": "txt",
};

const TAKES =
  "inline images (PNG, JPEG, GIF, WebP) and inline documents (PDF, CSV, DOC, DOCX, XLS, XLSX, HTML, Markdown, text)";

/** An image or a document as a Converse content block (see the module comment). */
function mediaContent(block: MediaBlock, index: number, part: number): ContentBlock {
  const data = base64OfSource(block.source);
  const mediaType = block.source.media_type ?? "";
  const refused = () => unsupportedMedia(index, part, block, "Amazon Bedrock Converse", TAKES);
  if (data === undefined) throw refused();
  if (block.type === "image") {
    const format = IMAGE_FORMATS[mediaType];
    if (format === undefined) throw refused();
    return { image: { format, source: { bytes: fromBase64(data) } } };
  }
  const format = DOCUMENT_FORMATS[mediaType];
  if (format === undefined) throw refused();
  return {
    document: {
      format,
      name: documentName(block.title, index, part),
      source: { bytes: fromBase64(data) },
    },
  };
}

/**
 * A document's name as Converse takes it (letters, digits, single spaces, hyphens, parentheses,
 * square brackets; the extension goes: the format says it).
 */
function documentName(title: string | null | undefined, index: number, part: number): string {
  const base = (title ?? "").replace(/\.[a-z0-9]{1,5}$/i, "");
  const name = base
    .replace(/[^a-zA-Z0-9\s\-()[\]]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 200);
  return name === "" ? `document ${index}-${part}` : name;
}

/** A call id as Converse accepts it (`[a-zA-Z0-9_-]{1,64}`); valid ids are kept as they are. */
export function converseId(id: string): string {
  if (/^[a-zA-Z0-9_-]{1,64}$/.test(id)) return id;
  const safe = id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  return safe === "" ? "tooluse_empty" : safe;
}

function resultText(content: string | TextBlock[]): string {
  return typeof content === "string"
    ? content
    : content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
}

/** Bytes of base64 text (no Buffer: the SDK also runs in browsers). */
function fromBase64(data: string): Uint8Array {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
