/**
 * An MCP server for the tests of mcpTools, written with the MCP SDK's McpServer. Run as a script
 * (`node --import tsx test-mcp-server.ts`) it serves over stdio and appends what it sees (calls,
 * cancellations, completions) as JSON lines to the file named by MCP_FIXTURE_LOG; imported, it
 * gives `createTestServer(log)` for an in-process transport (Streamable HTTP).
 */

import { appendFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

/** One thing the server saw. */
export interface ServerLogEntry {
  event: "call" | "cancelled" | "done";
  tool: string;
  args?: unknown;
}

/** 2048 bytes of a fake PNG, base64 ("[image image/png, 2 KB]"). */
export const PICTURE_BASE64 = Buffer.alloc(2048, 7).toString("base64");

export function createTestServer(log: (entry: ServerLogEntry) => void): McpServer {
  const server = new McpServer({ name: "overlap-test-server", version: "1.0.0" });

  server.registerTool(
    "lookup",
    {
      description: "Stock of a product.",
      inputSchema: { sku: z.string().regex(/^[A-Z]+$/) },
      annotations: { readOnlyHint: true },
    },
    ({ sku }) => {
      log({ event: "call", tool: "lookup", args: { sku } });
      return { content: [{ type: "text", text: `${sku}: 3 in stock` }] };
    },
  );

  server.registerTool(
    "delete_record",
    {
      description: "Deletes a record for good.",
      inputSchema: { id: z.number().int().min(1) },
      annotations: { destructiveHint: true },
    },
    ({ id }) => {
      log({ event: "call", tool: "delete_record", args: { id } });
      return { content: [{ type: "text", text: `Deleted record ${id}.` }] };
    },
  );

  server.registerTool(
    "slow",
    {
      description: "Waits, unless cancelled.",
      inputSchema: { ms: z.number().int().min(0) },
      annotations: { readOnlyHint: true },
    },
    async ({ ms }, extra) => {
      log({ event: "call", tool: "slow", args: { ms } });
      const cancelled = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        extra.signal.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            resolve(true);
          },
          { once: true },
        );
      });
      log({ event: cancelled ? "cancelled" : "done", tool: "slow", args: { ms } });
      return { content: [{ type: "text", text: `Waited ${ms} ms.` }] };
    },
  );

  server.registerTool(
    "fail",
    { description: "Reports an error.", annotations: { readOnlyHint: true } },
    () => {
      log({ event: "call", tool: "fail" });
      return { isError: true, content: [{ type: "text", text: "Out of stock: SOCK" }] };
    },
  );

  server.registerTool(
    "picture",
    {
      description: "A picture, a sound and links, with structured content.",
      outputSchema: { width: z.number(), height: z.number() },
      annotations: { readOnlyHint: true },
    },
    () => {
      log({ event: "call", tool: "picture" });
      return {
        content: [
          { type: "image", data: PICTURE_BASE64, mimeType: "image/png" },
          { type: "audio", data: Buffer.alloc(10).toString("base64"), mimeType: "audio/wav" },
          {
            type: "resource_link",
            uri: "file:///photos/cat.png",
            name: "cat.png",
            mimeType: "image/png",
          },
          {
            type: "resource",
            resource: { uri: "file:///notes.txt", mimeType: "text/plain", text: "A cat." },
          },
        ],
        structuredContent: { width: 64, height: 32 },
      };
    },
  );

  server.registerTool(
    "report",
    { description: "Text plus structured content.", annotations: { readOnlyHint: true } },
    () => {
      log({ event: "call", tool: "report" });
      return {
        content: [{ type: "text", text: "2 orders" }],
        structuredContent: { orders: 2 },
      };
    },
  );

  server.registerTool(
    "files.read",
    {
      description: "Reads a file (a name with a dot, as MCP allows).",
      inputSchema: { path: z.string() },
      annotations: { readOnlyHint: true },
    },
    ({ path }) => {
      log({ event: "call", tool: "files.read", args: { path } });
      return { content: [{ type: "text", text: `contents of ${path}` }] };
    },
  );

  server.registerTool("crash", { description: "The server process dies mid-call." }, () => {
    log({ event: "call", tool: "crash" });
    process.exit(3);
  });

  return server;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = process.env.MCP_FIXTURE_LOG;
  const server = createTestServer((entry) => {
    if (file) appendFileSync(file, `${JSON.stringify(entry)}\n`);
  });
  await server.connect(new StdioServerTransport());
}
