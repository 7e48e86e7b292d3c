import { describe, expect, it } from "vitest";
import { IdFactory } from "./id-factory.js";
import { argumentText, outputTokens, resolveScript } from "./resolve-script.js";
import type { SimScript } from "./script.js";
import { SeededRandom } from "./seeded-random.js";

const ids = () => new IdFactory(new SeededRandom(42));
const script: SimScript = {
  blocks: [
    { type: "thinking", thinking: "Hmm." },
    { type: "text", text: "Adding." },
    { type: "tool_use", name: "add_to_cart", input: { sku: "A-1", quantity: 2 } },
    { type: "tool_use", name: "cart_total", input: {} },
  ],
};

describe("resolveScript", () => {
  it("fills ids and argument text in each API's style", () => {
    const anthropic = resolveScript(script, { api: "anthropic", ids: ids() });
    expect(anthropic.stopReason).toBe("tool_use");
    expect(anthropic.blocks[0]).toMatchObject({
      type: "thinking",
      signature: expect.stringMatching(/^Eq[\w+/]{290}$/),
    });
    expect(anthropic.blocks[2]).toEqual({
      type: "tool_use",
      id: expect.stringMatching(/^toolu_01[0-9A-Za-z]{22}$/),
      name: "add_to_cart",
      args: '{"sku": "A-1", "quantity": 2}',
    });
    expect(anthropic.blocks[3]).toMatchObject({ args: "" });
    const openai = resolveScript(script, { api: "openai", ids: ids() });
    expect(openai.blocks.map((b) => b.type)).toEqual(["text", "tool_use", "tool_use"]);
    expect(openai.blocks[1]).toMatchObject({
      id: expect.stringMatching(/^call_[0-9A-Za-z]{24}$/),
      args: '{"sku":"A-1","quantity":2}',
    });
    expect(openai.blocks[2]).toMatchObject({ args: "{}" });
  });

  it("keeps raw string inputs and given ids as they are", () => {
    const out = resolveScript(
      { blocks: [{ type: "tool_use", id: "mine", name: "x", input: '{"a": tru' }] },
      { api: "anthropic", ids: ids() },
    );
    expect(out.blocks[0]).toEqual({ type: "tool_use", id: "mine", name: "x", args: '{"a": tru' });
  });

  it("breaks the last call's JSON for invalid-json", () => {
    for (const api of ["anthropic", "openai"] as const) {
      const out = resolveScript(script, { api, ids: ids(), invalidJson: true });
      const last = out.blocks.at(-1);
      const args = last?.type === "tool_use" ? last.args : "";
      expect(() => JSON.parse(args)).toThrow();
      expect(out.stopReason).toBe("tool_use");
    }
  });

  it("cuts inside the last call for max-tokens", () => {
    const out = resolveScript(
      { blocks: [...script.blocks.slice(0, 3), { type: "text", text: "after" }] },
      { api: "anthropic", ids: ids(), cutInLastToolUse: true },
    );
    expect(out.stopReason).toBe("max_tokens");
    expect(out.blocks.map((b) => b.type)).toEqual(["thinking", "text", "tool_use"]);
    const last = out.blocks.at(-1);
    expect(last?.type === "tool_use" && last.args).toBe('{"sku": "A-1",');
  });

  it("stops at the request's max_tokens", () => {
    const long = {
      blocks: [
        { type: "text" as const, text: "z".repeat(100) },
        { type: "text" as const, text: "more" },
      ],
    };
    const out = resolveScript(long, { api: "anthropic", ids: ids(), maxTokens: 10 });
    expect(out.stopReason).toBe("max_tokens");
    expect(out.blocks).toEqual([{ type: "text", text: "z".repeat(40) }]);
    expect(outputTokens(out)).toBe(10);
    expect(resolveScript(long, { api: "anthropic", ids: ids(), maxTokens: 1000 }).stopReason).toBe(
      "end_turn",
    );
  });

  it("links web search results to their call", () => {
    const out = resolveScript(
      {
        blocks: [
          { type: "server_tool_use", name: "web_search", input: { query: "q" } },
          { type: "web_search_tool_result", results: [{ title: "T", url: "https://example.com" }] },
        ],
      },
      { api: "anthropic", ids: ids() },
    );
    const [call, result] = out.blocks;
    expect(call?.type === "server_tool_use" && call.id).toMatch(/^srvtoolu_01/);
    expect(result).toMatchObject({
      toolUseId: call?.type === "server_tool_use" ? call.id : "",
      results: [{ pageAge: null }],
    });
  });
});

describe("argumentText", () => {
  it("writes Claude's spacing and OpenAI's compact JSON", () => {
    const input = { a: [1, { b: "x, y: z" }], c: null };
    expect(argumentText(input, "anthropic")).toBe('{"a": [1, {"b": "x, y: z"}], "c": null}');
    expect(argumentText(input, "openai")).toBe('{"a":[1,{"b":"x, y: z"}],"c":null}');
    expect(JSON.parse(argumentText(input, "anthropic"))).toEqual(input);
  });
});
