/**
 * The Gemini API request body for a neutral request (pure). The conversation is kept in the
 * Messages API's shape; here it becomes `contents`:
 *
 * - user messages → `role: "user"`: text → `{ text }`, inline images and files → `inlineData`,
 *   files at a URL → `fileData` (which needs the media type; one without ends the turn with an
 *   error naming the part), a plain text document → `{ text }`, each
 *   tool_result → a `functionResponse` part `{ name, response: { result } }` (`{ error }` for an
 *   error result), placed first. Gemini pairs responses with calls by name and position, so the
 *   name is looked up from the tool_use the result answers;
 * - assistant messages → `role: "model"`: text → `{ text }`, tool_use → `{ functionCall: { name,
 *   args } }`, each with its `thoughtSignature` when the block kept one (the signature goes back on
 *   the part it came with, as the API requires for function calls). Thinking without an Anthropic
 *   signature (Gemini's thoughts) → `{ text, thought: true }` (`{ text: "", thoughtSignature }`
 *   for a signature that came without text); Gemini's own provider-side code execution (a
 *   `server_tool_use` block holding its `gemini_part`, a `gemini_tool_result` block) → the
 *   `executableCode` / `codeExecutionResult` parts exactly as received (their `thoughtSignature`
 *   included), in place. Claude's signed thinking, redacted thinking, other providers' server
 *   tool blocks and the grounding metadata (the API takes no grounding back) mean nothing to
 *   Gemini and are left out; so are text citations. A message left with no parts is left out.
 * - A call id the API gave (`functionCall.id`) is sent back on the call and on its response; ids
 *   overlap made up (`gemini-…`) are not, as the API never saw them.
 * - `system` → `systemInstruction`; tools → one `functionDeclarations` tool with
 *   `parametersJsonSchema` (plain JSON Schema, as tools define it; the older `parameters` field
 *   takes only an OpenAPI subset and rejects keywords such as `additionalProperties`), then the
 *   provider's own tools (`providerTools`: `{ codeExecution: {} }`, `{ googleSearch: {} }`...),
 *   then any `tools` in `params`: all sent together; the output limit →
 *   `generationConfig.maxOutputTokens`.
 */

import { isMediaBlock, type MediaBlock, unsupportedMedia } from "../../agent/media-parts.js";
import type { ModelRequest } from "../../agent/model-client.js";
import type { ToolChoice } from "../../agent/tool-choice.js";
import type { AssistantContentBlock, Message, TextBlock } from "../../stream/message.js";
import { GEMINI_TOOL_RESULT } from "./gemini-chunk-translator.js";

/** One part of a Gemini `Content`. */
export type GeminiRequestPart = Record<string, unknown>;

/** One Gemini `Content`. */
export interface GeminiContent {
  role: "user" | "model";
  parts: GeminiRequestPart[];
}

/** The body of a `generateContent` / `streamGenerateContent` request. */
export interface GeminiRequestBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: Array<{ text: string }> };
  tools?: Array<Record<string, unknown>>;
  generationConfig?: Record<string, unknown>;
  [field: string]: unknown;
}

/** The prefix of call ids overlap makes up for calls the API gave no id. */
export const GEMINI_SYNTHETIC_ID_PREFIX = "gemini-";

/**
 * Gemini's own request fields (the API's names; no SDK types them here, as `@google/genai` needs
 * Node 22): `generationConfig` (merged with what the runtime sets), `safetySettings`,
 * `cachedContent`, `labels`. The runtime owns the contents, the system instruction, the function
 * declarations, `toolConfig.functionCallingConfig` (`toolChoice`), the response schema
 * (`output`) and `maxOutputTokens` (`maxTokens`).
 */
export interface GeminiProviderOptions {
  generationConfig?: GeminiGenerationConfig;
  safetySettings?: ReadonlyArray<{ category: string; threshold: string }>;
  /** A cached content's name (`cachedContents/…`). */
  cachedContent?: string;
  labels?: Readonly<Record<string, string>>;
}

