import {
  BedrockRuntimeClient,
  type ContentBlock,
  ConverseStreamCommand,
  type ConverseStreamOutput,
} from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { describe, expect, it } from "vitest";
import type { SimScript } from "./script.js";
import { parseSse, rawPost, startTestSim } from "./test-support.js";

type Json = Record<string, unknown>;

/** Code execution, its result and a text answer; after a tool round, a text. */
const SCRIPT: SimScript = {
  blocks: [
    { type: "code_execution", code: "print(6 * 7)" },
    { type: "code_execution_result", output: "42\n" },
    { type: "text", text: "It is 42." },
  ],
};

const sim = await startTestSim({ policy: () => SCRIPT });

describe("provider-side code execution in the Gemini and Bedrock wire formats", () => {
  it("Gemini: a signed executableCode part, its codeExecutionResult (same id), then text; sent back, the parts are accepted", async () => {
    const path = "/v1beta/models/scripted-x:streamGenerateContent?alt=sse";
    const request = {
      contents: [{ role: "user", parts: [{ text: "What is 6 * 7?" }] }],
      tools: [{ codeExecution: {} }],
    };
    const answer = await rawPost(`${sim.url}${path}`, request);
    expect(answer.status).toBe(200);
    const parts = parseSse(answer.text).flatMap((f) => {
      const chunk = JSON.parse(f.data) as Json;
      const candidate = (chunk.candidates as Json[])[0] as Json;
      return ((candidate.content as Json | undefined)?.parts as Json[] | undefined) ?? [];
    });
    const code = parts.find((p) => p.executableCode !== undefined)!;
    const result = parts.find((p) => p.codeExecutionResult !== undefined)!;
    expect(code).toEqual({
      executableCode: { language: "PYTHON", code: "print(6 * 7)", id: expect.any(String) },
      thoughtSignature: expect.any(String),
    });
    const id = (code.executableCode as Json).id;
    expect(result).toEqual({ codeExecutionResult: { outcome: "OUTCOME_OK", output: "42\n", id } });
    expect(parts.indexOf(code)).toBeLessThan(parts.indexOf(result));
    expect(
      parts
        .filter((p) => typeof p.text === "string")
        .map((p) => p.text)
        .join(""),
    ).toBe("It is 42.");
    // The conversation carried on with the parts as they came: a valid request.
    const next = await rawPost(`${sim.url}${path}`, {
      ...request,
      contents: [
        ...request.contents,
        { role: "model", parts: [code, result, { text: "It is 42." }] },
        { role: "user", parts: [{ text: "Thanks." }] },
      ],
    });
    expect(next.status).toBe(200);
  });

  it("Bedrock: a server_tool_use toolUse streamed as deltas, its typed toolResult block, then text; sent back with the systemTool, accepted", async () => {
    const client = new BedrockRuntimeClient({
      region: "us-east-1",
      endpoint: sim.url,
      credentials: { accessKeyId: "x", secretAccessKey: "x" },
      requestHandler: new NodeHttpHandler(),
      maxAttempts: 1,
    });
    const input = {
      modelId: "scripted-nova",
      messages: [{ role: "user" as const, content: [{ text: "What is 6 * 7?" }] }],
      toolConfig: { tools: [{ systemTool: { name: "nova_code_interpreter" } }] },
    };
    const events: ConverseStreamOutput[] = [];
    const response = await client.send(new ConverseStreamCommand(input));
    for await (const event of response.stream ?? []) events.push(event);
    const starts = events.flatMap((e) => (e.contentBlockStart ? [e.contentBlockStart] : []));
    expect(starts.map((s) => s.start)).toEqual([
      {
        toolUse: {
          toolUseId: expect.stringMatching(/^tooluse_/),
          name: "nova_code_interpreter",
          type: "server_tool_use",
        },
      },
      {
        toolResult: {
          toolUseId: starts[0]?.start?.toolUse?.toolUseId,
          type: "nova_code_interpreter_result",
          status: "success",
        },
      },
    ]);
    const deltas = events.flatMap((e) => (e.contentBlockDelta ? [e.contentBlockDelta] : []));
    const snippet = deltas
      .filter((d) => d.contentBlockIndex === 0)
      .map((d) => d.delta?.toolUse?.input ?? "")
      .join("");
    expect(JSON.parse(snippet)).toEqual({ snippet: "print(6 * 7)" });
    expect(deltas.find((d) => d.contentBlockIndex === 1)?.delta?.toolResult).toEqual([
      { json: { stdOut: "42\n", stdErr: "", exitCode: 0, isError: false } },
    ]);
    const id = starts[0]?.start?.toolUse?.toolUseId ?? "";
    const assistant: ContentBlock[] = [
      {
        toolUse: {
          toolUseId: id,
          name: "nova_code_interpreter",
          input: { snippet: "print(6 * 7)" },
          type: "server_tool_use",
        },
      },
      {
        toolResult: {
          toolUseId: id,
          type: "nova_code_interpreter_result",
          status: "success",
          content: [{ json: { stdOut: "42\n", stdErr: "", exitCode: 0, isError: false } }],
        },
      },
      { text: "It is 42." },
    ];
    const next = await client.send(
      new ConverseStreamCommand({
        ...input,
        messages: [
          ...input.messages,
          { role: "assistant", content: assistant },
          { role: "user", content: [{ text: "Thanks." }] },
        ],
      }),
    );
    for await (const _ of next.stream ?? []) {
      // drained
    }
  });
});
