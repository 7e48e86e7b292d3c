import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { OverlapError } from "../errors.js";
import { type ToolCall, toolCallOf } from "../stream/tool-call.js";
import { defineJsonSchemaTool, type JsonObjectSchema } from "./define-json-schema-tool.js";
import { ToolExecutor } from "./tool-executor.js";

const call = (name: string, value: Record<string, unknown>): ToolCall =>
  toolCallOf({ type: "tool_use", id: "call_1", name, input: value });

const ORDER_SCHEMA = {
  type: "object",
  properties: {
    sku: { type: "string", pattern: "^[A-Z]+$" },
    quantity: { type: "integer", minimum: 1, maximum: 10 },
    lines: { type: "array", items: { enum: ["gift", "express"] } },
  },
  required: ["sku", "quantity"],
  additionalProperties: false,
} satisfies JsonObjectSchema;

describe("defineJsonSchemaTool", () => {
  it("sends the JSON Schema as is and runs on input that passes it", async () => {
    const run = vi.fn((value: Record<string, unknown>) => ({ data: value }));
    const tool = defineJsonSchemaTool({
      name: "order",
      description: "Orders.",
      inputSchema: ORDER_SCHEMA,
      dispatch: "deferred",
      timeoutMs: 500,
      run,
    });
    expect(tool.inputSchema).toBe(ORDER_SCHEMA);
    expect(tool).toMatchObject({ kind: "handler", dispatch: "deferred", timeoutMs: 500 });
    const executor = new ToolExecutor([tool]);
    expect(executor.specs()).toEqual([
      { name: "order", description: "Orders.", input_schema: ORDER_SCHEMA },
    ]);
    const outcome = await executor.execute(call("order", { sku: "SOCK", quantity: 2 }));
    expect(outcome).toMatchObject({ status: "ok", resultText: '{"sku":"SOCK","quantity":2}' });
    expect(run).toHaveBeenCalledOnce();
  });

  it("reports every schema failure with its path, never running the tool", async () => {
    const run = vi.fn(() => "ran");
    const tool = defineJsonSchemaTool({
      name: "order",
      description: "",
      inputSchema: ORDER_SCHEMA,
      run,
    });
    const outcome = await new ToolExecutor([tool]).execute(
      call("order", { quantity: 0, lines: ["gift", "slow"], note: "x" }),
    );
    expect(outcome.status).toBe("invalid_input");
    expect(outcome.isError).toBe(true);
    const text = outcome.resultText;
    expect(text).toMatch(/^Invalid arguments for order: /);
    expect(text).toContain("must have required property 'sku'");
    expect(text).toContain('must NOT have additional properties: "note"');
    expect(text).toMatch(/must be >= 1\s+→ at quantity/);
    expect(text).toMatch(/allowed values: "gift", "express"\s+→ at lines\[1\]/);
    expect(text).toMatch(/Fix them and call the tool again\.$/);
    expect(run).not.toHaveBeenCalled();
  });

  it("follows the schema's $schema: draft-07 and 2019-09 schemas compile, 2020-12 is the default", async () => {
    const byDialect = {
      "http://json-schema.org/draft-07/schema#": { definitions: { n: { type: "number" } } },
      "https://json-schema.org/draft/2019-09/schema": { $defs: { n: { type: "number" } } },
      "https://json-schema.org/draft/2020-12/schema": { $defs: { n: { type: "number" } } },
    };
    for (const [uri, defs] of Object.entries(byDialect)) {
      const ref = "definitions" in defs ? "#/definitions/n" : "#/$defs/n";
      const tool = defineJsonSchemaTool({
        name: "n",
        description: "",
        inputSchema: { $schema: uri, type: "object", properties: { n: { $ref: ref } }, ...defs },
        run: () => "ok",
      });
      const executor = new ToolExecutor([tool]);
      expect((await executor.execute(call("n", { n: 1 }))).status, uri).toBe("ok");
      expect((await executor.execute(call("n", { n: "1" }))).status, uri).toBe("invalid_input");
    }
    // 2020-12 without $schema: prefixItems is checked.
    const tuple = defineJsonSchemaTool({
      name: "pair",
      description: "",
      inputSchema: {
        type: "object",
        properties: { p: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }] } },
      },
      run: () => "ok",
    });
    const executor = new ToolExecutor([tuple]);
    expect((await executor.execute(call("pair", { p: ["a", 1] }))).status).toBe("ok");
    expect((await executor.execute(call("pair", { p: [1, "a"] }))).status).toBe("invalid_input");
  });

  it("ignores unknown keywords and formats; tools may share an $id", async () => {
    const make = (name: string) =>
      defineJsonSchemaTool({
        name,
        description: "",
        inputSchema: {
          $id: "https://example.com/same",
          type: "object",
          "x-vendor": true,
          properties: { email: { type: "string", format: "email" } },
        },
        run: () => "ok",
      });
    const executor = new ToolExecutor([make("a"), make("b")]);
    expect((await executor.execute(call("b", { email: "not an email" }))).status).toBe("ok");
  });

  it("the inputSchema type accepts object schemas only", () => {
    const base = { name: "lookup", description: "", run: () => "" };
    expect(() =>
      defineJsonSchemaTool({
        ...base,
        // @ts-expect-error a tool's input schema is an object schema
        inputSchema: { type: "array", items: { type: "string" } },
      }),
    ).toThrow(OverlapError);
    expect(() =>
      defineJsonSchemaTool({
        ...base,
        // @ts-expect-error a tool's input schema is an object schema
        inputSchema: { type: "string" },
      }),
    ).toThrow(OverlapError);
    // A schema held in a variable keeps its literal type with `as const` or `satisfies`.
    const byConst = { type: "object", required: ["q"], properties: { q: {} } } as const;
    defineJsonSchemaTool({ ...base, inputSchema: byConst });
    // Other keywords pass through; the schema is often someone else's (an MCP server's).
    const tool = defineJsonSchemaTool({
      ...base,
      inputSchema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        $defs: { q: { type: "string" } },
        properties: { q: { $ref: "#/$defs/q" } },
        additionalProperties: { type: "number" },
        description: "A lookup.",
      },
    });
    expect(tool.inputSchema).toMatchObject({ description: "A lookup." });
  });

  it("rejects what defineTool rejects, non-object schemas and schemas ajv cannot compile", () => {
    const base = {
      description: "",
      inputSchema: { type: "object" } satisfies JsonObjectSchema,
      run: () => "",
    };
    expect(() => defineJsonSchemaTool({ ...base, name: "has space" })).toThrow(
      /Tool "has space": its name/,
    );
    expect(() =>
      defineJsonSchemaTool({ ...base, name: "card", kind: "display", dispatch: "deferred" }),
    ).toThrow(/deferred/);
    expect(() =>
      // As a caller the type does not hold (JavaScript, a cast) would pass it.
      defineJsonSchemaTool({ ...base, name: "s", inputSchema: { type: "string" } as never }),
    ).toThrow(/type "object"/);
    expect(() =>
      defineJsonSchemaTool({
        ...base,
        name: "r",
        inputSchema: { type: "object", properties: { a: { $ref: "#/$defs/missing" } } },
      }),
    ).toThrow(/Tool "r" input schema cannot be compiled/);
  });

  describe("refuses a definition it cannot use, saying what to do", () => {
    const base = { name: "lookup", description: "Looks up.", run: () => "" };
    const object = {
      type: "object",
      properties: { q: { type: "string" } },
    } satisfies JsonObjectSchema;

    /** The sentence of the invalid_tool_definition error this definition throws. */
    function definitionError(make: () => unknown): string {
      try {
        make();
      } catch (error) {
        expect(error).toBeInstanceOf(OverlapError);
        expect((error as OverlapError).code).toBe("invalid_tool_definition");
        return (error as OverlapError).message;
      }
      throw new Error("the definition was accepted");
    }

    it("a missing inputSchema, or a zod schema given to it", () => {
      expect(definitionError(() => defineJsonSchemaTool({ ...base } as never))).toBe(
        'Tool "lookup": it has no inputSchema; add a JSON Schema such as inputSchema: { type: "object", properties: {...} }.',
      );
      expect(
        definitionError(() => defineJsonSchemaTool({ ...base, input: z.object({}) } as never)),
      ).toBe(
        'Tool "lookup": defineJsonSchemaTool takes a JSON Schema as inputSchema; for a zod schema (input) use defineTool.',
      );
      expect(
        definitionError(() =>
          defineJsonSchemaTool({ ...base, inputSchema: z.object({ q: z.string() }) as never }),
        ),
      ).toBe(
        'Tool "lookup": its inputSchema is a zod schema (z.object({...})); use defineTool({ input }) for zod, defineJsonSchemaTool takes a JSON Schema object.',
      );
    });

    // The type refuses these; a JavaScript caller or a cast gets the sentence.
    it('a schema whose type is not "object"', () => {
      expect(
        definitionError(() =>
          defineJsonSchemaTool({ ...base, inputSchema: { type: "array", items: {} } as never }),
        ),
      ).toBe(
        'Tool "lookup": its input schema must have type "object" (the model APIs send tool arguments as a JSON object), got type "array"; put the value in a property: { type: "object", properties: { value: {...} } }.',
      );
      expect(
        definitionError(() =>
          defineJsonSchemaTool({ ...base, inputSchema: { properties: {} } as never }),
        ),
      ).toContain(
        'must have type "object" (the model APIs send tool arguments as a JSON object), got no type;',
      );
      expect(
        definitionError(() => defineJsonSchemaTool({ ...base, inputSchema: "object" as never })),
      ).toBe(
        'Tool "lookup": its inputSchema must be a JSON Schema object such as { type: "object", properties: {...} }, got "object".',
      );
    });

    it("a schema ajv cannot compile", () => {
      expect(
        definitionError(() =>
          defineJsonSchemaTool({
            ...base,
            inputSchema: { type: "object", properties: { a: { $ref: "#/$defs/missing" } } },
          }),
        ),
      ).toMatch(/^Tool "lookup" input schema cannot be compiled: .*missing.*\. Fix the schema\.$/);
    });

    it("a bad name, a missing or non-function run, an unknown dispatch, a bad timeout", () => {
      expect(
        definitionError(() => defineJsonSchemaTool({ ...base, name: "a.b", inputSchema: object })),
      ).toContain('Tool "a.b": its name must be 1 to 64 letters, digits, _ or -,');
      const { run: _run, ...noRun } = base;
      expect(
        definitionError(() => defineJsonSchemaTool({ ...noRun, inputSchema: object } as never)),
      ).toBe(
        'Tool "lookup": it has no run function; add run: (input, ctx) => ..., returning the text (or { data }) the model reads.',
      );
      expect(
        definitionError(() =>
          defineJsonSchemaTool({ ...base, inputSchema: object, run: {} as never }),
        ),
      ).toBe('Tool "lookup": run must be a function (input, ctx) => ..., got an object.');
      expect(
        definitionError(() =>
          defineJsonSchemaTool({ ...base, inputSchema: object, dispatch: "now" as "eager" }),
        ),
      ).toContain('dispatch must be "eager"');
      expect(
        definitionError(() =>
          defineJsonSchemaTool({ ...base, inputSchema: object, timeoutMs: -5 }),
        ),
      ).toContain("timeoutMs must be a positive number of milliseconds");
    });
  });
});