/** `generationConfig` fields a caller sets (the API's names). */
export interface GeminiGenerationConfig {
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  stopSequences?: readonly string[];
  presencePenalty?: number;
  frequencyPenalty?: number;
  candidateCount?: number;
  responseLogprobs?: boolean;
  logprobs?: number;
  /** Thinking: a budget in tokens (0 off, -1 dynamic) or a level, and whether thoughts are sent. */
  thinkingConfig?: {
    thinkingBudget?: number;
    thinkingLevel?: "minimal" | "low" | "medium" | "high";
    includeThoughts?: boolean;
  };
  mediaResolution?: string;
  /** Any field the API adds later. */
  [field: string]: unknown;
}

/** Options of {@link geminiRequestBody}. */
export interface GeminiRequestOptions {
  /** `generationConfig.maxOutputTokens` unless the request sets a limit. */
  maxTokens?: number;
  /** The provider's own request fields, typed (see {@link GeminiProviderOptions}). */
  providerOptions?: GeminiProviderOptions;
  /**
   * Extra request fields, untyped (`generationConfig` is merged).
   * @deprecated Use the typed `providerOptions`; `params` stays for fields not named there, and
   * `toolChoice` replaces `params.toolConfig`.
   */
  params?: Record<string, unknown>;
  /**
   * The provider's own tools, sent beside the function declarations of the request's tools:
   * Gemini `Tool` objects such as `{ codeExecution: {} }`, `{ googleSearch: {} }`,
   * `{ urlContext: {} }`. Their calls run at Google and come back as server tool blocks.
   */
  providerTools?: ReadonlyArray<Record<string, unknown>>;
}

/** The request body for a neutral request. */
export function geminiRequestBody(
  request: ModelRequest,
  options: GeminiRequestOptions = {},
): GeminiRequestBody {
  const typed = options.providerOptions ?? {};
  const untyped = options.params ?? {};
  const params: Record<string, unknown> = { ...untyped, ...typed };
  const body: GeminiRequestBody = { ...params, contents: toGeminiContents(request.messages) };
  if (request.system) body.systemInstruction = { parts: [{ text: request.system }] };
  const tools: Array<Record<string, unknown>> = [];
  if (request.tools.length > 0) {
    tools.push({
      functionDeclarations: request.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        parametersJsonSchema: tool.input_schema,
      })),
    });
  }
  tools.push(...(options.providerTools ?? []).map((tool) => ({ ...tool })));
  if (Array.isArray(params.tools)) tools.push(...(params.tools as Array<Record<string, unknown>>));
  if (tools.length > 0) body.tools = tools;
  if (request.toolChoice !== undefined) {
    const toolConfig = isObject(params.toolConfig) ? params.toolConfig : {};
    body.toolConfig = {
      ...toolConfig,
      functionCallingConfig: geminiFunctionCallingConfig(request.toolChoice),
    };
  }
  const limit = request.maxTokens ?? options.maxTokens;
  const config: Record<string, unknown> = {
    ...(isObject(untyped.generationConfig) ? untyped.generationConfig : {}),
    ...typed.generationConfig,
  };
  if (limit !== undefined) config.maxOutputTokens = limit;
  if (request.output) {
    // Plain JSON Schema (`responseJsonSchema`), as the function declarations send theirs.
    config.responseMimeType = "application/json";
    config.responseJsonSchema = request.output.schema;
  }
  if (Object.keys(config).length > 0) body.generationConfig = config;
  return body;
}

/** Gemini's `functionCallingConfig` for a neutral tool choice (`required` is its `ANY`). */
export function geminiFunctionCallingConfig(choice: ToolChoice): Record<string, unknown> {
  if (typeof choice === "object") return { mode: "ANY", allowedFunctionNames: [choice.toolName] };
  return { mode: choice === "required" ? "ANY" : choice === "none" ? "NONE" : "AUTO" };
}

