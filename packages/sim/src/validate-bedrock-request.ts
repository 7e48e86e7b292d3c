/**
 * The Bedrock Converse API's request rules for what a client sends, answered as the service
 * does: HTTP 400 `ValidationException` with its message. Messages quoted from the service's
 * answers in public bug reports: the conversation's start and alternation, an empty message, a
 * blank text, `toolConfig` missing while tool blocks are used, toolUse ids without their
 * toolResult blocks in the next message, an error toolResult without content. Errors the model
 * (Claude) raises come back prefixed with `The model returned the following errors: ` (an
 * empty tool result text, an unsigned reasoning block, a final assistant message not starting
 * with its thinking while thinking is on, duplicate toolUse ids). The AWS-style constraint messages
 * (`1 validation error detected: …`) and the toolResult-without-toolUse message are inferred, not
 * quoted. A provider's own tool is a `systemTool` `{ name }` in `toolConfig.tools`; its call (a
 * `toolUse` of `type: "server_tool_use"`) is answered by a typed `toolResult` in the same
 * assistant message, as the service returns them, not in the next user message.
 */

import type { ApiRejection } from "./api-rejection.js";
import { bedrockWantsThinking } from "./bedrock-sim-request.js";
import { isJsonObject } from "./validate-request.js";

type Json = Record<string, unknown>;

/** A 400 ValidationException with the service's message. */
export function bedrockInvalid(message: string): ApiRejection {
  return { status: 400, type: "ValidationException", message };
}

/** The members of a Converse `ContentBlock` union (exactly one is set). */
const BLOCK_MEMBERS = new Set([
  "text",
  "image",
  "document",
  "video",
  "audio",
  "toolUse",
  "toolResult",
  "guardContent",
  "cachePoint",
  "reasoningContent",
  "citationsContent",
  "searchResult",
]);

/** What Claude calls each block kind, for the errors it raises. */
const CLAUDE_TYPE: Readonly<Record<string, string>> = {
  text: "text",
  toolUse: "tool_use",
  toolResult: "tool_result",
  image: "image",
  document: "document",
  reasoningContent: "thinking",
};

const ID_PATTERN = /^[a-zA-Z0-9_-]+$/;

function constraint(value: unknown, path: string, rule: string): ApiRejection {
  const shown = value === undefined || value === null ? "null" : `'${String(value)}'`;
  return bedrockInvalid(
    `1 validation error detected: Value ${shown} at '${path}' failed to satisfy constraint: ${rule}`,
  );
}

function modelError(message: string): ApiRejection {
  return bedrockInvalid(`The model returned the following errors: ${message}`);
}

const memberOf = (block: Json): string | undefined => Object.keys(block)[0];

/** The first rule `body` breaks, or undefined when the service would accept it. */
export function validateBedrockRequest(body: unknown): ApiRejection | undefined {
  if (!isJsonObject(body))
    return bedrockInvalid("Malformed input request, please reformat your input and try again.");
  const config = body.inferenceConfig;
  if (config !== undefined) {
    if (!isJsonObject(config))
      return constraint(config, "inferenceConfig", "Member must be a structure");
    const max = config.maxTokens;
    if (max !== undefined && (typeof max !== "number" || !Number.isInteger(max) || max < 1)) {
      return constraint(
        max,
        "inferenceConfig.maxTokens",
        "Member must have value greater than or equal to 1",
      );
    }
  }
  const tools = validateToolConfig(body.toolConfig);
  if (tools) return tools;
  if (body.system !== undefined && !Array.isArray(body.system)) {
    return constraint(body.system, "system", "Member must be a list");
  }
  const messages = body.messages;
  if (!Array.isArray(messages)) return constraint(messages, "messages", "Member must not be null");
  return validateMessages(messages, body);
}

