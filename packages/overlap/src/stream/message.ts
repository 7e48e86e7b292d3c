/**
 * Conversation content in the Messages API's shape. overlap keeps the conversation in this one
 * shape whatever the provider; adapters for other wire formats translate at their edge.
 *
 * Round-trip fidelity: a block keeps every field the API sent, also fields these types do not
 * name (the next request must replay what the API produced), and the runtime never adds one.
 */

/** A citation attached to a text block (kept opaque: the UI and the API read it, we do not). */
export type Citation = Readonly<Record<string, unknown>>;

/** Model-written text. */
export interface TextBlock {
  type: "text";
  text: string;
  citations?: Citation[] | null;
  /** See {@link OpenAIItemFields}. */
  openai_item?: OpenAIItemFields;
  /** See {@link GeminiThoughtSignature}. */
  thoughtSignature?: GeminiThoughtSignature;
}

/** Extended thinking; the signature must be sent back unchanged. */
export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  signature: string;
  /** See {@link GeminiThoughtSignature}. */
  thoughtSignature?: GeminiThoughtSignature;
}

/**
 * Gemini API only: the opaque `thoughtSignature` of the part a text, thinking or tool_use block
 * came from (encrypted reasoning state). `geminiModel` sends it back on the same part, as the API
 * requires for function calls. Gemini thoughts are thinking blocks with an empty `signature`
 * (that field is Anthropic's); a signature that came on a part without text is a thinking block
 * with no text that carries only it. The Messages API adapter removes the field and leaves out
 * thinking without an Anthropic signature; the other adapters never send it.
 */
export type GeminiThoughtSignature = string;

/** Thinking the provider encrypted; opaque, sent back unchanged. */
export interface RedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}

/** A call of a local tool. `input` is the strictly parsed object (or `{}` when it never parsed). */
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Readonly<Record<string, unknown>>;
  /** Who made the call when it was not the model itself (programmatic tool calling); opaque. */
  caller?: Readonly<Record<string, unknown>>;
  /** See {@link OpenAIItemFields}. */
  openai_item?: OpenAIItemFields;
  /** See {@link GeminiThoughtSignature}. */
  thoughtSignature?: GeminiThoughtSignature;
}

/**
 * OpenAI Responses API only: the fields of the output item a text or tool_use block came from
 * that the block does not already hold: always its `id` (`msg_…` for a message, `fc_…` for a
 * function call, whose `call_id` is the block's `id`), and whatever else the item carried when
 * it started (`phase` on messages, `namespace` on calls...); never `type`, `status`, `role`,
 * `content`, `call_id`, `name` or `arguments`. `openaiResponsesModel` sends them back with the
 * item (text blocks of one message item become that one item again), because the API pairs each
 * reasoning item with the item that followed it by these ids, and asks for `phase` back. Every
 * other adapter leaves them out of its requests.
 */
export type OpenAIItemFields = Readonly<Record<string, unknown>>;

/**
 * OpenAI Responses API only: one `reasoning` output item, kept whole and opaque. `item` is the
 * item exactly as received in `response.output_item.done` (`id`, `summary`, `encrypted_content`,
 * every other field); `openaiResponsesModel` sends it back unchanged, in its place among the
 * message's items, so a stateless (`store: false`) conversation keeps the model's reasoning.
 *
 * It arrives whole (one block start and stop once the item is done, never as thinking deltas:
 * the summary text is in `item.summary`). It is not a `thinking` block on purpose: it has no
 * Anthropic signature, and every other adapter (Messages API, Chat Completions) leaves it out of
 * its requests. `validateConversation` and `repairConversation` treat it like any non-text,
 * non-call block (kept, never checked).
 */
export interface OpenAIReasoningBlock {
  type: "openai_reasoning";
  item: Readonly<Record<string, unknown>>;
}

/** A call of a provider-side tool (e.g. web search): recorded, never executed locally. */
export interface ServerToolUseBlock {
  type: "server_tool_use";
  id: string;
  name: string;
  input: Readonly<Record<string, unknown>>;
  caller?: Readonly<Record<string, unknown>>;
}

/** A call the provider makes to a remote MCP server (MCP connector): never executed locally. */
export interface McpToolUseBlock {
  type: "mcp_tool_use";
  id: string;
  name: string;
  server_name: string;
  input: Readonly<Record<string, unknown>>;
}

/** Any block that calls a tool: a local `tool_use` or a call the provider runs itself. */
export type CallBlock = ToolUseBlock | ServerToolUseBlock | McpToolUseBlock;

