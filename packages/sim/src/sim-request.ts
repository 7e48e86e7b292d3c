/**
 * One neutral view of an incoming request, whatever API it came through, for the policy. The
 * conversation is in the Messages API's shape: OpenAI assistant `tool_calls` become `tool_use`
 * blocks and `role: "tool"` messages become `tool_result` blocks in a user message.
 */

/** Text of a message. */
export interface SimRequestText {
  type: "text";
  text: string;
}

/** A tool call made earlier in the conversation. */
export interface SimRequestToolUse {
  type: "tool_use";
  id: string;
  name: string;
  /** The parsed arguments; the raw text when they were not valid JSON (OpenAI only). */
  input: unknown;
}

/** A tool's result, with its content flattened to text (non-text parts become `[type]`). */
export interface SimRequestToolResult {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

/** Any other block (thinking, images, server tool blocks...), kept as sent. */
export interface SimRequestOtherBlock {
  type: "other";
  block: Readonly<Record<string, unknown>>;
}

/** One content block of a {@link SimRequestMessage}. */
export type SimRequestBlock =
  | SimRequestText
  | SimRequestToolUse
  | SimRequestToolResult
  | SimRequestOtherBlock;

/** One message of the conversation. */
export interface SimRequestMessage {
  role: "user" | "assistant";
  content: SimRequestBlock[];
}

/** A tool the client offers. */
export interface SimRequestTool {
  name: string;
  description: string;
  input_schema: Readonly<Record<string, unknown>>;
}

/** A kind of provider-side tool a request can offer. */
export type SimProviderTool = "web_search" | "code_execution";

/** A request's tool choice: `auto` (the default), `none`, `required`, or one tool by name. */
export type SimToolChoice = "auto" | "none" | "required" | { name: string };

/** What a policy sees of a request. */
export interface SimRequest {
  api: "anthropic" | "openai" | "gemini" | "responses" | "bedrock";
  /** The model the client asked for (the response reports a `scripted-` name). */
  model: string;
  system?: string;
  messages: SimRequestMessage[];
  /** The client's own tools; provider tools such as web search are not listed. */
  tools: SimRequestTool[];
  /**
   * The provider's own tools the request offers (Anthropic `web_search_…`, Responses
   * `web_search`, Gemini `googleSearch`, Bedrock `nova_grounding`, Chat Completions
   * `web_search_options`; code execution likewise), filled in by the server for every request.
   */
  providerTools?: readonly SimProviderTool[];
  /** The tool choice the request asks for (absent: `auto`), filled in by the server. */
  toolChoice?: SimToolChoice;
  /**
   * The JSON Schema the answer's text must follow when the request asks for JSON output
   * (`{}`: any JSON), filled in by the server; absent for free text.
   */
  outputSchema?: Readonly<Record<string, unknown>>;
  maxTokens?: number;
  stream: boolean;
  /** Lower-cased request headers, without credentials (`authorization`, `x-api-key`, cookies). */
  headers: Readonly<Record<string, string>>;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const asString = (v: unknown): string => (typeof v === "string" ? v : "");
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Flattens text-or-parts content (both APIs allow either) to one string. */
function flattenText(content: unknown): string {
  if (typeof content === "string") return content;
  return asArray(content)
    .map((part) =>
      isObject(part) && typeof part.text === "string"
        ? part.text
        : `[${String(isObject(part) ? part.type : "?")}]`,
    )
    .join("");
}

function anthropicBlock(block: unknown): SimRequestBlock {
  if (!isObject(block)) return { type: "other", block: {} };
  switch (block.type) {
    case "text":
      return { type: "text", text: asString(block.text) };
    case "tool_use":
      return {
        type: "tool_use",
        id: asString(block.id),
        name: asString(block.name),
        input: block.input,
      };
    case "tool_result": {
      const result: SimRequestToolResult = {
        type: "tool_result",
        tool_use_id: asString(block.tool_use_id),
        content: flattenText(block.content),
      };
      if (typeof block.is_error === "boolean") result.is_error = block.is_error;
      return result;
    }
    default:
      return { type: "other", block };
  }
}

/** Lower-cases header names and drops credentials, which a policy never needs to see. */
export function publicHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (value === undefined || key === "authorization" || key === "x-api-key" || key === "cookie")
      continue;
    out[key] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/**
 * Adds a tool result to a conversation being built: to the last message when it is a user message
 * holding only results so far, else in a new user message, so that results come first in a user
 * message, as the Messages API requires.
 */
export function pushToolResult(messages: SimRequestMessage[], result: SimRequestToolResult): void {
  const last = messages.at(-1);
  if (last?.role === "user" && last.content.every((b) => b.type === "tool_result")) {
    last.content.push(result);
  } else {
    messages.push({ role: "user", content: [result] });
  }
}

/**
 * A {@link SimRequest} from what every format has: `model` and `stream` read from the body, the
 * system parts joined by newlines (no `system` when there is none), `maxTokens` when a number.
 */
export function assembleSimRequest(
  api: SimRequest["api"],
  body: Readonly<Record<string, unknown>>,
  parts: {
    system: readonly string[];
    messages: SimRequestMessage[];
    tools: SimRequestTool[];
    maxTokens: unknown;
    headers: Readonly<Record<string, string>>;
  },
): SimRequest {
  const request: SimRequest = {
    api,
    model: asString(body.model),
    messages: parts.messages,
    tools: parts.tools,
    stream: body.stream === true,
    headers: parts.headers,
  };
  if (parts.system.length > 0) request.system = parts.system.join("\n");
  if (typeof parts.maxTokens === "number") request.maxTokens = parts.maxTokens;
  return request;
}

/** The neutral view of a (validated) Messages API request body. */
export function simRequestFromAnthropic(
  body: Readonly<Record<string, unknown>>,
  headers: Readonly<Record<string, string>>,
): SimRequest {
  const messages: SimRequestMessage[] = asArray(body.messages)
    .filter(isObject)
    .map((m) => ({
      role: m.role === "assistant" ? "assistant" : "user",
      content:
        typeof m.content === "string"
          ? [{ type: "text", text: m.content }]
          : asArray(m.content).map(anthropicBlock),
    }));
  const tools: SimRequestTool[] = asArray(body.tools)
    .filter(isObject)
    // Provider tools (web search...) carry no input_schema and are not the client's to run.
    .filter((t) => isObject(t.input_schema))
    .map((t) => ({
      name: asString(t.name),
      description: asString(t.description),
      input_schema: isObject(t.input_schema) ? t.input_schema : {},
    }));
  return assembleSimRequest("anthropic", body, {
    // A system of "" is kept as "", as the client sent it.
    system: body.system === undefined ? [] : [flattenText(body.system)],
    messages,
    tools,
    maxTokens: body.max_tokens,
    headers,
  });
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The neutral view of a (validated) Chat Completions request body. System and developer messages
 * become `system`; consecutive tool messages (and a user message right after them) merge into one
 * user message, results first, as the Messages API requires.
 */
export function simRequestFromOpenAI(
  body: Readonly<Record<string, unknown>>,
  headers: Readonly<Record<string, string>>,
): SimRequest {
  const system: string[] = [];
  const messages: SimRequestMessage[] = [];
  const lastUser = (): SimRequestMessage | undefined => {
    const last = messages.at(-1);
    return last?.role === "user" ? last : undefined;
  };
  for (const m of asArray(body.messages).filter(isObject)) {
    if (m.role === "system" || m.role === "developer") {
      system.push(flattenText(m.content));
    } else if (m.role === "tool") {
      const result: SimRequestToolResult = {
        type: "tool_result",
        tool_use_id: asString(m.tool_call_id),
        content: flattenText(m.content),
      };
      pushToolResult(messages, result);
    } else if (m.role === "assistant") {
      const content: SimRequestBlock[] = [];
      const text = m.content === null || m.content === undefined ? "" : flattenText(m.content);
      if (text !== "") content.push({ type: "text", text });
      for (const call of asArray(m.tool_calls).filter(isObject)) {
        const fn = isObject(call.function) ? call.function : {};
        content.push({
          type: "tool_use",
          id: asString(call.id),
          name: asString(fn.name),
          input: parseArguments(asString(fn.arguments)),
        });
      }
      messages.push({ role: "assistant", content });
    } else {
      const text: SimRequestText = { type: "text", text: flattenText(m.content) };
      const user = lastUser();
      if (user) user.content.push(text);
      else messages.push({ role: "user", content: [text] });
    }
  }
  const tools: SimRequestTool[] = asArray(body.tools)
    .filter(isObject)
    .map((t) => (isObject(t.function) ? t.function : {}))
    .map((fn) => ({
      name: asString(fn.name),
      description: asString(fn.description),
      input_schema: isObject(fn.parameters) ? fn.parameters : { type: "object", properties: {} },
    }));
  return assembleSimRequest("openai", body, {
    system,
    messages,
    tools,
    maxTokens: body.max_completion_tokens ?? body.max_tokens,
    headers,
  });
}
