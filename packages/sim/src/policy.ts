/**
 * The policy decides each response from the request. The package ships {@link genericPolicy};
 * an application supplies its own (the shop's knows its catalogue).
 */

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
 */
export const genericPolicy: SimPolicy = (request) => {
  const last = request.messages.at(-1);
  if (last?.role === "user" && last.content.some((b) => b.type === "tool_result")) {
    return {
      blocks: [{ type: "text", text: summariseResults(request.messages) }],
      stopReason: "end_turn",
    };
  }
  const userText = last?.role === "user" ? textOf(last) : "";
  const toolNames = new Set(request.tools.map((t) => t.name));
  const calls = parseCallDirectives(userText, toolNames);
  if (calls.length > 0) {
    const names = calls.map((c) => c.name);
    const blocks: SimBlock[] = [{ type: "text", text: `Calling ${joinNames(names)}.` }];
    for (const call of calls) blocks.push({ type: "tool_use", name: call.name, input: call.input });
    return { blocks, stopReason: "tool_use" };
  }
  return {
    blocks: [{ type: "text", text: introduction(userText, [...toolNames]) }],
    stopReason: "end_turn",
  };
};

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
