/**
 * mcpTools: the tools of a Model Context Protocol server as ordinary tools of this runtime. Give
 * it a connected `Client` of `@modelcontextprotocol/sdk` (stdio, Streamable HTTP, any transport);
 * it lists the server's tools (every page) and returns tools for a ToolExecutor, so they start the
 * moment their arguments are complete like any other, with the same outcomes.
 *
 * - The model receives each tool's JSON Schema as the server sent it; the arguments are checked
 *   against it with ajv (compiled once per tool) and a call that fails it gets an `invalid_input`
 *   result without reaching the server.
 * - The call's AbortSignal (round cancelled, turn cancelled, timeout) cancels the MCP request: the
 *   SDK sends `notifications/cancelled` and stops waiting. The tool's `timeoutMs` is the request's
 *   timeout.
 * - Results: text blocks are the result text; images, audio, resource links and embedded
 *   resources are described in it briefly (the model reads text only); `isError: true` is an error
 *   outcome; `structuredContent` becomes a UI event and, when no text block came with it, JSON in
 *   the text. A failed transport or a server that dies mid-call is an error outcome saying the
 *   tool server failed: never a hang, never an exception out of the executor.
 *
 * Only types are imported from the SDK: this module runs without it, given any object with the
 * client's `listTools` and `callTool`.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type {
  CallToolResult,
  ContentBlock,
  Tool as McpToolDefinition,
  ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
import { MAX_TIMER_MS, timerDelay } from "../protocol/timer-delay.js";
import type { UiEvent } from "../protocol/ui-event.js";
import {
  defineJsonSchemaTool,
  type JsonObject,
  type JsonSchemaInput,
} from "../tools/define-json-schema-tool.js";
import type { DispatchPolicy, Tool, ToolReturn } from "../tools/define-tool.js";
import { ToolError } from "../tools/tool-error.js";

/** What mcpTools needs of a client: the SDK's `Client` has it. */
export type McpClientLike = Pick<Client, "listTools" | "callTool">;

/** A tool as an MCP server lists it (`tools/list`). */
export type { McpToolDefinition };

/** The `type` of the UI event that carries a result's `structuredContent`. */
export const MCP_STRUCTURED_CONTENT = "mcp-structured-content";

/** The UI event of a result with `structuredContent` (the AgentEvent `ui` carries call id and name). */
export interface McpStructuredContentEvent extends UiEvent {
  type: typeof MCP_STRUCTURED_CONTENT;
  content: Record<string, unknown>;
}

/** Options of {@link mcpTools}. Tool names here are the server's, before `prefix`. */
export interface McpToolsOptions {
  /** Only these tools. Naming a tool the server does not list is an error. */
  include?: readonly string[];
  /** All tools but these. */
  exclude?: readonly string[];
  /**
   * Put before every name the model sees (`"github_"`): two servers may both have `search`.
   * Characters the model APIs reject in a name (MCP allows `.` and `/`) become `_`.
   */
  prefix?: string;
  /**
   * Overrides the default policy (read-only tools eager, the others deferred; see
   * {@link defaultMcpDispatch}): one policy for every tool, a policy per tool name (naming a tool
   * the server does not list is an error), or a function (`undefined` keeps the default).
   */
  dispatch?:
    | DispatchPolicy
    | Readonly<Record<string, DispatchPolicy>>
    | ((tool: McpToolDefinition) => DispatchPolicy | undefined);
  /**
   * Milliseconds before a call is aborted (reported as a timeout and cancelled on the server), for
   * every tool. Unset, the ToolExecutor's `defaultTimeoutMs` applies (its timer cancels the request).
   */
  timeoutMs?: number;
  /** Cancels the listing. */
  signal?: AbortSignal;
  /** Told of each failed request (transport error, server death, protocol error), with the tool's name. */
  onServerError?: (error: unknown, tool: string) => void;
}

/** A tool of an MCP server, ready for a ToolExecutor. */
export interface McpTool<C = unknown> extends Tool<JsonSchemaInput, C> {
  /** The tool's name on the server (`name` is the model's: prefixed, made valid). */
  readonly mcpName: string;
  /** The server's hints about the tool (untrusted unless the server is). */
  readonly annotations: ToolAnnotations | undefined;
}

