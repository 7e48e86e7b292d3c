/**
 * The OpenAI Responses API's request rules for what the runtime sends, answered with its error
 * shape and wording (`param` such as `input` or `tools[0].parameters`). The sim is stateless: it
 * stores no response, so every item must come whole (a reasoning item with its encrypted content).
 *
 * Wording taken from the API's answers as quoted in public bug reports: the unanswered call, the
 * orphan output, the reasoning item without its following item, the reasoning item not stored,
 * the encrypted content that does not verify, the non-strict schema of a strict function, the
 * `max_output_tokens` minimum. The others follow the API's `Missing required parameter` /
 * `Invalid type for` patterns.
 */

import { type ApiRejection, invalidRequest } from "./api-rejection.js";
import { sealedItemId } from "./responses-wire.js";
import { isJsonObject } from "./validate-request.js";

type Json = Record<string, unknown>;

const ROLES = ["user", "assistant", "system", "developer"];

/** The smallest `max_output_tokens` the API accepts. */
export const MIN_OUTPUT_TOKENS = 16;

/** Checks a parsed Responses API body; the first broken rule, or undefined when it is valid. */
export function validateResponsesRequest(body: unknown): ApiRejection | undefined {
  if (!isJsonObject(body)) {
    return invalidRequest("Invalid type for 'body': expected an object.", null, "invalid_type");
  }
  if (typeof body.model !== "string" || body.model === "") {
    return missing("model");
  }
  const limit = body.max_output_tokens;
  if (limit !== undefined && limit !== null) {
    if (typeof limit !== "number" || !Number.isInteger(limit)) {
      return invalidRequest(
        `Invalid type for 'max_output_tokens': expected an integer, but got ${typeName(limit)} instead.`,
        "max_output_tokens",
        "invalid_type",
      );
    }
    if (limit < MIN_OUTPUT_TOKENS) {
      return invalidRequest(
        `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= ${MIN_OUTPUT_TOKENS}, but got ${limit} instead.`,
        "max_output_tokens",
        "integer_below_min_value",
      );
    }
  }
  const tools = checkTools(body.tools);
  if (tools) return tools;
  const input = body.input;
  if (input === undefined || input === null) return missing("input");
  if (typeof input === "string") return undefined;
  if (!Array.isArray(input)) {
    return invalidRequest(
      `Invalid type for 'input': expected one of a string or an array of input items, but got ${typeName(input)} instead.`,
      "input",
      "invalid_type",
    );
  }
  return checkItems(input, body.store !== false);
}

function checkTools(tools: unknown): ApiRejection | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) {
    return invalidRequest(
      `Invalid type for 'tools': expected an array, but got ${typeName(tools)} instead.`,
      "tools",
      "invalid_type",
    );
  }
  for (const [i, tool] of tools.entries()) {
    if (!isJsonObject(tool)) {
      return invalidRequest(
        `Invalid type for 'tools[${i}]': expected an object, but got ${typeName(tool)} instead.`,
        `tools[${i}]`,
        "invalid_type",
      );
    }
    if (tool.type !== "function") continue;
    if (typeof tool.name !== "string" || tool.name === "") return missing(`tools[${i}].name`);
    // Function tools are strict unless `strict: false`: their schema must then be a strict one.
    if (tool.strict === false) continue;
    const schema = isJsonObject(tool.parameters) ? tool.parameters : {};
    const why = strictSchemaProblem(schema);
    if (why) {
      return invalidRequest(
        `Invalid schema for function '${tool.name}': In context=(), ${why}`,
        `tools[${i}].parameters`,
        "invalid_function_parameters",
      );
    }
  }
  return undefined;
}

/** What makes a root object schema unfit for strict mode (only the root is checked). */
function strictSchemaProblem(schema: Json): string | undefined {
  if (schema.additionalProperties !== false) {
    return "'additionalProperties' is required to be supplied and to be false.";
  }
  const properties = isJsonObject(schema.properties) ? Object.keys(schema.properties) : [];
  const required = Array.isArray(schema.required) ? schema.required : [];
  const absent = properties.find((p) => !required.includes(p));
  if (absent !== undefined) {
    return `'required' is required to be supplied and to be an array including every key in properties. Missing '${absent}'.`;
  }
  return undefined;
}

