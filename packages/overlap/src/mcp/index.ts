/**
 * overlap-runtime/mcp: the tools of a Model Context Protocol server as tools of this runtime.
 * Needs `@modelcontextprotocol/sdk` (an optional peer dependency) for the client you pass in.
 */
export {
  defaultMcpDispatch,
  MCP_STRUCTURED_CONTENT,
  type McpClientLike,
  type McpStructuredContentEvent,
  type McpTool,
  type McpToolDefinition,
  type McpToolsOptions,
  mcpTools,
} from "./mcp-tools.js";