function validateToolConfig(toolConfig: unknown): ApiRejection | undefined {
  if (toolConfig === undefined) return undefined;
  if (!isJsonObject(toolConfig) || !Array.isArray(toolConfig.tools)) {
    return constraint(undefined, "toolConfig.tools", "Member must not be null");
  }
  if (toolConfig.tools.length === 0) {
    return constraint(
      "[]",
      "toolConfig.tools",
      "Member must have length greater than or equal to 1",
    );
  }
  for (const [t, tool] of toolConfig.tools.entries()) {
    const path = `toolConfig.tools.${t + 1}.member`;
    if (!isJsonObject(tool)) return constraint(tool, path, "Member must be a structure");
    if (tool.cachePoint !== undefined) continue;
    if (tool.systemTool !== undefined) {
      // A provider's own tool (Nova's nova_code_interpreter, nova_grounding).
      const name = isJsonObject(tool.systemTool) ? tool.systemTool.name : undefined;
      if (typeof name !== "string" || name === "") {
        return constraint(name, `${path}.systemTool.name`, "Member must not be null");
      }
      continue;
    }
    const spec = tool.toolSpec;
    if (!isJsonObject(spec))
      return constraint(undefined, `${path}.toolSpec`, "Member must not be null");
    const name = spec.name;
    if (typeof name !== "string" || name.length < 1 || name.length > 64 || !ID_PATTERN.test(name)) {
      return constraint(
        name,
        `${path}.toolSpec.name`,
        "Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+",
      );
    }
    if (
      spec.description !== undefined &&
      (typeof spec.description !== "string" || spec.description === "")
    ) {
      return constraint(
        spec.description,
        `${path}.toolSpec.description`,
        "Member must have length greater than or equal to 1",
      );
    }
    if (!isJsonObject(spec.inputSchema) || !isJsonObject(spec.inputSchema.json)) {
      return constraint(undefined, `${path}.toolSpec.inputSchema.json`, "Member must not be null");
    }
  }
  return undefined;
}

function validateMessages(messages: readonly unknown[], body: Json): ApiRejection | undefined {
  let usesToolBlocks = false;
  const seenIds = new Set<string>();
  for (const [n, message] of messages.entries()) {
    if (!isJsonObject(message))
      return constraint(message, `messages.${n + 1}.member`, "Member must be a structure");
    const role = message.role;
    if (role !== "user" && role !== "assistant") {
      return constraint(
        role,
        `messages.${n + 1}.member.role`,
        "Member must satisfy enum value set: [user, assistant]",
      );
    }
    if (n === 0 && role !== "user") {
      return bedrockInvalid(
        "A conversation must start with a user message. Try again with a conversation that starts with a user message.",
      );
    }
    const previous = messages[n - 1];
    if (isJsonObject(previous) && previous.role === role) {
      return bedrockInvalid(
        "A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.",
      );
    }
    const content = message.content;
    if (!Array.isArray(content) || content.length === 0) {
      return bedrockInvalid(
        `The content field in the Message object at messages.${n} is empty. Add a ContentBlock object to the content field and try again.`,
      );
    }
    for (const [k, block] of content.entries()) {
      const problem = validateBlock(block, n, k, role, seenIds);
      if (problem) return problem;
      if (isJsonObject(block) && (block.toolUse !== undefined || block.toolResult !== undefined)) {
        usesToolBlocks = true;
      }
    }
  }
  if (usesToolBlocks && body.toolConfig === undefined) {
    return bedrockInvalid(
      "The toolConfig field must be defined when using toolUse and toolResult content blocks.",
    );
  }
  return validateToolPairs(messages as Json[]) ?? validateThinking(messages as Json[], body);
}

function validateBlock(
  block: unknown,
  n: number,
  k: number,
  role: "user" | "assistant",
  seenIds: Set<string>,
): ApiRejection | undefined {
  const path = `messages.${n + 1}.member.content.${k + 1}.member`;
  if (!isJsonObject(block)) return constraint(block, path, "Member must be a structure");
  const members = Object.keys(block);
  if (members.length !== 1 || !BLOCK_MEMBERS.has(members[0]!)) {
    return bedrockInvalid(
      `The ContentBlock object at messages.${n}.content.${k} must set exactly one of its members; it sets ${members.length === 0 ? "none" : members.join(", ")}.`,
    );
  }
  if ("text" in block) {
    if (typeof block.text !== "string" || block.text.trim() === "") {
      return bedrockInvalid(
        `The text field in the ContentBlock object at messages.${n}.content.${k} is blank. Add text to the text field, and try again.`,
      );
    }
  }
  if ("toolUse" in block) {
    const use = block.toolUse;
    if (role !== "assistant" || !isJsonObject(use)) {
      return constraint(undefined, `${path}.toolUse`, "Member must be sent by the assistant");
    }
    const id = use.toolUseId;
    if (typeof id !== "string" || id.length > 64 || !ID_PATTERN.test(id)) {
      return constraint(
        id,
        `${path}.toolUse.toolUseId`,
        "Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+",
      );
    }
    if (typeof use.name !== "string" || use.name === "") {
      return constraint(use.name, `${path}.toolUse.name`, "Member must not be null");
    }
    if (use.input === undefined) {
      return constraint(undefined, `${path}.toolUse.input`, "Member must not be null");
    }
    if (seenIds.has(id)) {
      return modelError(`messages.${n}.content.${k}: \`tool_use\` ids must be unique`);
    }
    seenIds.add(id);
  }
  if ("toolResult" in block) {
    const result = block.toolResult;
    // A provider-side tool's result (a typed toolResult) stays in the assistant message.
    const server = isJsonObject(result) && typeof result.type === "string";
    if (
      role !== (server ? "assistant" : "user") ||
      !isJsonObject(result) ||
      typeof result.toolUseId !== "string"
    ) {
      return constraint(undefined, `${path}.toolResult.toolUseId`, "Member must not be null");
    }
    if (!Array.isArray(result.content)) {
      return constraint(undefined, `${path}.toolResult.content`, "Member must not be null");
    }
    if (result.status !== undefined && result.status !== "success" && result.status !== "error") {
      return constraint(
        result.status,
        `${path}.toolResult.status`,
        "Member must satisfy enum value set: [success, error]",
      );
    }
    if (result.status === "error" && result.content.length === 0) {
      return bedrockInvalid(
        `The content field at messages.${n}.content.${k}.toolResult cannot be empty when status value is error.`,
      );
    }
    for (const part of result.content) {
      if (!isJsonObject(part) || !("text" in part)) continue;
      if (typeof part.text !== "string" || part.text === "") {
        return modelError("messages: text content blocks must be non-empty");
      }
      if (part.text.trim() === "") {
        return modelError("messages: text content blocks must contain non-whitespace text");
      }
    }
  }
  if ("reasoningContent" in block) {
    const reasoning = block.reasoningContent;
    if (role !== "assistant" || !isJsonObject(reasoning)) {
      return constraint(
        undefined,
        `${path}.reasoningContent`,
        "Member must be sent by the assistant",
      );
    }
    if (isJsonObject(reasoning.reasoningText)) {
      const signature = reasoning.reasoningText.signature;
      if (typeof signature !== "string" || signature === "") {
        return modelError(`messages.${n}.content.${k}.thinking.signature: Field required`);
      }
    } else if (typeof reasoning.redactedContent !== "string" || reasoning.redactedContent === "") {
      return constraint(
        undefined,
        `${path}.reasoningContent.reasoningText`,
        "Member must not be null",
      );
    }
  }
  return undefined;
}

