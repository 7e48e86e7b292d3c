import { describe, expect, it } from "vitest";
import { toChatMessages } from "./chat-messages.js";

describe("toChatMessages", () => {
  it("maps a tool round to Chat Completions messages: tool_calls, then tool messages first", () => {
    const out = toChatMessages("You help.", [
      { role: "user", content: "add A" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hmm", signature: "sig" },
          { type: "text", text: "Adding." },
          { type: "tool_use", id: "call_a", name: "add_to_cart", input: { sku: "A" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_a", content: "added", is_error: false },
          { type: "text", text: "and B" },
        ],
      },
    ]);
    expect(out).toEqual([
      { role: "system", content: "You help." },
      { role: "user", content: "add A" },
      {
        role: "assistant",
        content: "Adding.",
        tool_calls: [
          {
            id: "call_a",
            type: "function",
            function: { name: "add_to_cart", arguments: '{"sku":"A"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: "added" },
      { role: "user", content: "and B" },
    ]);
  });

  it("uses null content for an assistant message that only calls tools and drops provider-only blocks", () => {
    const out = toChatMessages(undefined, [
      { role: "user", content: "x" },
      {
        role: "assistant",
        content: [
          { type: "server_tool_use", id: "srv", name: "web_search", input: {} },
          { type: "tool_use", id: "c", name: "t", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "c", content: [{ type: "text", text: "r" }] },
        ],
      },
    ]);
    expect(out[1]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c", type: "function", function: { name: "t", arguments: "{}" } }],
    });
    expect(out[2]).toEqual({ role: "tool", tool_call_id: "c", content: "r" });
  });
});
