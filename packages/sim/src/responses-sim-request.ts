/**
 * The neutral view of a (validated) OpenAI Responses API request body, for the policy:
 * `instructions` and system/developer messages become `system`; user messages become user text;
 * assistant messages and `function_call` items become one assistant message (text and tool_use
 * blocks, in order); `function_call_output` items (and user text right after them) become one
 * user message, results first, as the Messages API requires; reasoning items are kept as `other`
 * blocks of the assistant message.
 */

import {
  assembleSimRequest,
  pushToolResult,
  type SimRequest,
  type SimRequestBlock,
  type SimRequestMessage,
  type SimRequestTool,
  type SimRequestToolResult,
} from "./sim-request.js";
import { isJsonObject } from "./validate-request.js";

type Json = Record<string, unknown>;

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const asString = (v: unknown): string => (typeof v === "string" ? v : "");

/** Text of a content value: a string, or parts with `text` (others become `[type]`). */
function flattenText(content: unknown): string {
  if (typeof content === "string") return content;
  return asArray(content)
    .map((part) =>
      isJsonObject(part) && typeof part.text === "string"
        ? part.text
        : isJsonObject(part) && typeof part.refusal === "string"
          ? part.refusal
          : `[${String(isJsonObject(part) ? part.type : "?")}]`,
    )
    .join("");
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The role of an input item that is a message, else undefined. */
function messageRole(item: Json): string | undefined {
  if (item.type !== undefined && item.type !== "message") return undefined;
  return typeof item.role === "string" ? item.role : undefined;
}

/** The neutral view of a validated Responses API request body. */
export function simRequestFromResponses(
  body: Readonly<Record<string, unknown>>,
  headers: Readonly<Record<string, string>>,
): SimRequest {
  const system: string[] = [];
  if (typeof body.instructions === "string" && body.instructions !== "") {
    system.push(body.instructions);
  }
  const messages: SimRequestMessage[] = [];
  const last = (role: "user" | "assistant"): SimRequestMessage => {
    const current = messages.at(-1);
    if (current?.role === role) return current;
    const created: SimRequestMessage = { role, content: [] };
    messages.push(created);
    return created;
  };
  const input: unknown[] =
    typeof body.input === "string" ? [{ role: "user", content: body.input }] : asArray(body.input);
  for (const item of input.filter(isJsonObject)) {
    const role = messageRole(item);
    if (role === "system" || role === "developer") {
      system.push(flattenText(item.content));
    } else if (role === "assistant") {
      last("assistant").content.push({ type: "text", text: flattenText(item.content) });
    } else if (role !== undefined) {
      last("user").content.push({ type: "text", text: flattenText(item.content) });
    } else if (item.type === "function_call") {
      last("assistant").content.push({
        type: "tool_use",
        id: asString(item.call_id),
        name: asString(item.name),
        input: parseArguments(asString(item.arguments)),
      });
    } else if (item.type === "function_call_output") {
      const result: SimRequestToolResult = {
        type: "tool_result",
        tool_use_id: asString(item.call_id),
        content: flattenText(item.output),
      };
      // Results come first in a user message: after text, they start a new one.
      pushToolResult(messages, result);
    } else {
      const block: SimRequestBlock = { type: "other", block: item };
      last("assistant").content.push(block);
    }
  }
  const tools: SimRequestTool[] = asArray(body.tools)
    .filter(isJsonObject)
    // Only function tools are the client's to run.
    .filter((t) => t.type === "function")
    .map((t) => ({
      name: asString(t.name),
      description: asString(t.description),
      input_schema: isJsonObject(t.parameters) ? t.parameters : { type: "object", properties: {} },
    }));
  return assembleSimRequest("responses", body, {
    system,
    messages,
    tools,
    maxTokens: body.max_output_tokens,
    headers,
  });
}
