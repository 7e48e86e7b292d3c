/**
 * How each adapter writes the turn's tool choice, structured output and typed provider options
 * into its provider's request (pure request builders; the sim tests check the wire end to end).
 */

import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../agent/model-client.js";
import type { ModelOutputFormat } from "../agent/structured-output.js";
import type { ToolChoice } from "../agent/tool-choice.js";
import type { Message } from "../stream/message.js";
import { aiSdkCallOptions } from "./ai-sdk/ai-sdk-model.js";
import { anthropicParams } from "./anthropic/anthropic.js";
import { converseStreamInput } from "./bedrock/bedrock-request.js";
import { geminiRequestBody } from "./google/gemini-request.js";
import { chatParams } from "./openai/openai.js";
import { responsesParams } from "./openai/openai-responses.js";

const tool = { name: "search", description: "Searches.", input_schema: { type: "object" } };
const base: ModelRequest = { messages: [{ role: "user", content: "hi" }], tools: [tool] };
const output: ModelOutputFormat = {
  name: "final_answer",
  description: "The answer.",
  schema: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
};
const CHOICES: ToolChoice[] = ["auto", "none", "required", { type: "tool", toolName: "search" }];

describe("tool choice per adapter", () => {
  it("Anthropic: tool_choice auto | none | any | tool", () => {
    const wire = CHOICES.map(
      (toolChoice) => anthropicParams({ ...base, toolChoice }, { model: "m" }).tool_choice,
    );
    expect(wire).toEqual([
      { type: "auto" },
      { type: "none" },
      { type: "any" },
      { type: "tool", name: "search" },
    ]);
    expect(anthropicParams(base, { model: "m" })).not.toHaveProperty("tool_choice");
  });

  it("Chat Completions: tool_choice auto | none | required | function", () => {
    const wire = CHOICES.map((toolChoice) => chatParams({ ...base, toolChoice }, { model: "m" }));
    expect(wire.map((p) => p.tool_choice)).toEqual([
      "auto",
      "none",
      "required",
      { type: "function", function: { name: "search" } },
    ]);
  });

  it("Responses: tool_choice auto | none | required | function", () => {
    const wire = CHOICES.map(
      (toolChoice) => responsesParams({ ...base, toolChoice }, { model: "m" }).tool_choice,
    );
    expect(wire).toEqual(["auto", "none", "required", { type: "function", name: "search" }]);
  });

  it("Gemini: functionCallingConfig AUTO | NONE | ANY | ANY with the one allowed name", () => {
    const wire = CHOICES.map((toolChoice) => geminiRequestBody({ ...base, toolChoice }).toolConfig);
    expect(wire).toEqual([
      { functionCallingConfig: { mode: "AUTO" } },
      { functionCallingConfig: { mode: "NONE" } },
      { functionCallingConfig: { mode: "ANY" } },
      { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["search"] } },
    ]);
  });

  it("Bedrock: toolChoice auto | any | tool; none leaves the tools out unless the conversation holds calls", () => {
    const wire = CHOICES.map(
      (toolChoice) => converseStreamInput({ ...base, toolChoice }, { modelId: "m" }).toolConfig,
    );
    expect(wire[0]?.toolChoice).toEqual({ auto: {} });
    expect(wire[1]).toBeUndefined();
    expect(wire[2]?.toolChoice).toEqual({ any: {} });
    expect(wire[3]?.toolChoice).toEqual({ tool: { name: "search" } });
    const withCalls: Message[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "search", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "r" }] },
    ];
    const kept = converseStreamInput(
      { ...base, messages: withCalls, toolChoice: "none" },
      { modelId: "m" },
    ).toolConfig;
    expect(kept?.tools).toHaveLength(1);
    expect(kept).not.toHaveProperty("toolChoice");
  });

  it("AI SDK: the LanguageModel toolChoice, same vocabulary", () => {
    const wire = CHOICES.map(
      (toolChoice) => aiSdkCallOptions({ provider: "x" }, { ...base, toolChoice }).toolChoice,
    );
    expect(wire).toEqual([
      { type: "auto" },
      { type: "none" },
      { type: "required" },
      { type: "tool", toolName: "search" },
    ]);
  });
});

