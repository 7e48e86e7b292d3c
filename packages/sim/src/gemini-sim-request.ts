/**
 * The neutral view of a (validated) Gemini `generateContent` request body, for the policy:
 * `contents` become messages in the Messages API's shape (`model` → assistant), `functionCall`
 * parts become tool_use blocks and `functionResponse` parts tool_result blocks.
 *
 * Gemini calls usually carry no id: each gets `gemini_call_<content>_<part>` (or its own `id`),
 * and a response answers the call with its `id`, else the call at its position in the function
 * call turn before it (the API pairs them by position and name).
 */

import type {
  SimRequest,
  SimRequestBlock,
  SimRequestMessage,
  SimRequestTool,
  SimRequestToolResult,
} from "./sim-request.js";
import { isJsonObject } from "./validate-request.js";

type Json = Record<string, unknown>;

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const asString = (v: unknown): string => (typeof v === "string" ? v : "");

/** A field by its JSON name or its proto (snake_case) name, as the API accepts both. */
export function geminiField(object: Json, name: string): unknown {
  return object[name] ?? object[snakeCase(name)];
}

/** `functionCall` → `function_call`. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The text of a function response's `response` object. */
function responseText(response: unknown): { text: string; isError: boolean } {
  if (!isJsonObject(response)) return { text: "", isError: false };
  for (const key of ["result", "output"]) {
    if (typeof response[key] === "string") return { text: response[key] as string, isError: false };
  }
  if (typeof response.error === "string" && response.result === undefined) {
    return { text: response.error, isError: true };
  }
  return { text: JSON.stringify(response), isError: false };
}

/** The neutral view of a Gemini request (the model and streaming come from the URL). */
export function simRequestFromGemini(
  body: Readonly<Record<string, unknown>>,
  headers: Readonly<Record<string, string>>,
  route: { model: string; stream: boolean },
): SimRequest {
  const messages: SimRequestMessage[] = [];
  /** The call ids of the last function call turn, in part order. */
  let lastCalls: string[] = [];
  asArray(body.contents).forEach((content, c) => {
    if (!isJsonObject(content)) return;
    const role = content.role === "model" ? "assistant" : "user";
    const blocks: SimRequestBlock[] = [];
    const calls: string[] = [];
    let answered = 0;
    asArray(content.parts).forEach((part, p) => {
      if (!isJsonObject(part)) return;
      const call = geminiField(part, "functionCall");
      const response = geminiField(part, "functionResponse");
      if (isJsonObject(call)) {
        const id = asString(call.id) || `gemini_call_${c}_${p}`;
        calls.push(id);
        blocks.push({
          type: "tool_use",
          id,
          name: asString(call.name),
          input: isJsonObject(call.args) ? call.args : {},
        });
      } else if (isJsonObject(response)) {
        const { text, isError } = responseText(response.response);
        const result: SimRequestToolResult = {
          type: "tool_result",
          tool_use_id: asString(response.id) || (lastCalls[answered] ?? `gemini_call_${c}_${p}`),
          content: text,
        };
        answered++;
        if (isError) result.is_error = true;
        blocks.push(result);
      } else if (typeof part.text === "string" && part.thought !== true) {
        blocks.push({ type: "text", text: part.text });
      } else {
        blocks.push({ type: "other", block: part });
      }
    });
    if (role === "assistant") lastCalls = calls;
    messages.push({ role, content: blocks });
  });
  const tools: SimRequestTool[] = [];
  for (const tool of asArray(body.tools)) {
    if (!isJsonObject(tool)) continue;
    for (const declaration of asArray(geminiField(tool, "functionDeclarations"))) {
      if (!isJsonObject(declaration)) continue;
      const schema =
        geminiField(declaration, "parametersJsonSchema") ?? geminiField(declaration, "parameters");
      tools.push({
        name: asString(declaration.name),
        description: asString(declaration.description),
        input_schema: isJsonObject(schema) ? schema : { type: "object", properties: {} },
      });
    }
  }
  const request: SimRequest = {
    api: "gemini",
    model: route.model,
    messages,
    tools,
    stream: route.stream,
    headers,
  };
  const system = geminiField(body, "systemInstruction");
  if (isJsonObject(system)) {
    request.system = asArray(system.parts)
      .map((p) => (isJsonObject(p) ? asString(p.text) : ""))
      .join("");
  }
  const config = geminiField(body, "generationConfig");
  const limit = isJsonObject(config) ? geminiField(config, "maxOutputTokens") : undefined;
  if (typeof limit === "number") request.maxTokens = limit;
  return request;
}

/** True when the request asks for thought parts (`thinkingConfig.includeThoughts`). */
export function geminiWantsThinking(body: Readonly<Record<string, unknown>>): boolean {
  const config = geminiField(body, "generationConfig");
  const thinking = isJsonObject(config) ? geminiField(config, "thinkingConfig") : undefined;
  return isJsonObject(thinking) && geminiField(thinking, "includeThoughts") === true;
}
