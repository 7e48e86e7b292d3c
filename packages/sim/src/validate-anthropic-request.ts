/**
 * The Messages API's request rules, answered with its own error type and wording, so the runtime's
 * conversation repair is tested against a peer as strict as the real one. The wording of the
 * structural messages is the API's, as quoted in public bug reports (see the package README).
 */

import { type ApiRejection, invalidRequest } from "./api-rejection.js";
import { isJsonObject } from "./validate-request.js";

const THINKING_DOCS =
  "https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size";

type Json = Record<string, unknown>;

/** Checks a parsed Messages API body; the first broken rule, or undefined when it is valid. */
export function validateAnthropicRequest(body: unknown): ApiRejection | undefined {
  if (!isJsonObject(body)) return invalidRequest("The request body must be a JSON object.");
  return (
    checkFields(body) ??
    checkTools(body.tools) ??
    checkMessages(body.messages as unknown[]) ??
    checkToolPairing(body.messages as Json[])
  );
}

function checkFields(body: Json): ApiRejection | undefined {
  if (body.model === undefined) return invalidRequest("model: Field required");
  if (typeof body.model !== "string")
    return invalidRequest("model: Input should be a valid string");
  if (body.max_tokens === undefined) return invalidRequest("max_tokens: Field required");
  if (!Number.isSafeInteger(body.max_tokens))
    return invalidRequest("max_tokens: Input should be a valid integer");
  if ((body.max_tokens as number) < 1) {
    return invalidRequest("max_tokens: Input should be greater than or equal to 1");
  }
  if (body.messages === undefined) return invalidRequest("messages: Field required");
  if (!Array.isArray(body.messages))
    return invalidRequest("messages: Input should be a valid list");
  if (body.messages.length === 0)
    return invalidRequest("messages: at least one message is required");
  const thinking = body.thinking;
  if (isJsonObject(thinking) && thinking.type === "enabled") {
    const budget = thinking.budget_tokens;
    if (!Number.isSafeInteger(budget) || (budget as number) < 1024) {
      return invalidRequest(
        "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
      );
    }
    if ((body.max_tokens as number) <= (budget as number)) {
      return invalidRequest(
        `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${THINKING_DOCS}`,
      );
    }
  }
  return undefined;
}

/**
 * The tool fields the runtime sends. `eager_input_streaming` (fine-grained tool streaming) is
 * `boolean | null` on a client tool; anything else is refused with the API's validation wording
 * (`custom` is the tag of client tools in its error paths). Other tool fields are not checked.
 */
function checkTools(tools: unknown): ApiRejection | undefined {
  if (!Array.isArray(tools)) return undefined;
  for (const [i, tool] of tools.entries()) {
    if (!isJsonObject(tool)) continue;
    const eager = tool.eager_input_streaming;
    if (eager !== undefined && eager !== null && typeof eager !== "boolean") {
      return invalidRequest(
        `tools.${i}.custom.eager_input_streaming: Input should be a valid boolean`,
      );
    }
  }
  return undefined;
}