/** The conversation as Gemini `contents` (see the module comment). */
export function toGeminiContents(messages: readonly Message[]): GeminiContent[] {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content)
      if (block.type === "tool_use") names.set(block.id, block.name);
  }
  const contents: GeminiContent[] = [];
  for (const [index, message] of messages.entries()) {
    const parts =
      message.role === "user"
        ? userParts(message.content, names, index)
        : modelParts(message.content);
    if (parts.length > 0)
      contents.push({ role: message.role === "user" ? "user" : "model", parts });
  }
  return contents;
}

function userParts(
  content: Extract<Message, { role: "user" }>["content"],
  names: ReadonlyMap<string, string>,
  index: number,
): GeminiRequestPart[] {
  if (typeof content === "string") return [{ text: content }];
  const responses: GeminiRequestPart[] = [];
  const others: GeminiRequestPart[] = [];
  for (const [j, block] of content.entries()) {
    if (isMediaBlock(block)) {
      others.push(mediaPart(block, index, j));
    } else if (block.type === "tool_result") {
      const id = String(block.tool_use_id);
      const text = resultText(block.content as string | TextBlock[]);
      const functionResponse: Record<string, unknown> = {
        name: names.get(id) ?? "unknown_function",
        response: block.is_error === true ? { error: text } : { result: text },
      };
      if (apiGivenId(id)) functionResponse.id = id;
      responses.push({ functionResponse });
    } else if (block.type === "text") {
      others.push({ text: String(block.text) });
    }
  }
  return [...responses, ...others];
}

/** An image or a file as a Gemini part (see the module comment). */
function mediaPart(block: MediaBlock, index: number, part: number): GeminiRequestPart {
  const source = block.source;
  if (source.type === "text") return { text: source.data };
  if (source.type === "base64") {
    return { inlineData: { mimeType: source.media_type, data: source.data } };
  }
  const mimeType = source.media_type;
  if (source.type !== "url" || !mimeType || mimeType.endsWith("/*")) {
    throw unsupportedMedia(
      index,
      part,
      block,
      "the Gemini API",
      "files inline, or at a URL with their media type (`fileData` needs one)",
    );
  }
  return { fileData: { mimeType, fileUri: source.url } };
}

function modelParts(content: readonly AssistantContentBlock[]): GeminiRequestPart[] {
  const parts: GeminiRequestPart[] = [];
  for (const block of content) {
    const signature = thoughtSignatureOf(block);
    const signed = signature === undefined ? {} : { thoughtSignature: signature };
    if (block.type === "text") {
      if (block.text.trim() !== "") parts.push({ text: block.text, ...signed });
    } else if (block.type === "thinking") {
      // Claude's thinking (signed by Anthropic) means nothing to Gemini.
      if (block.signature !== "") continue;
      if (block.thinking === "" && signature === undefined) continue;
      parts.push(
        block.thinking === ""
          ? { text: "", ...signed }
          : { text: block.thinking, thought: true, ...signed },
      );
    } else if (block.type === "tool_use") {
      const functionCall: Record<string, unknown> = { name: block.name, args: block.input };
      if (apiGivenId(block.id)) functionCall.id = block.id;
      parts.push({ functionCall, ...signed });
    } else if (block.type === "server_tool_use") {
      // Gemini's own code execution: the part as it came; other providers' calls are left out.
      const part = (block as { gemini_part?: unknown }).gemini_part;
      if (isObject(part)) parts.push(structuredClone(part));
    } else if ((block.type as string) === GEMINI_TOOL_RESULT) {
      const part = (block as { content?: unknown }).content;
      if (isObject(part)) parts.push(structuredClone(part));
    }
  }
  return parts;
}

/** The opaque `thoughtSignature` a block kept from its Gemini part. */
export function thoughtSignatureOf(block: object): string | undefined {
  const value = (block as { thoughtSignature?: unknown }).thoughtSignature;
  return typeof value === "string" && value !== "" ? value : undefined;
}

function apiGivenId(id: string): boolean {
  return id !== "" && !id.startsWith(GEMINI_SYNTHETIC_ID_PREFIX);
}

function resultText(content: string | TextBlock[]): string {
  return typeof content === "string" ? content : content.map((b) => b.text).join("\n");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
