import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runAgentTurn } from "../agent/run-agent-turn.js";
import { validateConversation } from "../agent/validate-conversation.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import type { ToolResultBlock } from "../stream/message.js";
import { type ToolCall, toolCallOf } from "../stream/tool-call.js";
import { buildStreamEvents, fakeModel } from "../testing/index.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { createTestServer, type ServerLogEntry } from "./__fixtures__/test-mcp-server.js";
import {
  defaultMcpDispatch,
  MCP_STRUCTURED_CONTENT,
  type McpClientLike,
  type McpToolDefinition,
  mcpTools,
} from "./index.js";

const FIXTURE = fileURLToPath(new URL("./__fixtures__/test-mcp-server.ts", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

let ids = 0;
const call = (name: string, value: Record<string, unknown>): ToolCall =>
  toolCallOf({ type: "tool_use", id: `call_${++ids}`, name, input: value });

/** An MCP server process over stdio (the SDK's McpServer in the fixture), and what it saw. */
interface StdioServer {
  client: Client;
  log(): Promise<ServerLogEntry[]>;
  close(): Promise<void>;
}

async function startStdioServer(): Promise<StdioServer> {
  const dir = await mkdtemp(join(tmpdir(), "overlap-mcp-"));
  const file = join(dir, "server-log.jsonl");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", FIXTURE],
    env: { MCP_FIXTURE_LOG: file },
    cwd: REPO_ROOT,
    stderr: "ignore",
  });
  const client = new Client({ name: "overlap-test", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    log: async () => {
      const text = await readFile(file, "utf8").catch(() => "");
      return text
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as ServerLogEntry);
    },
    close: async () => {
      await client.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("waitFor: timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const seen = (
  entries: ServerLogEntry[],
  event: ServerLogEntry["event"],
  tool: string,
  args?: object,
) =>
  entries.find(
    (e) =>
      e.event === event &&
      e.tool === tool &&
      (args === undefined || JSON.stringify(e.args) === JSON.stringify(args)),
  );

describe("mcpTools over stdio (a real MCP server process)", () => {
  let server: StdioServer;
  beforeAll(async () => {
    server = await startStdioServer();
  }, 20_000);
  afterAll(async () => {
    await server?.close();
  });

  it("lists the server's tools with their JSON Schemas unchanged, as the model receives them", async () => {
    const tools = await mcpTools(server.client);
    const { tools: listed } = await server.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "lookup",
      "delete_record",
      "slow",
      "fail",
      "picture",
      "report",
      "files_read",
      "crash",
    ]);
    expect(tools.map((t) => t.mcpName)).toEqual(listed.map((t) => t.name));
    for (const [i, tool] of tools.entries()) {
      expect(tool.inputSchema).toEqual(listed[i]!.inputSchema);
      expect(tool.description).toBe(listed[i]!.description);
      expect(tool.annotations).toEqual(listed[i]!.annotations);
    }
    const specs = new ToolExecutor(tools).specs();
    expect(specs[0]).toEqual({
      name: "lookup",
      description: "Stock of a product.",
      input_schema: listed[0]!.inputSchema,
    });
  });

  it("include, exclude and prefix choose and rename tools; the server is called by its own names", async () => {
    const chosen = await mcpTools(server.client, {
      include: ["lookup", "files.read"],
      prefix: "shop_",
    });
    expect(chosen.map((t) => t.name)).toEqual(["shop_lookup", "shop_files_read"]);
    const outcome = await new ToolExecutor(chosen).execute(
      call("shop_files_read", { path: "/etc/motd" }),
    );
    expect(outcome).toMatchObject({ status: "ok", resultText: "contents of /etc/motd" });

    const rest = await mcpTools(server.client, { exclude: ["crash", "slow"] });
    expect(rest.map((t) => t.name)).not.toContain("crash");
    expect(rest.map((t) => t.name)).not.toContain("slow");
    expect(rest).toHaveLength(6);

    await expect(mcpTools(server.client, { include: ["lookup", "nope"] })).rejects.toThrow(
      /lists no tool named "nope"/,
    );
    await expect(mcpTools(server.client, { dispatch: { nope: "eager" } })).rejects.toThrow(
      /"nope"/,
    );
    await expect(mcpTools(server.client, { prefix: "a b" })).rejects.toThrow(TypeError);
  });

  it("read-only tools are eager and the others deferred, unless dispatch says otherwise", async () => {
    const policies = async (options: Parameters<typeof mcpTools>[1] = {}) =>
      Object.fromEntries((await mcpTools(server.client, options)).map((t) => [t.name, t.dispatch]));
    expect(await policies()).toEqual({
      lookup: "eager",
      delete_record: "deferred", // destructiveHint
      slow: "eager",
      fail: "eager",
      picture: "eager",
      report: "eager",
      files_read: "eager",
      crash: "deferred", // no annotations: may modify its environment
    });
    expect(Object.values(await policies({ dispatch: "deferred" }))).toEqual(
      Array(8).fill("deferred"),
    );
    expect(
      await policies({ dispatch: { delete_record: "eager", lookup: "deferred" } }),
    ).toMatchObject({
      delete_record: "eager",
      lookup: "deferred",
      slow: "eager",
      crash: "deferred",
    });
    expect(
      await policies({ dispatch: (t) => (t.name === "picture" ? "deferred" : undefined) }),
    ).toMatchObject({ picture: "deferred", lookup: "eager", delete_record: "deferred" });
    expect(
      defaultMcpDispatch({ annotations: { readOnlyHint: false, destructiveHint: false } }),
    ).toBe("deferred");
    expect(defaultMcpDispatch({})).toBe("deferred");
  });

  it("checks arguments against the tool's JSON Schema: invalid input never reaches the server", async () => {
    const executor = new ToolExecutor(await mcpTools(server.client));
    const badSku = await executor.execute(call("lookup", { sku: "sock" }));
    expect(badSku.status).toBe("invalid_input");
    expect(badSku.resultText).toMatch(/must match pattern "\^\[A-Z\]\+\$"\s+→ at sku/);
    const badId = await executor.execute(call("delete_record", { id: 0, force: true }));
    expect(badId.status).toBe("invalid_input");
    expect(badId.resultText).toContain("must be >= 1");
    expect(badId.resultText).toContain("→ at id");
    const missing = await executor.execute(call("files_read", {}));
    expect(missing.resultText).toContain("must have required property 'path'");

    const good = await executor.execute(call("lookup", { sku: "VALID" }));
    expect(good).toMatchObject({ status: "ok", resultText: "VALID: 3 in stock" });
    const log = await server.log();
    expect(seen(log, "call", "lookup", { sku: "VALID" })).toBeDefined();
    expect(seen(log, "call", "lookup", { sku: "sock" })).toBeUndefined();
    expect(log.some((e) => e.tool === "delete_record" && (e.args as { id: number }).id === 0)).toBe(
      false,
    );
  });

  it("maps results: isError, text, images, audio, resource links, embedded resources, structured content", async () => {
    const executor = new ToolExecutor(await mcpTools(server.client));
    expect(await executor.execute(call("fail", {}))).toMatchObject({
      status: "error",
      isError: true,
      resultText: "Out of stock: SOCK",
      events: [],
    });
    const picture = await executor.execute(call("picture", {}));
    expect(picture).toMatchObject({ status: "ok", isError: false });
    expect(picture.resultText).toBe(
      [
        "[image image/png, 2 KB]",
        "[audio audio/wav, 10 B]",
        "[resource link cat.png: file:///photos/cat.png, image/png]",
        "[resource file:///notes.txt, text/plain]",
        "A cat.",
        // no text block came with it: the structured content is the model's text too
        '{"width":64,"height":32}',
      ].join("\n"),
    );
    expect(picture.events).toEqual([
      { type: MCP_STRUCTURED_CONTENT, content: { width: 64, height: 32 } },
    ]);
    // with a text block, the text is what the model reads; the structure is a UI event
    expect(await executor.execute(call("report", {}))).toMatchObject({
      status: "ok",
      resultText: "2 orders",
      events: [{ type: MCP_STRUCTURED_CONTENT, content: { orders: 2 } }],
    });
  });

  it("an abort mid-call cancels the request on the server (notifications/cancelled)", async () => {
    const executor = new ToolExecutor(await mcpTools(server.client));
    const controller = new AbortController();
    const started = Date.now();
    const running = executor.execute(call("slow", { ms: 10_001 }), { signal: controller.signal });
    await waitFor(async () => seen(await server.log(), "call", "slow", { ms: 10_001 }));
    controller.abort();
    const outcome = await running;
    expect(outcome.status).toBe("interrupted");
    expect(outcome.resultText).toContain("interrupted");
    // the server's handler saw its signal abort: the SDK sent notifications/cancelled
    await waitFor(async () => seen(await server.log(), "cancelled", "slow", { ms: 10_001 }));
    expect(seen(await server.log(), "done", "slow", { ms: 10_001 })).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("timeoutMs is the request's timeout: a slow call is a timeout outcome, cancelled on the server", async () => {
    const tools = await mcpTools(server.client, { include: ["slow"], timeoutMs: 300 });
    expect(tools[0]!.timeoutMs).toBe(300);
    const outcome = await new ToolExecutor(tools).execute(call("slow", { ms: 10_002 }));
    expect(outcome.status).toBe("timeout");
    expect(outcome.resultText).toContain("did not finish within 300 ms");
    await waitFor(async () => seen(await server.log(), "cancelled", "slow", { ms: 10_002 }));

    // Unset, the executor's default timeout is the limit (and cancels the request too).
    const byDefault = new ToolExecutor(await mcpTools(server.client, { include: ["slow"] }), {
      defaultTimeoutMs: 200,
    });
    expect((await byDefault.execute(call("slow", { ms: 10_003 }))).status).toBe("timeout");
    await waitFor(async () => seen(await server.log(), "cancelled", "slow", { ms: 10_003 }));
    // and a call that finishes in time is unaffected
    expect((await byDefault.execute(call("slow", { ms: 5 }))).resultText).toBe("Waited 5 ms.");
  });

  it("runAgentTurn with fakeModel: read-only tools run while the model writes, destructive ones after a tool_use ending; results in call order; a valid conversation", async () => {
    const executor = new ToolExecutor(await mcpTools(server.client));
    const model = fakeModel(
      [
        buildStreamEvents([
          { type: "text", text: "Let me check." },
          { type: "tool_use", id: "toolu_1", name: "lookup", input: { sku: "AERO" } },
          { type: "tool_use", id: "toolu_2", name: "delete_record", input: { id: 7 } },
          { type: "tool_use", id: "toolu_3", name: "picture", input: {} },
          { type: "tool_use", id: "toolu_4", name: "lookup", input: { sku: "bad" } },
          { type: "text", text: "I am still writing this message while the tools run. ".repeat(5) },
        ]),
        buildStreamEvents([{ type: "text", text: "AERO is in stock; record 7 is deleted." }]),
      ],
      { delayMs: 10 },
    );
    const events: AgentEvent[] = [];
    const turn = await runAgentTurn({
      model,
      executor,
      messages: [{ role: "user", content: "Check AERO, delete record 7, show the picture." }],
      sink: (event) => events.push(event),
    });
    expect(turn.error).toBeUndefined();
    expect(turn.stopReason).toBe("end_turn");
    expect(validateConversation(turn.messages)).toEqual([]);
    // the tools are what the model was offered
    expect(model.requests[0]!.tools.map((t) => t.name)).toContain("delete_record");

    const results = turn.messages[2]!;
    expect(results.role).toBe("user");
    const blocks = results.content as ToolResultBlock[];
    expect(blocks.map((b) => b.tool_use_id)).toEqual(["toolu_1", "toolu_2", "toolu_3", "toolu_4"]);
    expect(blocks[0]).toMatchObject({ content: "AERO: 3 in stock" });
    expect(blocks[1]).toMatchObject({ content: "Deleted record 7." });
    expect(blocks[2]!.content).toContain("[image image/png, 2 KB]");
    expect(blocks[3]).toMatchObject({ is_error: true });

    const decisions = Object.fromEntries(
      events.flatMap((e) => (e.type === "tool-call" ? [[e.callId, e.dispatch]] : [])),
    );
    expect(decisions).toEqual({
      toolu_1: "started",
      toolu_2: "deferred",
      toolu_3: "started",
      toolu_4: "started",
    });
    const at = (pred: (e: AgentEvent) => boolean) => events.findIndex(pred);
    const lastDeltaOfRound1 = events.findLastIndex((e) => e.type === "text-delta" && e.round === 1);
    const status = (callId: string, s: string) =>
      at((e) => e.type === "tool-status" && e.callId === callId && e.status === s);
    // eager: done before the model finished writing; deferred: started only after
    expect(status("toolu_1", "done")).toBeLessThan(lastDeltaOfRound1);
    expect(status("toolu_3", "done")).toBeLessThan(lastDeltaOfRound1);
    expect(status("toolu_2", "running")).toBeGreaterThan(lastDeltaOfRound1);
    // UI event of the structured content, and results in call order
    expect(events.find((e) => e.type === "ui")).toMatchObject({
      callId: "toolu_3",
      ui: { type: MCP_STRUCTURED_CONTENT, content: { width: 64, height: 32 } },
    });
    expect(events.flatMap((e) => (e.type === "tool-result" ? [e.callId] : []))).toEqual([
      "toolu_1",
      "toolu_2",
      "toolu_3",
      "toolu_4",
    ]);
    const log = await server.log();
    expect(seen(log, "call", "delete_record", { id: 7 })).toBeDefined();
    expect(seen(log, "call", "lookup", { sku: "bad" })).toBeUndefined();
  });

  it("a deferred MCP tool never runs when the message does not end with tool_use", async () => {
    const executor = new ToolExecutor(await mcpTools(server.client));
    const model = fakeModel([
      buildStreamEvents(
        [
          { type: "tool_use", id: "toolu_9", name: "delete_record", input: { id: 99 } },
          { type: "tool_use", id: "toolu_10", name: "lookup", input: { sku: "LATE" } },
        ],
        { stopReason: "max_tokens" },
      ),
    ]);
    const turn = await runAgentTurn({
      model,
      executor,
      messages: [{ role: "user", content: "Delete record 99." }],
      sink: () => {},
    });
    expect(validateConversation(turn.messages)).toEqual([]);
    const outcomes = turn.rounds[0]!.outcomes;
    expect(outcomes.map((o) => o.status)).toEqual(["not_executed", "ok"]);
    const log = await server.log();
    expect(seen(log, "call", "delete_record", { id: 99 })).toBeUndefined();
    expect(seen(log, "call", "lookup", { sku: "LATE" })).toBeDefined();
  });
});

describe("mcpTools when the server process dies", () => {
  it("a server that exits mid-call gives an error outcome saying the tool server failed; so do later calls", async () => {
    const server = await startStdioServer();
    try {
      const onServerError = vi.fn();
      const executor = new ToolExecutor(await mcpTools(server.client, { onServerError }));
      const started = Date.now();
      const outcome = await executor.execute(call("crash", {}));
      expect(outcome.status).toBe("error");
      expect(outcome.isError).toBe(true);
      expect(outcome.resultText).toMatch(/^The tool server of crash failed: its connection closed/);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(onServerError).toHaveBeenCalledWith(expect.any(Error), "crash");
      expect(seen(await server.log(), "call", "crash")).toBeDefined();

      const later = await executor.execute(call("lookup", { sku: "SOCK" }));
      expect(later.status).toBe("error");
      expect(later.resultText).toContain("not connected, so the call was not sent");
    } finally {
      await server.close();
    }
  }, 20_000);
});

describe("mcpTools over Streamable HTTP (McpServer in process)", () => {
  let http: Server;
  let client: Client;
  const log: ServerLogEntry[] = [];
  beforeAll(async () => {
    const mcp = createTestServer((entry) => log.push(entry));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
    await mcp.connect(transport);
    http = createServer((req, res) => void transport.handleRequest(req, res));
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const { port } = http.address() as AddressInfo;
    client = new Client({ name: "overlap-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)),
    );
  });
  afterAll(async () => {
    await client?.close();
    http?.closeAllConnections();
    await new Promise((resolve) => http?.close(resolve));
  });

  it("lists, calls and cancels over HTTP", async () => {
    const executor = new ToolExecutor(await mcpTools(client, { prefix: "web_" }));
    expect(executor.tool("web_lookup")?.dispatch).toBe("eager");
    expect(await executor.execute(call("web_lookup", { sku: "HTTP" }))).toMatchObject({
      status: "ok",
      resultText: "HTTP: 3 in stock",
    });
    const controller = new AbortController();
    const running = executor.execute(call("web_slow", { ms: 10_004 }), {
      signal: controller.signal,
    });
    await waitFor(() => seen(log, "call", "slow", { ms: 10_004 }));
    controller.abort();
    expect((await running).status).toBe("interrupted");
    await waitFor(() => seen(log, "cancelled", "slow", { ms: 10_004 }));
  });
});

describe("mcpTools with any client (listTools + callTool)", () => {
  const definition = (name: string, extra: Partial<McpToolDefinition> = {}): McpToolDefinition => ({
    name,
    inputSchema: { type: "object", properties: {} },
    ...extra,
  });

  function fakeClient(
    pages: Record<string, { tools: McpToolDefinition[]; nextCursor?: string }>,
    callTool: McpClientLike["callTool"] = async () => ({ content: [] }),
  ) {
    const listTools = vi.fn(async (params?: { cursor?: string }) => pages[params?.cursor ?? ""]!);
    return { listTools, callTool } as unknown as McpClientLike & { listTools: typeof listTools };
  }

  it("follows nextCursor through every page; a repeated cursor is an error", async () => {
    const client = fakeClient({
      "": { tools: [definition("a")], nextCursor: "p2" },
      p2: { tools: [definition("b")], nextCursor: "p3" },
      p3: { tools: [definition("c")] },
    });
    expect((await mcpTools(client)).map((t) => t.name)).toEqual(["a", "b", "c"]);
    expect(client.listTools.mock.calls.map((c) => c[0])).toEqual([
      undefined,
      { cursor: "p2" },
      { cursor: "p3" },
    ]);
    const looping = fakeClient({
      "": { tools: [definition("a")], nextCursor: "p2" },
      p2: { tools: [definition("b")], nextCursor: "p2" },
    });
    await expect(mcpTools(looping)).rejects.toThrow(/repeats the cursor "p2"/);
  });

  it("leaves out tools that require tasks; rejects names that collide or that the APIs refuse", async () => {
    const tasks = fakeClient({
      "": {
        tools: [definition("a"), definition("job", { execution: { taskSupport: "required" } })],
      },
    });
    expect((await mcpTools(tasks)).map((t) => t.name)).toEqual(["a"]);
    const clash = fakeClient({ "": { tools: [definition("a.b"), definition("a_b")] } });
    await expect(mcpTools(clash)).rejects.toThrow(/"a.b" and "a_b" would both be named "a_b"/);
    const long = fakeClient({ "": { tools: [definition("x".repeat(60))] } });
    await expect(mcpTools(long, { prefix: "server_" })).rejects.toThrow(TypeError);
    const badSchema = fakeClient({
      "": {
        tools: [
          definition("r", {
            inputSchema: { type: "object", properties: { a: { $ref: "#/nowhere" } } },
          }),
        ],
      },
    });
    await expect(mcpTools(badSchema)).rejects.toThrow(/Tool "r" input schema cannot be compiled/);
  });

  it("passes the call's signal and the timeout to callTool; unset, only the executor's timer limits it", async () => {
    const callTool = vi.fn(async () => ({ content: [{ type: "text", text: "hi" }] }));
    const client = fakeClient({ "": { tools: [definition("a")] } }, callTool as never);
    await new ToolExecutor(await mcpTools(client, { timeoutMs: 1234 })).execute(
      call("a", { x: 1 }),
    );
    expect(callTool).toHaveBeenLastCalledWith({ name: "a", arguments: { x: 1 } }, undefined, {
      signal: expect.any(AbortSignal),
      timeout: 1234,
    });
    await new ToolExecutor(await mcpTools(client)).execute(call("a", {}));
    expect(callTool).toHaveBeenLastCalledWith({ name: "a", arguments: {} }, undefined, {
      signal: expect.any(AbortSignal),
      timeout: 2 ** 31 - 1,
    });
  });

  it("server errors, timeouts, empty and legacy results become outcomes the model can read", async () => {
    const results: Array<() => unknown> = [
      () => {
        throw Object.assign(new Error("MCP error -32602: Unknown tool: a"), { code: -32602 });
      },
      () => {
        throw Object.assign(new Error("MCP error -32001: Request timed out"), { code: -32001 });
      },
      () => {
        throw new TypeError("fetch failed");
      },
      () => ({ content: [] }),
      () => ({ content: [], isError: true }),
      () => ({ toolResult: { legacy: true } }),
      () => ({ content: [{ type: "resource", resource: { uri: "mem://b", blob: "AAAA" } }] }),
    ];
    const callTool = vi.fn(async () => results.shift()!());
    const client = fakeClient({ "": { tools: [definition("a")] } }, callTool as never);
    const executor = new ToolExecutor(await mcpTools(client, { timeoutMs: 500 }));
    const texts: string[] = [];
    for (let i = 0; i < 7; i++) texts.push((await executor.execute(call("a", {}))).resultText);
    expect(texts).toEqual([
      "The tool server rejected the call to a: MCP error -32602: Unknown tool: a",
      "The tool server of a did not answer within 500 ms; the call may or may not have taken effect.",
      "The tool server of a failed: the request could not be completed (TypeError). It may or may not have taken effect.",
      "Done.",
      "a failed; the tool server gave no details.",
      '{"legacy":true}',
      "[resource mem://b, 3 B]",
    ]);
  });
});