/** Roles, content presence and non-empty text, message by message. */
function checkMessages(messages: readonly unknown[]): ApiRejection | undefined {
  for (const [i, message] of messages.entries()) {
    if (!isJsonObject(message))
      return invalidRequest(`messages.${i}: Input should be a valid dictionary`);
    if (message.role !== "user" && message.role !== "assistant") {
      return invalidRequest(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    }
    const content = message.content;
    if (content === undefined) return invalidRequest(`messages.${i}.content: Field required`);
    const finalAssistant = i === messages.length - 1 && message.role === "assistant";
    const empty = content === "" || (Array.isArray(content) && content.length === 0);
    if (empty && !finalAssistant) {
      return invalidRequest(
        `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
      );
    }
    if (typeof content === "string") {
      if (content !== "" && content.trim() === "" && !finalAssistant) {
        return invalidRequest("messages: text content blocks must contain non-whitespace text");
      }
      continue;
    }
    if (!Array.isArray(content))
      return invalidRequest(`messages.${i}.content: Input should be a valid list`);
    for (const [k, block] of content.entries()) {
      if (!isJsonObject(block) || typeof block.type !== "string") {
        return invalidRequest(`messages.${i}.content.${k}: Input should be a valid dictionary`);
      }
      if (block.type !== "text") continue;
      if (typeof block.text !== "string" || block.text === "") {
        return invalidRequest("messages: text content blocks must be non-empty");
      }
      if (block.text.trim() === "")
        return invalidRequest("messages: text content blocks must contain non-whitespace text");
      const cited = checkCitations(block.citations, `messages.${i}.content.${k}.text.citations`);
      if (cited) return cited;
    }
  }
  return undefined;
}

/** The fields each web search citation sent back must keep (the API checks them). */
const WEB_CITATION_FIELDS = ["cited_text", "url", "title", "encrypted_index"] as const;

/** A text's citations: a list; a web search result citation with its fields. */
function checkCitations(citations: unknown, path: string): ApiRejection | undefined {
  if (citations === undefined || citations === null) return undefined;
  if (!Array.isArray(citations)) return invalidRequest(`${path}: Input should be a valid list`);
  for (const [n, citation] of citations.entries()) {
    if (!isJsonObject(citation) || citation.type !== "web_search_result_location") continue;
    for (const field of WEB_CITATION_FIELDS) {
      if (field === "title" && citation.title === null) continue;
      if (typeof citation[field] !== "string") {
        return invalidRequest(`${path}.${n}.web_search_result_location.${field}: Field required`);
      }
    }
  }
  return undefined;
}

function blocksOf(message: Json | undefined): Json[] {
  return Array.isArray(message?.content) ? message.content.filter(isJsonObject) : [];
}

/**
 * Every `tool_use` answered by a `tool_result` in the very next (user) message, results first, no
 * result without its call in the previous message, no id used twice.
 */
function checkToolPairing(messages: readonly Json[]): ApiRejection | undefined {
  const seen = new Set<string>();
  for (const [i, message] of messages.entries()) {
    const blocks = Array.isArray(message.content) ? message.content : [];
    if (message.role === "assistant") {
      for (const [k, block] of blocks.entries()) {
        if (!isJsonObject(block) || (block.type !== "tool_use" && block.type !== "server_tool_use"))
          continue;
        const id = String(block.id);
        if (seen.has(id))
          return invalidRequest(`messages.${i}.content.${k}: \`tool_use\` ids must be unique`);
        seen.add(id);
      }
      const calls = blocksOf(message)
        .filter((b) => b.type === "tool_use")
        .map((b) => String(b.id));
      if (calls.length === 0) continue;
      const next = messages[i + 1];
      const answers = next?.role === "user" ? blocksOf(next) : [];
      const answered = new Set(
        answers.filter((b) => b.type === "tool_result").map((b) => String(b.tool_use_id)),
      );
      const missing = calls.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return invalidRequest(
          `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ` +
            `${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        );
      }
      const leading = answers.findIndex((b) => b.type !== "tool_result");
      const results = answers.filter((b) => b.type === "tool_result").length;
      if (leading >= 0 && leading < results) {
        return invalidRequest(
          `messages.${i + 1}: Did not find ${calls.length} \`tool_result\` block(s) at the beginning of this message. ` +
            "Messages following `tool_use` blocks must begin with a matching number of `tool_result` blocks.",
        );
      }
    } else {
      const previous = messages[i - 1];
      const calls = new Set(
        (previous?.role === "assistant" ? blocksOf(previous) : [])
          .filter((b) => b.type === "tool_use")
          .map((b) => String(b.id)),
      );
      for (const [k, block] of blocks.entries()) {
        if (!isJsonObject(block) || block.type !== "tool_result") continue;
        const id = String(block.tool_use_id);
        if (!calls.has(id)) {
          return invalidRequest(
            `messages.${i}.content.${k}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. ` +
              "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
          );
        }
      }
    }
  }
  return undefined;
}
