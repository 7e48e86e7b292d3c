/**
 * How the SDK's CLI is started for one turn: in the turn's empty temporary directory, with an
 * environment of its own (never the server's secrets), no built-in tool, no settings file and no
 * prompt of Claude Code's, only the shop's tools; thinking off; the earlier messages handed over
 * as a transcript it resumes, the user's new message as its prompt.
 */

import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type {
  McpSdkServerConfigWithInstance,
  Options,
  SDKUserMessage,
} from "@anthropic-ai/claude-agent-sdk";
import type { Message } from "overlap-runtime";
import { anthropicParams } from "overlap-runtime/anthropic";
import type { MessagesApiEndpoint } from "../../model/model-from-env.js";
import { transcriptEntries, transcriptStore } from "./claude-transcript.js";
import { mcpToolName, SHOP_MCP_SERVER } from "./shop-mcp-server.js";

/** What {@link agentSdkOptions} builds the CLI's options from. */
export interface AgentSdkSetup {
  endpoint: MessagesApiEndpoint;
  /** The shop's tool names (plain, without the MCP prefix). */
  toolNames: readonly string[];
  /** The MCP server holding the shop's tools (`shopMcpServer`). */
  mcpServer: McpSdkServerConfigWithInstance;
  /** The conversation before the user's new message. */
  history: readonly Message[];
  /** The turn's temporary directory: the CLI's working directory and home. */
  dir: string;
  /** Aborts the CLI's run. */
  controller: AbortController;
  system?: string;
  /** Most model requests in the turn (the SDK's `maxTurns`). Default 10. */
  maxRounds?: number;
  /** The CLI's stderr lines (debug output, warnings). */
  onStderr?: ((line: string) => void) | undefined;
}

/** The SDK's options for one turn. */
export function agentSdkOptions(setup: AgentSdkSetup): Options {
  const { endpoint, toolNames: names, history, dir } = setup;
  const env: Record<string, string | undefined> = {
    // The CLI gets only what it needs: never the server's own secrets or database address.
    PATH: process.env.PATH,
    HOME: dir,
    CLAUDE_CONFIG_DIR: join(dir, "config"),
    ANTHROPIC_API_KEY: endpoint.apiKey,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    // A failed stream is an error of the turn, not a second, non-streamed request.
    CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK: "1",
    CLAUDE_AGENT_SDK_CLIENT_APP: "overlap-shop/0.1.0",
  };
  if (endpoint.baseUrl) env.ANTHROPIC_BASE_URL = endpoint.baseUrl;
  const options: Options = {
    abortController: setup.controller,
    cwd: dir,
    env,
    model: endpoint.model,
    mcpServers: { [SHOP_MCP_SERVER]: setup.mcpServer },
    strictMcpConfig: true,
    // No built-in tool, no settings file, no prompt of Claude Code's: only the host's tools.
    tools: [],
    allowedTools: names.map(mcpToolName),
    // A model that names a tool without the MCP prefix (the scripted one) reaches it too.
    toolAliases: Object.fromEntries(names.map((n) => [n, mcpToolName(n)])),
    permissionMode: "dontAsk",
    settingSources: [],
    systemPrompt: setup.system ?? "",
    thinking: { type: "disabled" },
    maxTurns: setup.maxRounds ?? 10,
    // Read for the message-level events only: when each response starts and ends.
    includePartialMessages: true,
    stderr: (data) => {
      for (const line of data.split("\n")) if (line.trim()) setup.onStderr?.(line);
    },
  };
  if (history.length === 0) return { ...options, persistSession: false };
  // Earlier messages come from the shop's store, as a transcript the CLI resumes; the CLI's
  // own copy lives in the turn's temporary directory and goes with it.
  const sessionId = randomUUID();
  const entries = transcriptEntries(claudeMessages(history, endpoint.model) as Message[], {
    sessionId,
    cwd: dir,
    model: endpoint.model,
  });
  return { ...options, resume: sessionId, sessionStore: transcriptStore(sessionId, entries) };
}

/** The user's new message (the last of `conversation` when the CLI reads it), as the prompt. */
export async function* agentSdkPrompt(
  conversation: readonly Message[],
  model: string,
): AsyncGenerator<SDKUserMessage> {
  const last = conversation.at(-1) as Message & { role: "user" };
  const [message] = claudeMessages([last], model);
  yield {
    type: "user",
    message: message as SDKUserMessage["message"],
    parent_tool_use_id: null,
  };
}

/** The conversation as the Messages API takes it (other providers' fields left out). */
function claudeMessages(messages: readonly Message[], model: string): unknown[] {
  return anthropicParams({ messages, tools: [] }, { model }).messages;
}
