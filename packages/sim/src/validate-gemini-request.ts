/**
 * The Gemini API's request rules for what a client sends, answered as the API does: HTTP 400,
 * status `INVALID_ARGUMENT`, in its wording (field violations as
 * `* GenerateContentRequest.<path>: <rule>\n`, unknown fields as `Invalid JSON payload received.
 * Unknown name "x" at '<path>': Cannot find field.`). Fields are accepted by their JSON name
 * (`functionCall`) and their proto name (`function_call`), as the API does.
 *
 * The turn rules of function calling:
 * - a model turn with `functionCall` parts must follow a user turn (or a function response turn);
 * - a user turn with `functionResponse` parts must follow a function call turn;
 * - the turn after a function call turn must hold as many `functionResponse` parts as it has
 *   calls (a call left unanswered, also at the end of the conversation, is rejected);
 * - thinking models (Gemini 3) require the `thoughtSignature` they sent on the first
 *   `functionCall` part of each model turn of the current turn (the turns after the last user
 *   turn that is not only function responses).
 */

import type { ApiRejection } from "./api-rejection.js";
import { geminiField, snakeCase } from "./gemini-sim-request.js";
import { isJsonObject } from "./validate-request.js";

type Json = Record<string, unknown>;

/** The status string of a 400. */
export const GEMINI_INVALID_ARGUMENT = "INVALID_ARGUMENT";

/** A 400 INVALID_ARGUMENT with the API's message. */
export function geminiInvalid(message: string): ApiRejection {
  return { status: 400, type: GEMINI_INVALID_ARGUMENT, message };
}

function violation(path: string, rule: string): ApiRejection {
  return geminiInvalid(`* GenerateContentRequest.${path}: ${rule}\n`);
}

const REQUEST_FIELDS = [
  "model",
  "contents",
  "systemInstruction",
  "tools",
  "toolConfig",
  "generationConfig",
  "safetySettings",
  "cachedContent",
  "labels",
  "serviceTier",
];
const CONTENT_FIELDS = ["role", "parts"];
const DATA_FIELDS = [
  "text",
  "inlineData",
  "fileData",
  "functionCall",
  "functionResponse",
  "executableCode",
  "codeExecutionResult",
];
const PART_FIELDS = [
  ...DATA_FIELDS,
  "thought",
  "thoughtSignature",
  "videoMetadata",
  "partMetadata",
  "mediaResolution",
];
const CALL_FIELDS = ["id", "name", "args"];
const RESPONSE_FIELDS = ["id", "name", "response", "willContinue", "scheduling", "parts"];
const TOOL_FIELDS = [
  "functionDeclarations",
  "googleSearch",
  "googleSearchRetrieval",
  "codeExecution",
  "urlContext",
  "fileSearch",
  "googleMaps",
  "computerUse",
];
const DECLARATION_FIELDS = [
  "name",
  "description",
  "parameters",
  "parametersJsonSchema",
  "response",
  "responseJsonSchema",
  "behavior",
];

/** Function names the API accepts. */
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/;

/** The first field of `object` that is not one of `known` (JSON or proto name). */
function unknownField(object: Json, known: readonly string[]): string | undefined {
  return Object.keys(object).find((key) => !known.some((k) => k === key || snakeCase(k) === key));
}

function unknownName(name: string, at: string | undefined): ApiRejection {
  const where = at === undefined ? "" : ` at '${at}'`;
  return geminiInvalid(
    `Invalid JSON payload received. Unknown name "${name}"${where}: Cannot find field.`,
  );
}