/**
 * Lists the server's tools (following `nextCursor` to the last page) and returns them as tools.
 * Throws when the listing fails, when `include` or `dispatch` names a tool the server does not
 * list, when two tools end up with the same name, or when a tool's name or schema cannot be used
 * (its error says so; `exclude` it). Tools that require task-based execution
 * (`execution.taskSupport: "required"`) are left out: they cannot be called directly.
 */
export async function mcpTools<C = unknown>(
  client: McpClientLike,
  options: McpToolsOptions = {},
): Promise<McpTool<C>[]> {
  const prefix = options.prefix ?? "";
  if (!/^[a-zA-Z0-9_-]*$/.test(prefix)) {
    throw new TypeError(`prefix "${prefix}" may only hold letters, digits, _ and -.`);
  }
  const listed = await listAllTools(client, options.signal);
  const known = new Set(listed.map((tool) => tool.name));
  const { dispatch } = options;
  const named = [
    ...(options.include ?? []),
    ...(typeof dispatch === "object" ? Object.keys(dispatch) : []),
  ];
  const missing = [...new Set(named.filter((name) => !known.has(name)))];
  if (missing.length > 0) {
    throw new Error(
      `The MCP server lists no tool named ${missing.map((n) => `"${n}"`).join(", ")}. It lists: ${[...known].join(", ")}.`,
    );
  }
  const include = options.include ? new Set(options.include) : undefined;
  const exclude = new Set(options.exclude ?? []);
  const byName = new Map<string, string>();
  const tools: McpTool<C>[] = [];
  for (const definition of listed) {
    if (include && !include.has(definition.name)) continue;
    if (exclude.has(definition.name)) continue;
    if (definition.execution?.taskSupport === "required") continue;
    const name = prefix + definition.name.replace(/[^a-zA-Z0-9_-]/g, "_");
    const clash = byName.get(name);
    if (clash !== undefined) {
      throw new Error(
        `MCP tools "${clash}" and "${definition.name}" would both be named "${name}": exclude one.`,
      );
    }
    byName.set(name, definition.name);
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
      throw new TypeError(
        `MCP tool "${definition.name}" would be named "${name}", which the model APIs refuse (1 to 64 letters, digits, _ or -): use a shorter prefix or exclude it.`,
      );
    }
    try {
      tools.push(mcpTool<C>(client, definition, name, options));
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      throw new TypeError(
        `${error.message} (exclude MCP tool "${definition.name}" to use the others)`,
        {
          cause: error,
        },
      );
    }
  }
  return tools;
}

/**
 * The default dispatch policy of an MCP tool: `eager` only when its annotations say
 * `readOnlyHint: true`, `deferred` otherwise (MCP's own default is "may modify its environment").
 *
 * An eager call starts the moment its arguments are complete, while the model is still writing the
 * message: if the message then ends badly (cut off, max_tokens, cancelled, an error), the call has
 * already run. For a read that costs nothing; for a write, a deletion or a payment it is an effect
 * the conversation never settled on. A deferred call runs only once the message ended normally
 * with `tool_use`, so a destructive tool runs only on a request the model finished making.
 * Annotations are hints from the server: override them with `dispatch` for a server you do not
 * trust.
 */
export function defaultMcpDispatch(tool: Pick<McpToolDefinition, "annotations">): DispatchPolicy {
  return tool.annotations?.readOnlyHint === true ? "eager" : "deferred";
}

async function listAllTools(
  client: McpClientLike,
  signal: AbortSignal | undefined,
): Promise<McpToolDefinition[]> {
  const tools: McpToolDefinition[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await client.listTools(
      cursor === undefined ? undefined : { cursor },
      signal ? { signal } : undefined,
    );
    tools.push(...page.tools);
    cursor = page.nextCursor;
    if (cursor !== undefined) {
      if (cursors.has(cursor)) {
        throw new Error(`The MCP server's tool list repeats the cursor "${cursor}".`);
      }
      cursors.add(cursor);
    }
  } while (cursor !== undefined);
  return tools;
}

function policyOf(definition: McpToolDefinition, options: McpToolsOptions): DispatchPolicy {
  const { dispatch } = options;
  const chosen =
    typeof dispatch === "string"
      ? dispatch
      : typeof dispatch === "function"
        ? dispatch(definition)
        : dispatch?.[definition.name];
  return chosen ?? defaultMcpDispatch(definition);
}