function checkItems(items: readonly unknown[], store: boolean): ApiRejection | undefined {
  const calls = new Set<string>();
  for (const [i, item] of items.entries()) {
    if (!isJsonObject(item)) {
      return invalidRequest(
        `Invalid type for 'input[${i}]': expected an input item, but got ${typeName(item)} instead.`,
        `input[${i}]`,
        "invalid_type",
      );
    }
    const type = item.type ?? "message";
    if (type === "message") {
      if (!ROLES.includes(String(item.role))) {
        return invalidRequest(
          `Invalid value: '${String(item.role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
          `input[${i}].role`,
          "invalid_value",
        );
      }
      if (item.content === undefined || item.content === null) {
        return missing(`input[${i}].content`);
      }
      continue;
    }
    if (type === "function_call") {
      for (const field of ["call_id", "name", "arguments"]) {
        if (typeof item[field] !== "string") return missing(`input[${i}].${field}`);
      }
      const id = item.call_id as string;
      if (!items.slice(i + 1).some((later) => isOutputFor(later, id))) {
        return invalidRequest(`No tool output found for function call ${id}.`, "input");
      }
      calls.add(id);
      continue;
    }
    if (type === "function_call_output") {
      if (typeof item.call_id !== "string") return missing(`input[${i}].call_id`);
      if (item.output === undefined || item.output === null) return missing(`input[${i}].output`);
      if (!calls.has(item.call_id)) {
        return invalidRequest(
          `No tool call found for function call output with call_id ${item.call_id}.`,
          "input",
        );
      }
      continue;
    }
    if (type === "reasoning") {
      const invalid = checkReasoning(item, i, items[i + 1], store);
      if (invalid) return invalid;
    }
    if (type === "web_search_call") {
      // Sent back whole, as the API gave it: its id, status and action.
      if (typeof item.id !== "string" || item.id === "") return missing(`input[${i}].id`);
      if (typeof item.status !== "string") return missing(`input[${i}].status`);
      if (!isJsonObject(item.action)) return missing(`input[${i}].action`);
    }
    // Other item types (file search calls, MCP items...) are accepted as they are.
  }
  return undefined;
}

function checkReasoning(
  item: Json,
  i: number,
  next: unknown,
  store: boolean,
): ApiRejection | undefined {
  if (typeof item.id !== "string" || item.id === "") return missing(`input[${i}].id`);
  if (!Array.isArray(item.summary)) return missing(`input[${i}].summary`);
  const id = item.id;
  if (typeof item.encrypted_content !== "string") {
    // Without its encrypted content, the item is looked up by id: this server stores nothing.
    return {
      status: 404,
      type: "invalid_request_error",
      message: store
        ? `Item with id '${id}' not found.`
        : `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
      param: "input",
      code: null,
    };
  }
  if (sealedItemId(item.encrypted_content) !== id) {
    return invalidRequest(`The encrypted content for item ${id} could not be verified.`, "input");
  }
  // The item it preceded: an assistant message, a function call or a provider-side item.
  const follows =
    isJsonObject(next) &&
    ((next.type ?? "message") === "message"
      ? next.role === "assistant"
      : !NOT_FOLLOWERS.has(String(next.type)));
  if (!follows) {
    return invalidRequest(
      `Item '${id}' of type 'reasoning' was provided without its required following item.`,
      "input",
    );
  }
  return undefined;
}

/** Input item types that are not output items: a reasoning item is never followed by one. */
const NOT_FOLLOWERS: ReadonlySet<string> = new Set([
  "reasoning",
  "function_call_output",
  "item_reference",
]);

function isOutputFor(item: unknown, callId: string): boolean {
  return isJsonObject(item) && item.type === "function_call_output" && item.call_id === callId;
}

function missing(param: string): ApiRejection {
  return invalidRequest(
    `Missing required parameter: '${param}'.`,
    param,
    "missing_required_parameter",
  );
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value === "number" ? "number" : typeof value}`;
}
