import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../../agent/model-client.js";
import type { AssistantContentBlock, Message } from "../../stream/message.js";
import { converseId, converseStreamInput, toConverseMessages } from "./bedrock-request.js";

const TOOLS: ModelRequest["tools"] = [
  {
    name: "add_to_cart",
    description: "Adds a product.",
    input_schema: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
  },
  { name: "cart_total", description: "", input_schema: { type: "object", properties: {} } },
];

describe("converseStreamInput", () => {
  it("system → system [{text}], tools → toolConfig.tools[].toolSpec (inputSchema.json), the limit → inferenceConfig.maxTokens", () => {
    const input = converseStreamInput(
      {
        system: "Be brief.",
        messages: [{ role: "user", content: "hi" }],
        tools: TOOLS,
        maxTokens: 300,
      },
      { modelId: "anthropic.claude-x", maxTokens: 1000 },
    );
    expect(input).toEqual({
      modelId: "anthropic.claude-x",
      messages: [{ role: "user", content: [{ text: "hi" }] }],
      system: [{ text: "Be brief." }],
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: "add_to_cart",
              description: "Adds a product.",
              inputSchema: { json: TOOLS[0]!.input_schema },
            },
          },
          // Converse rejects an empty description: it is left out.
          { toolSpec: { name: "cart_total", inputSchema: { json: TOOLS[1]!.input_schema } } },
        ],
      },
      inferenceConfig: { maxTokens: 300 },
    });
  });

  it("params: inferenceConfig and toolConfig are merged (the limit and the tools win), the rest passes through; no limit, no system, no tools: none sent", () => {
    const params = {
      inferenceConfig: { temperature: 0.2, maxTokens: 5 },
      toolConfig: { tools: [], toolChoice: { any: {} } },
      additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: 2048 } },
      guardrailConfig: { guardrailIdentifier: "g", guardrailVersion: "1" },
    };
    const withTools = converseStreamInput(
      { messages: [{ role: "user", content: "hi" }], tools: TOOLS },
      { modelId: "m", maxTokens: 900, params },
    );
    expect(withTools.inferenceConfig).toEqual({ temperature: 0.2, maxTokens: 900 });
    expect(withTools.toolConfig?.toolChoice).toEqual({ any: {} });
    expect(withTools.toolConfig?.tools).toHaveLength(2);
    expect(withTools.additionalModelRequestFields).toEqual(params.additionalModelRequestFields);
    expect(withTools.guardrailConfig).toEqual(params.guardrailConfig);
    const bare = converseStreamInput(
      { messages: [{ role: "user", content: "hi" }], tools: [] },
      { modelId: "m" },
    );
    expect(Object.keys(bare)).toEqual(["modelId", "messages"]);
  });
});

describe("toConverseMessages", () => {
  it("user text and tool results (status error only for errors; text-block content joined; an empty result has no content block); base64 images as bytes", () => {
    const messages: Message[] = [
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "tooluse_a", content: "12 EUR" },
          {
            type: "tool_result",
            tool_use_id: "tooluse_b",
            content: [
              { type: "text", text: "Out of" },
              { type: "text", text: "stock" },
            ],
            is_error: true,
          },
          { type: "tool_result", tool_use_id: "tooluse_c", content: "" },
          { type: "text", text: "and go on" },
          { type: "text", text: "   " },
          {
            type: "image",
            source: { type: "base64", media_type: "image/png", data: "AAEC/w==" },
          } as never,
        ],
      },
    ];
    expect(toConverseMessages(messages)).toEqual([
      {
        role: "user",
        content: [
          { toolResult: { toolUseId: "tooluse_a", content: [{ text: "12 EUR" }] } },
          {
            toolResult: {
              toolUseId: "tooluse_b",
              content: [{ text: "Out of\nstock" }],
              status: "error",
            },
          },
          { toolResult: { toolUseId: "tooluse_c", content: [] } },
          { text: "and go on" },
          { image: { format: "png", source: { bytes: Uint8Array.of(0, 1, 2, 255) } } },
        ],
      },
    ]);
  });

  it("assistant: text, signed thinking and redacted thinking in place, tool_use; blank text, unsigned thinking, OpenAI reasoning items, provider-side calls and other providers' fields left out", () => {
    const content = [
      { type: "thinking", thinking: "Claude thinks.", signature: "EqSig" },
      { type: "redacted_thinking", data: "AQID" },
      { type: "thinking", thinking: "A Gemini thought.", signature: "", thoughtSignature: "g" },
      { type: "openai_reasoning", item: { id: "rs_1", type: "reasoning" } },
      { type: "text", text: " " },
      { type: "text", text: "Adding.", openai_item: { id: "msg_1" }, thoughtSignature: "g" },
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } },
      {
        type: "tool_use",
        id: "tooluse_a",
        name: "add_to_cart",
        input: { sku: "A" },
        thoughtSignature: "g",
        openai_item: { id: "fc_1" },
      },
    ] as unknown as AssistantContentBlock[];
    expect(
      toConverseMessages([
        { role: "user", content: "hi" },
        { role: "assistant", content },
      ])[1],
    ).toEqual({
      role: "assistant",
      content: [
        { reasoningContent: { reasoningText: { text: "Claude thinks.", signature: "EqSig" } } },
        { reasoningContent: { redactedContent: Uint8Array.of(1, 2, 3) } },
        { text: "Adding." },
        { toolUse: { toolUseId: "tooluse_a", name: "add_to_cart", input: { sku: "A" } } },
      ],
    });
  });

  it("a message left empty is left out and the messages around it are joined (roles must alternate)", () => {
    const messages: Message[] = [
      { role: "user", content: "first" },
      {
        role: "assistant",
        content: [{ type: "thinking", thinking: "unsigned", signature: "" }],
      },
      { role: "user", content: "second" },
      { role: "assistant", content: [{ type: "text", text: "Answer." }] },
    ];
    expect(toConverseMessages(messages)).toEqual([
      { role: "user", content: [{ text: "first" }, { text: "second" }] },
      { role: "assistant", content: [{ text: "Answer." }] },
    ]);
  });

  it("call ids outside Converse's pattern are rewritten the same way on the call and on its result", () => {
    expect(converseId("tooluse_AbC-1")).toBe("tooluse_AbC-1");
    expect(converseId("functions.add_to_cart:0")).toBe("functions_add_to_cart_0");
    expect(converseId("x".repeat(70))).toHaveLength(64);
    const [, assistant, user] = toConverseMessages([
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "functions.f:0", name: "f", input: {} }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "functions.f:0", content: "ok" }],
      },
    ]);
    expect(assistant?.content?.[0]?.toolUse?.toolUseId).toBe("functions_f_0");
    expect(user?.content?.[0]?.toolResult?.toolUseId).toBe("functions_f_0");
  });
});
