/**
 * Client tools and the provider's own tools in one request, against overlap-sim's Gemini and
 * Bedrock formats: `providerTools` is sent beside the executor's function tools, the provider's
 * code execution comes back as server tool blocks (shown as `server-tool` events, never run),
 * the client call beside it runs, and the next request carries the provider's parts / blocks back
 * as received, which the strict sim accepts.
 */

import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import type { SimPolicy, SimScript } from "overlap-sim";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ModelClient } from "../agent/model-client.js";
import { runAgentTurn } from "../agent/run-agent-turn.js";
import { validateConversation } from "../agent/validate-conversation.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { bedrockModel } from "./bedrock/bedrock.js";
import { geminiModel } from "./google/google.js";
import { simRunner } from "./provider-sim.testkit.js";

type Json = Record<string, unknown>;

const FIRST: SimScript = {
  blocks: [
    { type: "code_execution", code: "print(6 * 7)" },
    { type: "code_execution_result", output: "42\n" },
    { type: "text", text: "It is 42; adding it." },
    { type: "tool_use", name: "add_to_cart", input: { sku: "SKU-42" } },
  ],
};

/** Code execution and a client call first; once the call is answered, a text. */
const policy: SimPolicy = (request) => {
  const last = request.messages.at(-1);
  const answered =
    Array.isArray(last?.content) && last.content.some((b) => b.type === "tool_result");
  return answered ? { blocks: [{ type: "text", text: "Added." }] } : FIRST;
};

const withSim = simRunner({ policy, pacing: { fast: true } });

function tools() {
  const runs: unknown[] = [];
  const executor = new ToolExecutor(
    [
      defineTool({
        name: "add_to_cart",
        description: "Adds a product to the cart.",
        input: z.object({ sku: z.string() }),
        run: (input) => {
          runs.push(input);
          return "added";
        },
      }),
    ],
    { abortGraceMs: 5 },
  );
  return { executor, runs };
}

async function turnOf(model: ModelClient) {
  const { executor, runs } = tools();
  const events: AgentEvent[] = [];
  const turn = await runAgentTurn({
    model,
    executor,
    messages: [{ role: "user", content: "What is 6 * 7? Add it." }],
    sink: (e) => events.push(e),
  });
  return { turn, runs, events };
}

function expectTurn({ turn, runs, events }: Awaited<ReturnType<typeof turnOf>>, result: string) {
  expect(turn.error?.message).toBeUndefined();
  expect(turn.stopReason).toBe("end_turn");
  expect(turn.rounds).toHaveLength(2);
  const types = turn.rounds[0]!.assistant.content.map((b) => b.type);
  expect(types).toEqual(["server_tool_use", result, "text", "tool_use"]);
  expect(runs).toEqual([{ sku: "SKU-42" }]);
  const server = events.filter((e) => e.type === "server-tool");
  expect(server.map((e) => e.type === "server-tool" && e.phase)).toEqual(["call", "result"]);
  expect(validateConversation(turn.messages)).toEqual([]);
}

describe("providerTools beside the executor's tools, against overlap-sim", () => {
  it("Gemini: codeExecution beside the function declarations; executableCode + codeExecutionResult kept and sent back with their signature", async () => {
    await withSim({}, async (sim) => {
      const bodies: Json[] = [];
      const fetchSpy: typeof fetch = async (url, init) => {
        bodies.push(JSON.parse(String(init?.body)) as Json);
        return fetch(url, init);
      };
      const run = await turnOf(
        geminiModel({
          model: "scripted-gemini",
          baseUrl: sim.url,
          apiKey: "test",
          fetch: fetchSpy,
          providerTools: [{ codeExecution: {} }],
        }),
      );
      expectTurn(run, "gemini_tool_result");
      expect(bodies[0]?.tools).toEqual([
        { functionDeclarations: [expect.objectContaining({ name: "add_to_cart" })] },
        { codeExecution: {} },
      ]);
      const model = ((bodies[1]?.contents ?? []) as Json[]).find((c) => c.role === "model")!;
      const parts = model.parts as Json[];
      expect(parts[0]).toEqual({
        executableCode: { language: "PYTHON", code: "print(6 * 7)", id: expect.any(String) },
        thoughtSignature: expect.any(String),
      });
      expect(parts[1]).toEqual({
        codeExecutionResult: {
          outcome: "OUTCOME_OK",
          output: "42\n",
          id: (parts[0]?.executableCode as Json | undefined)?.id,
        },
      });
    });
  });

  it("Bedrock: the nova_code_interpreter systemTool beside the toolSpecs; the server toolUse and its toolResult kept and sent back", async () => {
    await withSim({}, async (sim) => {
      const bodies: Json[] = [];
      const client = new BedrockRuntimeClient({
        region: "us-east-1",
        endpoint: sim.url,
        credentials: { accessKeyId: "x", secretAccessKey: "x" },
        requestHandler: new NodeHttpHandler(),
        maxAttempts: 1,
      });
      client.middlewareStack.add(
        (next) => (args) => {
          const request = args.request as { body?: unknown };
          const body = request.body;
          const text =
            typeof body === "string"
              ? body
              : body instanceof Uint8Array
                ? new TextDecoder().decode(body)
                : undefined;
          if (text !== undefined) bodies.push(JSON.parse(text) as Json);
          return next(args);
        },
        { step: "finalizeRequest", name: "captureBody" },
      );
      const run = await turnOf(
        bedrockModel({
          client,
          modelId: "scripted-nova",
          providerTools: [{ systemTool: { name: "nova_code_interpreter" } }],
        }),
      );
      expectTurn(run, "bedrock_tool_result");
      expect((bodies[0]?.toolConfig as Json | undefined)?.tools).toEqual([
        { toolSpec: expect.objectContaining({ name: "add_to_cart" }) },
        { systemTool: { name: "nova_code_interpreter" } },
      ]);
      const assistant = ((bodies[1]?.messages ?? []) as Json[]).find(
        (m) => m.role === "assistant",
      )!;
      const content = assistant.content as Json[];
      expect(content[0]).toEqual({
        toolUse: {
          toolUseId: expect.stringMatching(/^tooluse_/),
          name: "nova_code_interpreter",
          input: { snippet: "print(6 * 7)" },
          type: "server_tool_use",
        },
      });
      expect(content[1]).toEqual({
        toolResult: {
          toolUseId: (content[0]?.toolUse as Json | undefined)?.toolUseId,
          type: "nova_code_interpreter_result",
          status: "success",
          content: [{ json: { stdOut: "42\n", stdErr: "", exitCode: 0, isError: false } }],
        },
      });
    });
  });
});
