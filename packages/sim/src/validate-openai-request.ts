/**
 * The Chat Completions API's request rules for what the runtime sends, answered with its own
 * error shape and wording (`param` such as `messages.[3].role`, as the API reports it).
 */

import { type ApiRejection, invalidRequest } from "./api-rejection.js";
import { isJsonObject } from "./validate-request.js";

const ROLES = ["system", "developer", "user", "assistant", "tool", "function"];

/** Checks a parsed Chat Completions body; the first broken rule, or undefined when it is valid. */
export function validateOpenAIRequest(body: unknown): ApiRejection | undefined {
  if (!isJsonObject(body)) {
    return invalidRequest("Invalid type for 'body': expected an object.", null, "invalid_type");
  }
  if (typeof body.model !== "string" || body.model === "") {
    return invalidRequest("you must provide a model parameter");
  }
  const messages = body.messages;
  if (messages === undefined) {
    return invalidRequest(
      "Missing required parameter: 'messages'.",
      "messages",
      "missing_required_parameter",
    );
  }
  if (!Array.isArray(messages)) {
    return invalidRequest(
      `Invalid type for 'messages': expected an array, but got ${typeName(messages)} instead.`,
      "messages",
      "invalid_type",
    );
  }
  if (messages.length === 0) {
    return invalidRequest(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      "messages",
      "empty_array",
    );
  }
  for (const [i, message] of messages.entries()) {
    const role = isJsonObject(message) ? message.role : undefined;
    if (typeof role !== "string" || !ROLES.includes(role)) {
      return invalidRequest(
        `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        `messages[${i}].role`,
        "invalid_value",
      );
    }
  }
  return checkToolPairing(messages as Record<string, unknown>[]);
}

/**
 * Each tool message answers a pending `tool_call_id` of the closest assistant message with
 * `tool_calls`; every such id is answered before any other message.
 */
function checkToolPairing(messages: readonly Record<string, unknown>[]): ApiRejection | undefined {
  let pending = new Set<string>();
  const unanswered = (param: string): ApiRejection =>
    invalidRequest(
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
        `The following tool_call_ids did not have response messages: ${[...pending].join(", ")}`,
      param,
    );
  for (const [i, message] of messages.entries()) {
    if (message.role === "tool") {
      const id = typeof message.tool_call_id === "string" ? message.tool_call_id : "";
      if (!pending.delete(id)) {
        return invalidRequest(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${i}].role`,
        );
      }
      continue;
    }
    if (pending.size > 0) return unanswered(`messages.[${i}].role`);
    const calls =
      message.role === "assistant" && Array.isArray(message.tool_calls) ? message.tool_calls : [];
    pending = new Set(calls.filter(isJsonObject).map((c) => String(c.id)));
  }
  return pending.size > 0 ? unanswered("messages") : undefined;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  return `a ${typeof value === "number" ? "number" : typeof value}`;
}