/** Result types of provider-side tools; such blocks arrive whole at block start. */
export type ServerToolResultType =
  | "web_search_tool_result"
  | "web_fetch_tool_result"
  | "code_execution_tool_result"
  | "bash_code_execution_tool_result"
  | "text_editor_code_execution_tool_result"
  | "mcp_tool_result";

/** The result of a provider-side tool, produced by the provider itself. */
export interface ServerToolResultBlock {
  type: ServerToolResultType;
  tool_use_id: string;
  content: unknown;
}

/**
 * OpenAI Responses API only: a provider-side output item (`web_search_call`, `file_search_call`,
 * `code_interpreter_call`, `mcp_list_tools`, `mcp_call`, `image_generation_call`, xAI's
 * `custom_tool_call`, and item types added later), kept whole. `content` is the item exactly as
 * received in `response.output_item.done` (`id`, `status`, `action`, `results`, `outputs`, every
 * other field); it answers the `server_tool_use` block just before it (same id), which holds the
 * call's input for display. `openaiResponsesModel` sends the item back unchanged in its place,
 * so a stateless (`store: false`) conversation keeps what the provider's tools did, and the
 * reasoning item before it stays paired with it. Every other adapter leaves out both blocks.
 */
export interface OpenAIToolResultBlock {
  type: "openai_tool_result";
  /** The `server_tool_use` block it answers (the item's `id`). */
  tool_use_id: string;
  /** The output item exactly as received. */
  content: Readonly<Record<string, unknown>>;
}

/** Every block an assistant message can hold. */
export type AssistantContentBlock =
  | TextBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ToolUseBlock
  | ServerToolUseBlock
  | McpToolUseBlock
  | ServerToolResultBlock
  | OpenAIToolResultBlock
  | OpenAIReasoningBlock;

/** The answer to one tool_use, sent in the next user message. */
export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string | TextBlock[];
  is_error?: boolean;
}

/**
 * Where an image's or a file's bytes are: inline as base64 with their media type, at a URL
 * (`media_type` is overlap's addition, kept for the providers that need it and removed for the
 * Messages API), or, for a plain text document, the text itself.
 */
export type FileSource =
  | { type: "base64"; media_type: string; data: string }
  | { type: "url"; url: string; media_type?: string }
  | { type: "text"; media_type: "text/plain"; data: string };

/** An image the user sent (the Messages API's image block). */
export interface ImageBlock {
  type: "image";
  /** The image's bytes (base64) or its URL. */
  source: FileSource;
}

/**
 * A file the user sent: the Messages API's document block (a PDF, plain text), and in overlap
 * any other media type too (audio, a spreadsheet...) for the providers that read it; each
 * adapter sends what its API carries and ends the turn with an `invalid_conversation` error
 * naming the part it cannot (never a silent drop). `title` is the file's name.
 */
export interface DocumentBlock {
  type: "document";
  /** The file's bytes (base64), its URL, or a plain text document's text. */
  source: FileSource;
  /** The file's name, when it has one (useChat's and OpenAI's `filename`). */
  title?: string | null;
}

/** Every block a user message can hold. */
export type UserContentBlock = TextBlock | ToolResultBlock | ImageBlock | DocumentBlock;

/** A message written by the model. */
export interface AssistantMessage {
  role: "assistant";
  content: AssistantContentBlock[];
}

/** A message written by the user or carrying tool results. */
export interface UserMessage {
  role: "user";
  content: string | UserContentBlock[];
}

/** One turn of the conversation. */
export type Message = AssistantMessage | UserMessage;

/** The list of server-side result block types, for runtime checks. */
export const SERVER_TOOL_RESULT_TYPES: ReadonlySet<string> = new Set<
  ServerToolResultType | OpenAIToolResultBlock["type"]
>([
  "web_search_tool_result",
  "web_fetch_tool_result",
  "code_execution_tool_result",
  "bash_code_execution_tool_result",
  "text_editor_code_execution_tool_result",
  "mcp_tool_result",
  "openai_tool_result",
]);

/**
 * True for a block that calls a tool: `tool_use`, and every provider-side `*_tool_use` block
 * (`server_tool_use`, `mcp_tool_use`, and types added to the API later) that carries an input.
 */
export function isCallBlock(block: { type: string }): block is CallBlock {
  return (
    block.type === "tool_use" ||
    (block.type.endsWith("_tool_use") && "input" in block && "id" in block)
  );
}

/** True for a call the provider runs itself: recorded and shown, never executed locally. */
export function isProviderCallBlock(block: { type: string }): boolean {
  return block.type !== "tool_use" && isCallBlock(block);
}
