/**
 * The neutral view of a (validated) Bedrock Converse request body, for the policy: `messages`
 * in the Messages API's shape, `toolUse` blocks as tool_use, `toolResult` blocks as tool_result
 * (content flattened to text; `json` content as its JSON text; `status: "error"` as `is_error`),
 * `system` text blocks joined, `toolConfig.tools[].toolSpec` as tools. The model id and whether
 * the answer streams come from the URL.
 */

import type {
  SimRequest,
  SimRequestBlock,
  SimRequestMessage,
  SimRequestTool,
  SimRequestToolResult,
} from "./sim-request.js";
import { isJsonObject } from "./validate-request.js";

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const asString = (v: unknown): string => (typeof v === "string" ? v : "");

/** The text of a toolResult's content blocks. */
function resultText(content: unknown): string {
  return asArray(content)
    .map((part) => {
      if (!isJsonObject(part)) return "";
      if (typeof part.text === "string") return part.text;
      if (part.json !== undefined) return JSON.stringify(part.json);
      return `[${Object.keys(part)[0] ?? "?"}]`;
    })
    .join("");
}

function block(value: unknown): SimRequestBlock {
  if (!isJsonObject(value)) return { type: "other", block: {} };
  if (typeof value.text === "string") return { type: "text", text: value.text };
  // Provider-side code execution (and its typed result) is not a client call.
  if (isJsonObject(value.toolUse) && value.toolUse.type === "server_tool_use") {
    return { type: "other", block: value };
  }
  if (isJsonObject(value.toolResult) && typeof value.toolResult.type === "string") {
    return { type: "other", block: value };
  }
  if (isJsonObject(value.toolUse)) {
    return {
      type: "tool_use",
      id: asString(value.toolUse.toolUseId),
      name: asString(value.toolUse.name),
      input: value.toolUse.input,
    };
  }
  if (isJsonObject(value.toolResult)) {
    const result: SimRequestToolResult = {
      type: "tool_result",
      tool_use_id: asString(value.toolResult.toolUseId),
      content: resultText(value.toolResult.content),
    };
    if (value.toolResult.status === "error") result.is_error = true;
    return result;
  }
  return { type: "other", block: value };
}

/** The neutral view of a Converse request (the model and streaming come from the URL). */
export function simRequestFromBedrock(
  body: Readonly<Record<string, unknown>>,
  headers: Readonly<Record<string, string>>,
  route: { model: string; stream: boolean },
): SimRequest {
  const messages: SimRequestMessage[] = asArray(body.messages)
    .filter(isJsonObject)
    .map((m) => ({
      role: m.role === "assistant" ? "assistant" : "user",
      content: asArray(m.content).map(block),
    }));
  const toolConfig = isJsonObject(body.toolConfig) ? body.toolConfig : {};
  const tools: SimRequestTool[] = [];
  for (const tool of asArray(toolConfig.tools)) {
    if (!isJsonObject(tool) || !isJsonObject(tool.toolSpec)) continue;
    const spec = tool.toolSpec;
    const schema = isJsonObject(spec.inputSchema) ? spec.inputSchema.json : undefined;
    tools.push({
      name: asString(spec.name),
      description: asString(spec.description),
      input_schema: isJsonObject(schema) ? schema : { type: "object", properties: {} },
    });
  }
  const request: SimRequest = {
    api: "bedrock",
    model: route.model,
    messages,
    tools,
    stream: route.stream,
    headers,
  };
  const system = asArray(body.system)
    .flatMap((b) => (isJsonObject(b) && typeof b.text === "string" ? [b.text] : []))
    .join("\n");
  if (system !== "") request.system = system;
  const config = isJsonObject(body.inferenceConfig) ? body.inferenceConfig : {};
  if (typeof config.maxTokens === "number") request.maxTokens = config.maxTokens;
  return request;
}

/**
 * True when the request enables Claude's extended thinking through
 * `additionalModelRequestFields.thinking` (`type` `enabled` or `adaptive`).
 */
export function bedrockWantsThinking(body: Readonly<Record<string, unknown>>): boolean {
  const fields = body.additionalModelRequestFields;
  const thinking = isJsonObject(fields) ? fields.thinking : undefined;
  return isJsonObject(thinking) && (thinking.type === "enabled" || thinking.type === "adaptive");
}
