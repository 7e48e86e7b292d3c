import { describe, expect, it } from "vitest";
import { genericPolicy } from "./policy.js";
import { requestControls } from "./request-controls.js";
import { schemaExample } from "./schema-example.js";
import type { SimRequest, SimRequestMessage } from "./sim-request.js";

const SCHEMA = {
  type: "object",
  properties: { city: { type: "string" }, days: { type: "integer", minimum: 2 } },
  required: ["city", "days"],
};

describe("requestControls", () => {
  it("reads each API's tool choice into one vocabulary", () => {
    const cases: Array<[SimRequest["api"], Record<string, unknown>, unknown]> = [
      ["anthropic", { tool_choice: { type: "any" } }, "required"],
      ["anthropic", { tool_choice: { type: "tool", name: "f" } }, { name: "f" }],
      ["anthropic", { tool_choice: { type: "none" } }, "none"],
      ["openai", { tool_choice: "required" }, "required"],
      ["openai", { tool_choice: { type: "function", function: { name: "f" } } }, { name: "f" }],
      ["responses", { tool_choice: { type: "function", name: "f" } }, { name: "f" }],
      ["responses", { tool_choice: "none" }, "none"],
      ["gemini", { toolConfig: { functionCallingConfig: { mode: "ANY" } } }, "required"],
      [
        "gemini",
        { toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["f"] } } },
        { name: "f" },
      ],
      ["gemini", { toolConfig: { functionCallingConfig: { mode: "NONE" } } }, "none"],
      ["bedrock", { toolConfig: { toolChoice: { any: {} } } }, "required"],
      ["bedrock", { toolConfig: { toolChoice: { tool: { name: "f" } } } }, { name: "f" }],
      ["bedrock", { toolConfig: { toolChoice: { auto: {} } } }, "auto"],
    ];
    for (const [api, body, expected] of cases) {
      expect(requestControls(api, body).toolChoice, `${api} ${JSON.stringify(body)}`).toEqual(
        expected,
      );
    }
    expect(requestControls("openai", {})).toEqual({});
  });

  it("reads each API's JSON output schema", () => {
    expect(
      requestControls("openai", {
        response_format: { type: "json_schema", json_schema: { name: "x", schema: SCHEMA } },
      }).outputSchema,
    ).toEqual(SCHEMA);
    expect(
      requestControls("responses", { text: { format: { type: "json_schema", schema: SCHEMA } } })
        .outputSchema,
    ).toEqual(SCHEMA);
    expect(
      requestControls("gemini", {
        generationConfig: { responseMimeType: "application/json", responseJsonSchema: SCHEMA },
      }).outputSchema,
    ).toEqual(SCHEMA);
    expect(requestControls("openai", { response_format: { type: "json_object" } })).toEqual({
      outputSchema: {},
    });
    expect(requestControls("responses", { text: { format: { type: "text" } } })).toEqual({});
    expect(requestControls("gemini", { generationConfig: { temperature: 1 } })).toEqual({});
  });
});

describe("schemaExample", () => {
  it("gives a value of the schema's shape: every property, enums, minimums, refs", () => {
    expect(schemaExample(SCHEMA)).toEqual({ city: "example", days: 2 });
    expect(
      schemaExample({
        type: "object",
        properties: {
          kind: { enum: ["a", "b"] },
          tags: { type: "array", items: { type: "string" } },
          next: { $ref: "#/$defs/n" },
          maybe: { anyOf: [{ type: "boolean" }, { type: "null" }] },
        },
        $defs: { n: { type: "number" } },
      }),
    ).toEqual({ kind: "a", tags: ["example"], next: 1, maybe: true });
  });
});

function request(
  messages: SimRequestMessage[],
  extra: Partial<SimRequest> = {},
  tools = ["search", "final_answer"],
): SimRequest {
  return {
    api: "anthropic",
    model: "m",
    messages,
    tools: tools.map((name) => ({
      name,
      description: "",
      input_schema: name === "final_answer" ? SCHEMA : { type: "object" },
    })),
    stream: false,
    headers: {},
    ...extra,
  };
}
const user = (text: string): SimRequestMessage => ({
  role: "user",
  content: [{ type: "text", text }],
});
const results: SimRequestMessage[] = [
  { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "search", input: {} }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "found" }] },
];

describe("genericPolicy and the request's form", () => {
  it("calls no tool under toolChoice none, whatever the directives", async () => {
    const script = await genericPolicy(request([user("call search {}")], { toolChoice: "none" }));
    expect(script.blocks.every((b) => b.type === "text")).toBe(true);
    expect(script.stopReason).toBe("end_turn");
  });

  it("calls a forced tool, and only it, without a text first", async () => {
    const script = await genericPolicy(
      request([user('call search {} answer {"city":"Oslo","days":3}')], {
        toolChoice: { name: "final_answer" },
      }),
    );
    expect(script.blocks).toEqual([
      { type: "tool_use", name: "final_answer", input: { city: "Oslo", days: 3 } },
    ]);
  });

  it("under required, calls the directives' tools, then (after results) the last tool", async () => {
    const first = await genericPolicy(
      request([user('call search {"q":1}')], { toolChoice: "required" }),
    );
    expect(first.blocks).toEqual([{ type: "tool_use", name: "search", input: { q: 1 } }]);
    const second = await genericPolicy(
      request([user('call search {"q":1}'), ...results], { toolChoice: "required" }),
    );
    expect(second.blocks).toEqual([
      { type: "tool_use", name: "final_answer", input: { city: "example", days: 2 } },
    ]);
  });

  it("answers JSON of the schema in JSON mode: the answer directive, else an example", async () => {
    const given = await genericPolicy(
      request([user('answer {"city":"Rome","days":4}'), ...results], {
        outputSchema: SCHEMA,
      }),
    );
    expect(given.blocks).toEqual([{ type: "text", text: '{"city":"Rome","days":4}' }]);
    const example = await genericPolicy(request([user("hello")], { outputSchema: SCHEMA }));
    expect(example.blocks).toEqual([{ type: "text", text: '{"city":"example","days":2}' }]);
    const broken = await genericPolicy(request([user("answer {oops")], { outputSchema: SCHEMA }));
    expect(broken.blocks).toEqual([{ type: "text", text: "{oops" }]);
  });
});
