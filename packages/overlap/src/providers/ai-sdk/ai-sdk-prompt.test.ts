import { describe, expect, it } from "vitest";
import type { Message } from "../../stream/message.js";
import { aiSdkCallOptions, reasoningKeyOf } from "./ai-sdk-model.js";
import { toLanguageModelV3Prompt, toLanguageModelV3Tools } from "./ai-sdk-prompt.js";

const CONVERSATION = [
  { role: "user", content: "Find red shoes and add them." },
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "Search first.", signature: "sig-1" },
      { type: "redacted_thinking", data: "opaque==" },
      { type: "text", text: "  " },
      { type: "text", text: "Searching.", ai_sdk_metadata: { openai: { itemId: "msg_1" } } },
      { type: "server_tool_use", id: "srv_1", name: "web_search", input: { query: "red shoes" } },
      {
        type: "ai_sdk_tool_result",
        tool_use_id: "srv_1",
        name: "web_search",
        content: [{ url: "https://a", title: "A" }],
      },
      { type: "openai_reasoning", item: { id: "rs_1", type: "reasoning" } },
      { type: "tool_use", id: "call_1", name: "search", input: { q: "red" } },
      {
        type: "tool_use",
        id: "call_2",
        name: "add_to_cart",
        input: { sku: "A" },
        ai_sdk_metadata: { google: { thoughtSignature: "ts" } },
      },
    ],
  },
  {
    role: "user",
    content: [
      { type: "tool_result", tool_use_id: "call_1", content: "3 results" },
      {
        type: "tool_result",
        tool_use_id: "call_2",
        content: [{ type: "text", text: "Out of stock." }],
        is_error: true,
      },
      { type: "text", text: "Also this picture:" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBOR" } },
    ],
  },
] as unknown as Message[];

describe("toLanguageModelV3Prompt", () => {
  it("maps system, user, assistant (text, reasoning, calls, provider results) and tool results", () => {
    expect(toLanguageModelV3Prompt("Be brief.", CONVERSATION)).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: [{ type: "text", text: "Find red shoes and add them." }] },
      {
        role: "assistant",
        content: [
          {
            type: "reasoning",
            text: "Search first.",
            providerOptions: { anthropic: { signature: "sig-1" } },
          },
          {
            type: "reasoning",
            text: "",
            providerOptions: { anthropic: { redactedData: "opaque==" } },
          },
          {
            type: "text",
            text: "Searching.",
            providerOptions: { openai: { itemId: "msg_1" } },
          },
          {
            type: "tool-call",
            toolCallId: "srv_1",
            toolName: "web_search",
            input: { query: "red shoes" },
            providerExecuted: true,
          },
          {
            type: "tool-result",
            toolCallId: "srv_1",
            toolName: "web_search",
            output: { type: "json", value: [{ url: "https://a", title: "A" }] },
          },
          { type: "tool-call", toolCallId: "call_1", toolName: "search", input: { q: "red" } },
          {
            type: "tool-call",
            toolCallId: "call_2",
            toolName: "add_to_cart",
            input: { sku: "A" },
            providerOptions: { google: { thoughtSignature: "ts" } },
          },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "call_1",
            toolName: "search",
            output: { type: "text", value: "3 results" },
          },
          {
            type: "tool-result",
            toolCallId: "call_2",
            toolName: "add_to_cart",
            output: { type: "error-text", value: "Out of stock." },
          },
        ],
      },
      {
        role: "user",
        content: [
          { type: "text", text: "Also this picture:" },
          { type: "file", data: "iVBOR", mediaType: "image/png" },
        ],
      },
    ]);
  });

  it("sends signatures under the provider's key, next to the block's own metadata", () => {
    const [message] = toLanguageModelV3Prompt(
      undefined,
      [
        {
          role: "assistant",
          content: [
            {
              type: "thinking",
              thinking: "t",
              signature: "sig",
              ai_sdk_metadata: { bedrock: { other: 1 } },
            } as never,
          ],
        },
      ],
      { reasoningKey: "bedrock" },
    );
    expect(message).toEqual({
      role: "assistant",
      content: [
        {
          type: "reasoning",
          text: "t",
          providerOptions: { bedrock: { other: 1, signature: "sig" } },
        },
      ],
    });
    expect(reasoningKeyOf("anthropic.messages")).toBe("anthropic");
    expect(reasoningKeyOf("amazon-bedrock")).toBe("bedrock");
    expect(reasoningKeyOf("openai.chat")).toBe("openai");
  });

  it("another provider's own server tool calls and results stay out (Responses, Gemini, Bedrock)", () => {
    const calls = ["ws_1", "gx_1", "br_1"].map((id) => ({
      type: "server_tool_use",
      id,
      name: "code_execution",
      input: { code: "1+1" },
    }));
    const results = [
      { type: "openai_tool_result", tool_use_id: "ws_1", content: {} },
      { type: "gemini_tool_result", tool_use_id: "gx_1", content: { output: "2" } },
      { type: "bedrock_tool_result", tool_use_id: "br_1", content: [{ text: "2" }] },
    ];
    const prompt = toLanguageModelV3Prompt(undefined, [
      {
        role: "assistant",
        content: [...calls, ...results, { type: "text", text: "It is 2." }],
      } as unknown as Message,
    ]);
    expect(prompt).toEqual([{ role: "assistant", content: [{ type: "text", text: "It is 2." }] }]);
  });

  it("tool results with images use the content output; empty assistant messages are left out", () => {
    const prompt = toLanguageModelV3Prompt(undefined, [
      { role: "assistant", content: [{ type: "text", text: "" }] },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "c", name: "screenshot", input: {} }],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "c",
            content: [
              { type: "text", text: "Here." },
              { type: "image", source: { type: "url", url: "https://x/y.png" } },
            ],
          } as never,
        ],
      },
    ]);
    expect(prompt).toEqual([
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "c", toolName: "screenshot", input: {} }],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c",
            toolName: "screenshot",
            output: {
              type: "content",
              value: [
                { type: "text", text: "Here." },
                { type: "image-url", url: "https://x/y.png" },
              ],
            },
          },
        ],
      },
    ]);
  });
});

describe("aiSdkCallOptions", () => {
  const tools = [
    {
      name: "search",
      description: "Search the catalogue.",
      input_schema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    },
  ];

  it("tools as function tools, maxTokens as maxOutputTokens, extra call options kept", () => {
    expect(toLanguageModelV3Tools(tools)).toEqual([
      {
        type: "function",
        name: "search",
        description: "Search the catalogue.",
        inputSchema: tools[0]!.input_schema,
      },
    ]);
    const call = aiSdkCallOptions(
      { provider: "anthropic.messages" },
      { system: "S", messages: [{ role: "user", content: "hi" }], tools, maxTokens: 300 },
      { maxTokens: 100, callOptions: { temperature: 0.2, providerOptions: { anthropic: {} } } },
    );
    expect(call).toEqual({
      temperature: 0.2,
      providerOptions: { anthropic: {} },
      prompt: [
        { role: "system", content: "S" },
        { role: "user", content: [{ type: "text", text: "hi" }] },
      ],
      tools: toLanguageModelV3Tools(tools),
      maxOutputTokens: 300,
    });
    const bare = aiSdkCallOptions(
      { provider: "x" },
      { messages: [{ role: "user", content: "hi" }], tools: [] },
      { maxTokens: 100 },
    );
    expect(bare.tools).toBeUndefined();
    expect(bare.maxOutputTokens).toBe(100);
  });
});