describe("structured output per adapter", () => {
  it("Anthropic (outputFormat): output_config.format beside the caller's effort", () => {
    const params = anthropicParams(
      { ...base, output },
      { model: "m", providerOptions: { output_config: { effort: "low" } } },
    );
    expect(params.output_config).toEqual({
      effort: "low",
      format: { type: "json_schema", schema: output.schema },
    });
  });

  it("Chat Completions: response_format json_schema", () => {
    expect(chatParams({ ...base, output }, { model: "m" }).response_format).toEqual({
      type: "json_schema",
      json_schema: {
        name: "final_answer",
        description: "The answer.",
        schema: output.schema,
        strict: false,
      },
    });
  });

  it("Responses: text.format json_schema, keeping the caller's verbosity", () => {
    const params = responsesParams(
      { ...base, output },
      { model: "m", providerOptions: { text: { verbosity: "low" } } },
    );
    expect(params.text).toEqual({
      verbosity: "low",
      format: {
        type: "json_schema",
        name: "final_answer",
        description: "The answer.",
        schema: output.schema,
        strict: false,
      },
    });
  });

  it("Gemini: responseMimeType and responseJsonSchema beside the caller's generationConfig", () => {
    const body = geminiRequestBody(
      { ...base, output, maxTokens: 50 },
      { providerOptions: { generationConfig: { temperature: 0.2 } } },
    );
    expect(body.generationConfig).toEqual({
      temperature: 0.2,
      maxOutputTokens: 50,
      responseMimeType: "application/json",
      responseJsonSchema: output.schema,
    });
  });

  it("AI SDK: responseFormat json with the schema", () => {
    expect(aiSdkCallOptions({ provider: "x" }, { ...base, output }).responseFormat).toEqual({
      type: "json",
      schema: output.schema,
      name: "final_answer",
      description: "The answer.",
    });
  });
});

describe("typed provider options", () => {
  it("reach the request under the runtime's own fields, after the deprecated params", () => {
    const anthropic = anthropicParams(base, { model: "m" });
    expect(anthropic.model).toBe("m");
    const chat = chatParams(base, {
      model: "m",
      params: { temperature: 1, top_k: 5 },
      providerOptions: { temperature: 0.3, seed: 7, parallel_tool_calls: false },
    });
    expect(chat).toMatchObject({ temperature: 0.3, seed: 7, parallel_tool_calls: false, top_k: 5 });
    const responses = responsesParams(base, {
      model: "m",
      providerOptions: { reasoning: { effort: "low" }, temperature: 0.1 },
    });
    expect(responses).toMatchObject({
      reasoning: { effort: "low" },
      temperature: 0.1,
      store: false,
    });
    const bedrock = converseStreamInput(
      { ...base, maxTokens: 9 },
      {
        modelId: "m",
        params: { inferenceConfig: { topP: 0.5 } },
        providerOptions: { inferenceConfig: { temperature: 0.4 } },
      },
    );
    expect(bedrock.inferenceConfig).toEqual({ topP: 0.5, temperature: 0.4, maxTokens: 9 });
    const gemini = geminiRequestBody(base, {
      providerOptions: { safetySettings: [{ category: "c", threshold: "t" }] },
    });
    expect(gemini.safetySettings).toEqual([{ category: "c", threshold: "t" }]);
  });

  // Checked by the compiler (`npm run typecheck`): a `@ts-expect-error` whose line type-checks
  // fails it, so each line below must stay an error.
  it("the deprecated ways of setting a tool choice still work, and the turn's choice wins", () => {
    const callOptions = { toolChoice: { type: "none" as const } };
    expect(aiSdkCallOptions({ provider: "x" }, base, { callOptions }).toolChoice).toEqual({
      type: "none",
    });
    expect(
      aiSdkCallOptions({ provider: "x" }, { ...base, toolChoice: "required" }, { callOptions })
        .toolChoice,
    ).toEqual({ type: "required" });
    const params = { tool_choice: "none" };
    expect(chatParams(base, { model: "m", params }).tool_choice).toBe("none");
    expect(chatParams({ ...base, toolChoice: "auto" }, { model: "m", params }).tool_choice).toBe(
      "auto",
    );
    const toolConfig = { functionCallingConfig: { mode: "NONE" } };
    expect(geminiRequestBody(base, { params: { toolConfig } }).toolConfig).toEqual(toolConfig);
  });

  it("are checked by the compiler: a misspelt or runtime-owned field does not type-check", () => {
    // @ts-expect-error a misspelt field
    chatParams(base, { model: "m", providerOptions: { temprature: 1 } });
    // @ts-expect-error the runtime owns the tools (and the tool choice, the messages...)
    chatParams(base, { model: "m", providerOptions: { tool_choice: "none" } });
    // @ts-expect-error the runtime owns the input
    responsesParams(base, { model: "m", providerOptions: { input: "x" } });
    // @ts-expect-error a wrong type
    geminiRequestBody(base, { providerOptions: { generationConfig: { topK: "high" } } });
    // @ts-expect-error the runtime owns the tool configuration
    converseStreamInput(base, { modelId: "m", providerOptions: { toolConfig: { tools: [] } } });
  });
});
