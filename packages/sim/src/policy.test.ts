import { describe, expect, it } from "vitest";
import { genericPolicy, parseCallDirectives } from "./policy.js";
import type { SimRequest, SimRequestMessage } from "./sim-request.js";
import { THREE_CALL_INPUTS, THREE_CALLS } from "./test-support.js";

function request(messages: SimRequestMessage[], tools: string[] = []): SimRequest {
  return {
    api: "anthropic",
    model: "m",
    messages,
    tools: tools.map((name) => ({ name, description: "", input_schema: {} })),
    stream: false,
    headers: {},
  };
}
const user = (text: string): SimRequestMessage => ({
  role: "user",
  content: [{ type: "text", text }],
});

describe("genericPolicy", () => {
  it("turns call directives into tool calls, in order, after a short text", async () => {
    const script = await genericPolicy(request([user(THREE_CALLS)], ["add_to_cart", "cart_total"]));
    expect(script.stopReason).toBe("tool_use");
    expect(script.blocks[0]).toEqual({
      type: "text",
      text: "Calling add_to_cart, add_to_cart and cart_total.",
    });
    expect(script.blocks.slice(1)).toEqual(
      THREE_CALL_INPUTS.map((input, i) => ({
        type: "tool_use",
        name: i < 2 ? "add_to_cart" : "cart_total",
        input,
      })),
    );
  });

  it("summarises tool results when the last user message holds them", async () => {
    const script = await genericPolicy(
      request([
        user("call add_to_cart {}"),
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "t1", name: "add_to_cart", input: {} },
            { type: "tool_use", id: "t2", name: "cart_total", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t1", content: '{"ok":true}' },
            { type: "tool_result", tool_use_id: "t2", content: "out of stock", is_error: true },
          ],
        },
      ]),
    );
    expect(script).toEqual({
      blocks: [
        {
          type: "text",
          text: 'Results: add_to_cart: {"ok":true}; cart_total failed: out of stock',
        },
      ],
      stopReason: "end_turn",
    });
  });

  it("otherwise says it is a scripted model and what it can do", async () => {
    const script = await genericPolicy(request([user("Hello?")], ["cart_total"]));
    const first = script.blocks[0];
    expect(first?.type === "text" && first.text).toMatch(
      /scripted model.*not a language model.*"Hello\?".*cart_total/s,
    );
    expect(script.stopReason).toBe("end_turn");
  });
});

describe("parseCallDirectives", () => {
  it("needs a JSON object or a known tool name, so ordinary words are not calls", () => {
    expect(parseCallDirectives("please call me later", new Set(["cart_total"]))).toEqual([]);
    expect(parseCallDirectives("call cart_total now", new Set(["cart_total"]))).toEqual([
      { name: "cart_total", input: {} },
    ]);
    expect(parseCallDirectives('call anything {"a": [1, {"b": "}"}]}', new Set())).toEqual([
      { name: "anything", input: { a: [1, { b: "}" }] } },
    ]);
  });

  it("passes JSON that does not parse as raw argument text", () => {
    expect(parseCallDirectives('call add {"sku": "A", }', new Set())).toEqual([
      { name: "add", input: '{"sku": "A", }' },
    ]);
    expect(parseCallDirectives('call add {"sku": "A"', new Set())).toEqual([
      { name: "add", input: '{"sku": "A"' },
    ]);
  });
});