/** Every toolUse answered in the next message; every toolResult answering the message before. */
function validateToolPairs(messages: readonly Json[]): ApiRejection | undefined {
  for (const [n, message] of messages.entries()) {
    const blocks = (message.content as unknown[]).filter(isJsonObject);
    if (message.role === "assistant") {
      // Provider-side calls (type server_tool_use) are answered in the same message.
      const ids = blocks.flatMap((b) =>
        isJsonObject(b.toolUse) && b.toolUse.type !== "server_tool_use"
          ? [String(b.toolUse.toolUseId)]
          : [],
      );
      if (ids.length === 0) continue;
      const next = messages[n + 1];
      const answered = new Set(
        ((next?.content as unknown[] | undefined) ?? [])
          .filter(isJsonObject)
          .flatMap((b) => (isJsonObject(b.toolResult) ? [String(b.toolResult.toolUseId)] : [])),
      );
      const missing = ids.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return bedrockInvalid(
          `Expected toolResult blocks at messages.${n + 1}.content for the following Ids: ${missing.join(", ")}`,
        );
      }
    } else {
      const results = blocks.flatMap((b) =>
        isJsonObject(b.toolResult) ? [String(b.toolResult.toolUseId)] : [],
      );
      if (results.length === 0) continue;
      const previous = messages[n - 1];
      const called = new Set(
        ((previous?.content as unknown[] | undefined) ?? [])
          .filter(isJsonObject)
          .flatMap((b) => (isJsonObject(b.toolUse) ? [String(b.toolUse.toolUseId)] : [])),
      );
      if (results.length > called.size || results.some((id) => !called.has(id))) {
        return bedrockInvalid(
          `The number of toolResult blocks at messages.${n}.content exceeds the number of toolUse blocks of previous turn.`,
        );
      }
    }
  }
  return undefined;
}

/**
 * Claude with thinking on: in a tool loop (the last message holds tool results), the assistant
 * message before it must start with its reasoning block, as the model returned it.
 */
function validateThinking(messages: readonly Json[], body: Json): ApiRejection | undefined {
  if (!bedrockWantsThinking(body)) return undefined;
  const last = messages.at(-1);
  const blocks = ((last?.content as unknown[] | undefined) ?? []).filter(isJsonObject);
  if (last?.role !== "user" || !blocks.some((b) => b.toolResult !== undefined)) return undefined;
  const n = messages.length - 2;
  const first = ((messages[n]?.content as unknown[] | undefined) ?? []).find(isJsonObject);
  if (!first || first.reasoningContent !== undefined) return undefined;
  const found = CLAUDE_TYPE[memberOf(first) ?? ""] ?? memberOf(first) ?? "unknown";
  return modelError(
    `messages.${n}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
  );
}