/** Checks a parsed request body; the first broken rule, or undefined when it is valid. */
export function validateGeminiRequest(body: unknown): ApiRejection | undefined {
  if (!isJsonObject(body)) {
    return geminiInvalid("Invalid JSON payload received. Expected an object.");
  }
  const extra = unknownField(body, REQUEST_FIELDS);
  if (extra !== undefined) return unknownName(extra, undefined);
  const contents = body.contents;
  if (!Array.isArray(contents) || contents.length === 0) {
    return violation("contents", "contents is not specified");
  }
  for (const [i, content] of contents.entries()) {
    const invalid = checkContent(content, `contents[${i}]`);
    if (invalid) return invalid;
  }
  const system = geminiField(body, "systemInstruction");
  if (system !== undefined) {
    const invalid = checkContent(system, "system_instruction", true);
    if (invalid) return invalid;
  }
  const tools = body.tools;
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return geminiInvalid(`Invalid value at 'tools', expected a list.`);
    for (const [t, tool] of tools.entries()) {
      const invalid = checkTool(tool, t);
      if (invalid) return invalid;
    }
  }
  const config = geminiField(body, "generationConfig");
  if (config !== undefined) {
    const limit = isJsonObject(config) ? geminiField(config, "maxOutputTokens") : undefined;
    if (limit !== undefined && !(Number.isInteger(limit) && (limit as number) >= 0)) {
      return geminiInvalid(
        `Invalid JSON payload received. Invalid value at 'generation_config.max_output_tokens' (TYPE_INT32), ${JSON.stringify(limit)}`,
      );
    }
  }
  return checkTurns(contents as Json[]);
}

function checkContent(content: unknown, at: string, system = false): ApiRejection | undefined {
  if (!isJsonObject(content)) {
    return geminiInvalid(
      `Invalid JSON payload received. Invalid value at '${at}': expected an object.`,
    );
  }
  const extra = unknownField(content, CONTENT_FIELDS);
  if (extra !== undefined) return unknownName(extra, at);
  if (
    !system &&
    content.role !== undefined &&
    content.role !== "user" &&
    content.role !== "model"
  ) {
    return geminiInvalid("Please use a valid role: user, model.");
  }
  const parts = content.parts;
  if (!Array.isArray(parts) || parts.length === 0) {
    return violation(`${at}.parts`, "contents.parts must not be empty.");
  }
  for (const [k, part] of parts.entries()) {
    const invalid = checkPart(part, `${at}.parts[${k}]`);
    if (invalid) return invalid;
  }
  return undefined;
}

function checkPart(part: unknown, at: string): ApiRejection | undefined {
  if (!isJsonObject(part)) {
    return geminiInvalid(
      `Invalid JSON payload received. Invalid value at '${at}': expected an object.`,
    );
  }
  const extra = unknownField(part, PART_FIELDS);
  if (extra !== undefined) return unknownName(extra, at);
  const data = DATA_FIELDS.filter((field) => geminiField(part, field) !== undefined);
  if (data.length === 0) {
    return violation(`${at}.data`, "required oneof field 'data' must have one initialized field");
  }
  if (data.length > 1) {
    return geminiInvalid(
      `Invalid JSON payload received. Oneof field 'data' is already set. Cannot set '${data[1]}'`,
    );
  }
  const call = geminiField(part, "functionCall");
  if (call !== undefined) {
    if (!isJsonObject(call)) return geminiInvalid(`Invalid value at '${at}.function_call'`);
    const field = unknownField(call, CALL_FIELDS);
    if (field !== undefined) return unknownName(field, `${at}.function_call`);
    if (typeof call.name !== "string" || call.name === "") {
      return violation(`${at}.function_call.name`, "Name cannot be empty.");
    }
    if (call.args !== undefined && !isJsonObject(call.args)) {
      return geminiInvalid(
        `Invalid JSON payload received. Invalid value at '${at}.function_call.args' (type.googleapis.com/google.protobuf.Struct), ${JSON.stringify(call.args)}`,
      );
    }
  }
  const response = geminiField(part, "functionResponse");
  if (response !== undefined) {
    if (!isJsonObject(response)) return geminiInvalid(`Invalid value at '${at}.function_response'`);
    const field = unknownField(response, RESPONSE_FIELDS);
    if (field !== undefined) return unknownName(field, `${at}.function_response`);
    if (typeof response.name !== "string" || response.name === "") {
      return violation(`${at}.function_response.name`, "Name cannot be empty.");
    }
    if (response.response !== undefined && !isJsonObject(response.response)) {
      return geminiInvalid(
        `Invalid JSON payload received. Invalid value at '${at}.function_response.response' (type.googleapis.com/google.protobuf.Struct), ${JSON.stringify(response.response)}`,
      );
    }
  }
  return undefined;
}

