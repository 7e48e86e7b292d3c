/**
 * The bridge from the SDK's CLI to the shop's tools: the executor's tools registered with the
 * SDK's in-process MCP server (`createSdkMcpServer` + `tool()`, their zod shapes). The CLI calls
 * them `mcp__shop__<name>`; what the shop stores and shows uses the plain names.
 */

import {
  createSdkMcpServer,
  type McpSdkServerConfigWithInstance,
  type SdkMcpToolDefinition,
  tool,
} from "@anthropic-ai/claude-agent-sdk";
import type { AssistantContentBlock, ToolExecutor, ToolOutcome } from "overlap-runtime";

/** The MCP server name the tools are registered under: the CLI calls them `mcp__shop__<name>`. */
export const SHOP_MCP_SERVER = "shop";
const PREFIX = `mcp__${SHOP_MCP_SERVER}__`;

/** The name the CLI knows the shop's tool `name` by. */
export function mcpToolName(name: string): string {
  return PREFIX + name;
}

/**
 * An MCP server holding `executor`'s tools; each call from the CLI goes to `run` with the tool's
 * name and the call's MCP extra (its call id, its abort signal), and answers with its outcome.
 */
export function shopMcpServer(
  // biome-ignore lint/suspicious/noExplicitAny: the path is agnostic of the host context.
  executor: ToolExecutor<any>,
  run: (name: string, extra: unknown) => Promise<ToolOutcome>,
): McpSdkServerConfigWithInstance {
  const tools = executor.specs().map((spec): SdkMcpToolDefinition => {
    const shape = (executor.tool(spec.name)?.input as { shape?: unknown } | undefined)?.shape;
    if (!shape || typeof shape !== "object") {
      throw new TypeError(`Tool "${spec.name}" needs an object schema for the whole path.`);
    }
    return tool(
      spec.name,
      spec.description ?? "",
      shape as SdkMcpToolDefinition["inputSchema"],
      async (_args, extra) => {
        const outcome = await run(spec.name, extra);
        return {
          content: [{ type: "text" as const, text: outcome.resultText }],
          ...(outcome.isError ? { isError: true } : {}),
        };
      },
    );
  });
  return createSdkMcpServer({ name: SHOP_MCP_SERVER, tools });
}

/** A block as the shop stores it: tool names without the MCP prefix the CLI gives them. */
export function localBlock(block: AssistantContentBlock): AssistantContentBlock {
  if (block.type === "tool_use" && block.name.startsWith(PREFIX)) {
    return { ...block, name: block.name.slice(PREFIX.length) };
  }
  return block;
}

/** The call id the CLI sends with an MCP tool call. */
export function toolUseIdOf(extra: unknown): string | undefined {
  const meta = (extra as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const id = meta?.["claudecode/toolUseId"];
  return typeof id === "string" ? id : undefined;
}
