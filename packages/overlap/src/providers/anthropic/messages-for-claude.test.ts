import { describe, expect, it } from "vitest";
import { validateConversation } from "../../agent/validate-conversation.js";
import type { Message } from "../../stream/message.js";
import { messagesForClaude } from "./messages-for-claude.js";

describe("messagesForClaude: a conversation the AI SDK adapter took part in", () => {
  it("drops ai_sdk_metadata fields and provider-executed calls with their ai_sdk_tool_result", () => {
    const messages = [
      { role: "user", content: "find it" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Searching.", ai_sdk_metadata: { openai: { itemId: "msg_1" } } },
          { type: "server_tool_use", id: "ws_1", name: "web_search", input: { q: "x" } },
          { type: "ai_sdk_tool_result", tool_use_id: "ws_1", content: [] },
          { type: "tool_use", id: "t1", name: "add", input: {}, ai_sdk_metadata: { a: 1 } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] },
    ] as unknown as Message[];
    const out = messagesForClaude(messages);
    expect(out[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Searching." },
        { type: "tool_use", id: "t1", name: "add", input: {} },
      ],
    });
    expect(out[0]).toBe(messages[0]);
    expect(validateConversation(out as Message[])).toEqual([]);
  });
});

describe("messagesForClaude: a conversation Gemini or Bedrock took part in", () => {
  it("drops their provider-side calls with their results, the grounding block and their citations", () => {
    const kept = { type: "web_search_result_location", url: "https://a.example", cited_text: "x" };
    const messages = [
      { role: "user", content: "Go." },
      {
        role: "assistant",
        content: [
          { type: "server_tool_use", id: "g1", name: "code_execution", input: {}, gemini_part: {} },
          { type: "gemini_tool_result", tool_use_id: "g1", content: {} },
          { type: "server_tool_use", id: "b1", name: "nova_code_interpreter", input: {} },
          { type: "bedrock_tool_result", tool_use_id: "b1", content: {} },
          {
            type: "text",
            text: "Cited.",
            citations: [{ type: "gemini_grounding", url: "u" }, { type: "bedrock_citation" }, kept],
          },
          { type: "gemini_grounding_metadata", metadata: {} },
        ],
      },
    ] as unknown as Message[];
    expect(messagesForClaude(messages)).toEqual([
      messages[0],
      { role: "assistant", content: [{ type: "text", text: "Cited.", citations: [kept] }] },
    ]);
  });
});