function checkTool(tool: unknown, t: number): ApiRejection | undefined {
  const at = `tools[${t}]`;
  if (!isJsonObject(tool)) return geminiInvalid(`Invalid value at '${at}': expected an object.`);
  const extra = unknownField(tool, TOOL_FIELDS);
  if (extra !== undefined) return unknownName(extra, at);
  const declarations = geminiField(tool, "functionDeclarations");
  if (declarations === undefined) return undefined;
  if (!Array.isArray(declarations)) {
    return geminiInvalid(`Invalid value at '${at}.function_declarations', expected a list.`);
  }
  for (const [d, declaration] of declarations.entries()) {
    const path = `${at}.function_declarations[${d}]`;
    if (!isJsonObject(declaration)) return geminiInvalid(`Invalid value at '${path}'`);
    const field = unknownField(declaration, DECLARATION_FIELDS);
    if (field !== undefined) return unknownName(field, path);
    if (typeof declaration.name !== "string" || !FUNCTION_NAME.test(declaration.name)) {
      return violation(
        `${path}.name`,
        "Invalid function name. Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots, colons and dashes, with a maximum length of 128.",
      );
    }
    if (
      geminiField(declaration, "parameters") !== undefined &&
      geminiField(declaration, "parametersJsonSchema") !== undefined
    ) {
      return violation(path, "parameters and parameters_json_schema cannot both be set.");
    }
  }
  return undefined;
}

/** The function calls of a content, in part order. */
function callsOf(content: Json): Json[] {
  const parts = Array.isArray(content.parts) ? content.parts : [];
  return parts.filter(
    (p): p is Json => isJsonObject(p) && geminiField(p, "functionCall") !== undefined,
  );
}

function responseCount(content: Json): number {
  const parts = Array.isArray(content.parts) ? content.parts : [];
  return parts.filter((p) => isJsonObject(p) && geminiField(p, "functionResponse") !== undefined)
    .length;
}

const COUNT_MISMATCH =
  "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";

function checkTurns(contents: readonly Json[]): ApiRejection | undefined {
  const roleOf = (c: Json | undefined) => (c?.role === "model" ? "model" : "user");
  for (const [i, content] of contents.entries()) {
    const previous = contents[i - 1];
    const calls = callsOf(content).length;
    if (roleOf(content) === "model" && calls > 0) {
      if (previous === undefined || roleOf(previous) === "model") {
        return geminiInvalid(
          "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
        );
      }
      const next = contents[i + 1];
      if (next === undefined || roleOf(next) !== "user" || responseCount(next) !== calls) {
        return geminiInvalid(COUNT_MISMATCH);
      }
    }
    if (roleOf(content) === "user" && responseCount(content) > 0) {
      if (
        previous === undefined ||
        roleOf(previous) !== "model" ||
        callsOf(previous).length === 0
      ) {
        return geminiInvalid(
          "Please ensure that function response turn comes immediately after a function call turn.",
        );
      }
    }
  }
  return checkSignatures(contents);
}

/** Thought signatures of the current turn (see the module comment). */
function checkSignatures(contents: readonly Json[]): ApiRejection | undefined {
  const turnStart = contents.findLastIndex((c) => {
    if (c.role === "model") return false;
    const parts = Array.isArray(c.parts) ? c.parts : [];
    return parts.some((p) => isJsonObject(p) && geminiField(p, "functionResponse") === undefined);
  });
  for (let i = turnStart + 1; i < contents.length; i++) {
    const content = contents[i]!;
    if (content.role !== "model") continue;
    const first = callsOf(content)[0];
    if (first === undefined) continue;
    const signature = geminiField(first, "thoughtSignature");
    if (typeof signature === "string" && signature !== "") continue;
    const call = geminiField(first, "functionCall") as Json;
    return geminiInvalid(
      "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, " +
        "and missing thought_signature may lead to degraded model performance. Additional data, function call " +
        `\`default_api:${String(call.name)}\` , position ${i + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
    );
  }
  return undefined;
}