function mcpTool<C>(
  client: McpClientLike,
  definition: McpToolDefinition,
  name: string,
  options: McpToolsOptions,
): McpTool<C> {
  const mcpName = definition.name;
  const { timeoutMs, onServerError } = options;
  // The executor's timer stops the call (and with it the request); the SDK's own timeout, 60 s
  // unless told, must not cut it short.
  const requestTimeout = timerDelay(timeoutMs ?? Number.POSITIVE_INFINITY) ?? MAX_TIMER_MS;
  const tool = defineJsonSchemaTool<C>({
    name,
    description: definition.description ?? definition.annotations?.title ?? definition.title ?? "",
    inputSchema: definition.inputSchema,
    dispatch: policyOf(definition, options),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    run: async (input: JsonObject, { signal }): Promise<ToolReturn> => {
      let result: Awaited<ReturnType<McpClientLike["callTool"]>>;
      try {
        result = await client.callTool({ name: mcpName, arguments: input }, undefined, {
          signal,
          timeout: requestTimeout,
        });
      } catch (error) {
        // Cancelled or timed out by the executor: it reports that itself from an abort error.
        if (signal.aborted) throw abortError(name);
        try {
          onServerError?.(error, name);
        } catch {
          // A failing logger must not change the outcome.
        }
        throw new ToolError(failureText(name, error, requestTimeout));
      }
      return toolReturn(name, result);
    },
  });
  return { ...tool, mcpName, annotations: definition.annotations };
}

const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;

function abortError(name: string): Error {
  const error = new Error(`${name} was aborted.`);
  error.name = "AbortError";
  return error;
}

/** What the model reads when the request failed: always that the tool server is at fault. */
function failureText(name: string, error: unknown, timeoutMs: number): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === CONNECTION_CLOSED) {
    return `The tool server of ${name} failed: its connection closed during the call, which may or may not have taken effect. Check before calling it again.`;
  }
  if (message === "Not connected") {
    return `The tool server of ${name} failed: it is not connected, so the call was not sent.`;
  }
  if (code === REQUEST_TIMEOUT) {
    return `The tool server of ${name} did not answer within ${timeoutMs} ms; the call may or may not have taken effect.`;
  }
  if (typeof code === "number" && error instanceof Error) {
    // A JSON-RPC error the server sent (unknown tool, invalid params...): meant to be read.
    return `The tool server rejected the call to ${name}: ${message}`;
  }
  return `The tool server of ${name} failed: the request could not be completed (${error instanceof Error ? error.name : "error"}). It may or may not have taken effect.`;
}

/** An MCP tool result as the runtime's return value. */
function toolReturn(name: string, result: Awaited<ReturnType<McpClientLike["callTool"]>>) {
  if (!Array.isArray(result.content)) {
    // A server on the 2024-10-07 protocol answers `{ toolResult }`.
    return { text: JSON.stringify(result.toolResult ?? null) } satisfies ToolReturn;
  }
  const { content, structuredContent, isError } = result as CallToolResult;
  const parts = content.map(describeBlock);
  const hasText = content.some((block) => block.type === "text");
  if (structuredContent !== undefined && !hasText) parts.push(JSON.stringify(structuredContent));
  const text = parts.filter((part) => part !== "").join("\n");
  const events: UiEvent[] =
    structuredContent === undefined
      ? []
      : [{ type: MCP_STRUCTURED_CONTENT, content: structuredContent }];
  if (isError === true) {
    return {
      text: text === "" ? `${name} failed; the tool server gave no details.` : text,
      events,
      isError: true,
    } satisfies ToolReturn;
  }
  // No text at all: the executor's "Done." (an empty tool result is refused by some APIs).
  return (text === "" ? { events } : { text, events }) satisfies ToolReturn;
}

/** One content block as text: text as is, anything else described in brackets. */
function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type} ${block.mimeType}, ${formatSize(base64Bytes(block.data))}]`;
    case "resource_link":
      return `[resource link ${block.name}: ${block.uri}${describeMime(block.mimeType)}]`;
    case "resource": {
      const { resource } = block;
      if ("text" in resource && typeof resource.text === "string") {
        return `[resource ${resource.uri}${describeMime(resource.mimeType)}]\n${resource.text}`;
      }
      const blob = "blob" in resource && typeof resource.blob === "string" ? resource.blob : "";
      return `[resource ${resource.uri}${describeMime(resource.mimeType)}, ${formatSize(base64Bytes(blob))}]`;
    }
    default:
      return `[${(block as { type?: unknown }).type} content]`;
  }
}

function describeMime(mimeType: string | undefined): string {
  return mimeType ? `, ${mimeType}` : "";
}

function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
