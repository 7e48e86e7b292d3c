/**
 * The policy decides each response from the request. The package ships {@link genericPolicy};
 * an application supplies its own (the shop's knows its catalogue).
 */

import { schemaExample } from "./schema-example.js";
import type { SimBlock, SimScript } from "./script.js";
import type { SimRequest, SimRequestMessage, SimRequestToolUse } from "./sim-request.js";

/** Decides the response to one request. May be async; a throw becomes a 500 `api_error`. */
export type SimPolicy = (request: SimRequest) => SimScript | Promise<SimScript>;

/** How much of each tool result the summary quotes. */
const RESULT_PREVIEW_CHARS = 200;

/**
 * The built-in policy: deterministic, and enough to drive tool rounds in tests.
 *
 * 1. The last message is a user message holding `tool_result` blocks: answer with a short text
 *    summarising them, `Results: name: content; …` (failed ones as `name failed: …`), stop
 *    `end_turn`.
 * 2. The last user text holds directives `call <tool_name> <json>` (any number, anywhere in the
 *    text): a short text naming the calls, then one `tool_use` per directive in order, stop
 *    `tool_use`. A directive counts when a JSON object follows the name, or when the name is one of
 *    the request's tools (then the input is `{}`). A JSON object that does not parse is sent as raw
 *    argument text: the way to make the model emit invalid arguments.
 * 3. Otherwise: a text saying that this is a scripted model, echoing the user's words and
 *    explaining the directives.
 *
 * The request's form is honoured as a real model must: with `toolChoice` `none` no tool is
 * called; a forced tool is called (its directive's input, else the answer, else an example of its
 * schema) and nothing else; `required` calls the directives' tools, else the last tool offered;
 * forced calls come without a text before them. With an output schema (JSON mode) the answers of
 * rules 1 and 3 are the JSON of the answer. The answer is the object of the latest
 * `answer <json>` directive of the user's texts (raw text when it does not parse: the way to make
 * the model answer invalid JSON), else an example of the schema.
 */
export const genericPolicy: SimPolicy = (request) => {
  const choice = request.toolChoice ?? "auto";
  const last = request.messages.at(-1);
  const afterResults = last?.role === "user" && last.content.some((b) => b.type === "tool_result");
  const userText = !afterResults && last?.role === "user" ? textOf(last) : "";
  const toolNames = new Set(request.tools.map((t) => t.name));
  const directed = choice === "none" ? [] : parseCallDirectives(userText, toolNames);
  const calls =
    typeof choice === "object" ? directed.filter((c) => c.name === choice.name) : directed;
  if (calls.length === 0 && (typeof choice === "object" || choice === "required")) {
    const name = typeof choice === "object" ? choice.name : request.tools.at(-1)?.name;
    if (name !== undefined) calls.push({ name, input: forcedInput(request, name) });
  }
  if (calls.length > 0) {
    const blocks: SimBlock[] =
      choice === "auto"
        ? [{ type: "text", text: `Calling ${joinNames(calls.map((c) => c.name))}.` }]
        : [];
    for (const call of calls) blocks.push({ type: "tool_use", name: call.name, input: call.input });
    return { blocks, stopReason: "tool_use" };
  }
  if (request.outputSchema !== undefined) {
    const answer = answerOf(request) ?? schemaExample(request.outputSchema);
    const text = typeof answer === "string" ? answer : JSON.stringify(answer);
    return { blocks: [{ type: "text", text }], stopReason: "end_turn" };
  }
  const text = afterResults
    ? summariseResults(request.messages)
    : introduction(userText, [...toolNames]);
  return { blocks: [{ type: "text", text }], stopReason: "end_turn" };
};

/** The input of a forced call: the answer directive's object, else an example of its schema. */
function forcedInput(request: SimRequest, name: string): Record<string, unknown> | string {
  const answer = answerOf(request);
  if (typeof answer === "string" || isRecord(answer)) return answer;
  const example = schemaExample(request.tools.find((t) => t.name === name)?.input_schema);
  return isRecord(example) ? example : {};
}

const ANSWER = /\banswer\s*(?=\{)/g;

/**
 * The object of the latest `answer <json>` directive in the user's texts (the raw text when it
 * does not parse), or undefined when there is none.
 */
export function answerOf(
  request: Pick<SimRequest, "messages">,
): Record<string, unknown> | string | undefined {
  for (const message of [...request.messages].reverse()) {
    if (message.role !== "user") continue;
    const text = textOf(message);
    let found: string | undefined;
    for (const match of text.matchAll(ANSWER)) {
      found = balancedObject(text, match.index + match[0].length);
    }
    if (found !== undefined) return parseObject(found);
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One `call <name> <json>` directive found in a text. */
export interface CallDirective {
  name: string;
  /** The parsed object, or the raw text when the JSON does not parse. */
  input: Record<string, unknown> | string;
}

const DIRECTIVE = /\bcall\s+([A-Za-z_][\w.-]*)/g;

/**
 * Finds the `call <tool_name> <json>` directives of a text, in order. See {@link genericPolicy}
 * for when a directive counts.
 */
export function parseCallDirectives(text: string, toolNames: ReadonlySet<string>): CallDirective[] {
  const calls: CallDirective[] = [];
  for (const match of text.matchAll(DIRECTIVE)) {
    const name = match[1] ?? "";
    let at = match.index + match[0].length;
    while (at < text.length && /\s/.test(text.charAt(at))) at++;
    const json = text.charAt(at) === "{" ? balancedObject(text, at) : undefined;
    if (json !== undefined) calls.push({ name, input: parseObject(json) });
    else if (toolNames.has(name)) calls.push({ name, input: {} });
  }
  return calls;
}

/** The text from `start` (a `{`) to its matching `}`, skipping strings; to the end if unclosed. */
function balancedObject(text: string, start: number): string {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charAt(i);
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return text.slice(start, i + 1);
  }
  return text.slice(start);
}

function parseObject(json: string): Record<string, unknown> | string {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : json;
  } catch {
    return json;
  }
}

function textOf(message: SimRequestMessage): string {
  return message.content
    .flatMap((b) => (b.type === "text" ? [b.text] : []))
    .join("\n")
    .trim();
}

function summariseResults(messages: readonly SimRequestMessage[]): string {
  const last = messages.at(-1);
  const previous = messages.at(-2);
  const calls = new Map<string, SimRequestToolUse>();
  for (const b of previous?.content ?? []) if (b.type === "tool_use") calls.set(b.id, b);
  const parts = (last?.content ?? []).flatMap((b) => {
    if (b.type !== "tool_result") return [];
    const name = calls.get(b.tool_use_id)?.name ?? b.tool_use_id;
    const content =
      b.content.length > RESULT_PREVIEW_CHARS
        ? `${b.content.slice(0, RESULT_PREVIEW_CHARS)}…`
        : b.content;
    return [b.is_error === true ? `${name} failed: ${content}` : `${name}: ${content}`];
  });
  return `Results: ${parts.join("; ")}`;
}

function introduction(userText: string, toolNames: readonly string[]): string {
  const echo =
    userText === ""
      ? ""
      : ` You said: "${userText.length > 120 ? `${userText.slice(0, 120)}…` : userText}".`;
  const tools = toolNames.length > 0 ? ` Tools on offer: ${toolNames.join(", ")}.` : "";
  return (
    `I am a scripted model (overlap-sim), not a language model.${echo} ` +
    `Write "call <tool_name> {json}" to make me call a tool; several directives make parallel calls.${tools} ` +
    "When the tool results come back, I summarise them."
  );
}

function joinNames(names: readonly string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}
