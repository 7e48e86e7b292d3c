import { describe, expect, it } from "vitest";
import { z } from "zod";
import { OverlapError } from "../errors.js";
import { defineTool } from "./define-tool.js";

const base = { name: "book", description: "Books a table.", run: () => "booked" };

/** The error defineTool throws for this definition (fails the test when it throws none). */
function definitionError(make: () => unknown): OverlapError {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(OverlapError);
    expect((error as OverlapError).code).toBe("invalid_tool_definition");
    return error as OverlapError;
  }
  throw new Error("the definition was accepted");
}

/** The sentence for an input schema given at run time (beyond what the types allow). */
const inputError = (input: unknown) =>
  definitionError(() => defineTool({ ...base, input: input as z.ZodObject })).message;

describe("defineTool refuses a definition it cannot use, saying what to do", () => {
  it("a missing input", () => {
    expect(definitionError(() => defineTool({ ...base } as never)).message).toBe(
      'Tool "book": it has no input schema; add input: z.object({...}) (z.object({}) for a tool without arguments).',
    );
    expect(
      definitionError(() => defineTool({ ...base, inputSchema: { type: "object" } } as never))
        .message,
    ).toBe(
      'Tool "book": defineTool takes a zod schema as input; for a JSON Schema (inputSchema) use defineJsonSchemaTool.',
    );
  });

  it("an input that is not a zod schema: a plain object of fields, a JSON Schema", () => {
    expect(inputError({ city: z.string() })).toBe(
      'Tool "book": its input is a plain object of fields; wrap them in z.object({...}).',
    );
    expect(inputError({ type: "object", properties: {} })).toBe(
      'Tool "book": its input looks like a JSON Schema; defineTool takes a zod schema (z.object({...})), use defineJsonSchemaTool({ inputSchema }) for a JSON Schema.',
    );
    expect(inputError(42)).toBe(
      'Tool "book": its input must be a zod object schema (z.object({...})), got 42.',
    );
  });

  it("an input schema that is not an object schema", () => {
    expect(inputError(z.string())).toBe(
      'Tool "book": its input must be a zod object schema (z.object({...})), got z.string(); put the value in a field, for example z.object({ value: z.string() }).',
    );
    expect(inputError(z.array(z.number()))).toMatch(/got z\.array\(\.\.\.\); put the value/);
    expect(inputError(z.record(z.string(), z.number()))).toMatch(/got z\.record\(\.\.\.\)/);
    expect(inputError(z.object({}).optional())).toMatch(
      /got z\.object\(\{\.\.\.\}\)\.optional\(\)/,
    );
  });

  it("the type parameter accepts object schemas only", () => {
    expect(() =>
      defineTool({
        ...base,
        // @ts-expect-error a tool's input is an object schema
        input: z.string(),
      }),
    ).toThrow(OverlapError);
    expect(() =>
      defineTool({
        ...base,
        // @ts-expect-error a tool's input is an object schema
        input: z.array(z.string()),
      }),
    ).toThrow(OverlapError);
    // Objects, strict or refined ones, and objects piped into a transform are fine.
    defineTool({ ...base, input: z.object({ a: z.string() }).strict() });
    defineTool({ ...base, input: z.object({ a: z.string() }).refine((v) => v.a !== "") });
    const piped = defineTool({
      ...base,
      input: z.object({ a: z.string() }).transform((v) => v.a.length),
      run: (length: number) => String(length),
    });
    expect(piped.inputSchema).toMatchObject({ type: "object", required: ["a"] });
  });

  it("a field JSON cannot carry (z.date()): the sentence names the field and the fix", () => {
    expect(inputError(z.object({ when: z.date() }))).toBe(
      'Tool "book": its input field "when" is z.date(), which JSON cannot carry (the model sends JSON, so every call would fail); use z.iso.datetime() or z.iso.date() (ISO text), or z.coerce.date() if run needs a Date.',
    );
  });

  it("every kind of field JSON cannot carry, nested anywhere", () => {
    const cases: Array<[z.ZodType, string, RegExp]> = [
      [z.bigint(), "n", /"n" is z\.bigint\(\).*use z\.int\(\)/],
      [z.map(z.string(), z.number()), "m", /"m" is z\.map\(\.\.\.\).*z\.record/],
      [z.set(z.string()), "s", /"s" is z\.set\(\.\.\.\).*use z\.array/],
      [z.symbol(), "y", /"y" is z\.symbol\(\)/],
      [z.function(), "f", /"f" is z\.function\(\).*executor's context/],
      [z.undefined(), "u", /"u" is z\.undefined\(\).*make the field optional/],
      [z.nan(), "x", /"x" is z\.nan\(\)/],
    ];
    for (const [field, key, expected] of cases) {
      expect(inputError(z.object({ [key]: field })), key).toMatch(expected);
    }
    const nested: Array<[z.ZodType, string]> = [
      [z.object({ order: z.object({ when: z.date() }) }), "order.when"],
      [z.object({ lines: z.array(z.object({ at: z.date() })) }), "lines[].at"],
      [z.object({ at: z.union([z.string(), z.date()]) }), "at"],
      [z.object({ at: z.date().optional() }), "at"],
      [z.object({ at: z.date().nullable() }), "at"],
      [z.object({ at: z.date().default(new Date(0)) }), "at"],
      [z.object({ pair: z.tuple([z.string(), z.bigint()]) }), "pair[1]"],
      [z.object({ prices: z.record(z.string(), z.bigint()) }), "prices[key]"],
      [z.object({ slot: z.object({}).and(z.object({ b: z.set(z.number()) })) }), "slot.b"],
      [z.object({ tags: z.lazy(() => z.array(z.symbol())) }), "tags[]"],
    ];
    for (const [input, path] of nested) {
      expect(inputError(input), path).toContain(`its input field "${path}" is z.`);
    }
  });

  it("accepts what a model can send: optional undefined, coerced dates, transforms that make Dates", () => {
    const tool = defineTool({
      ...base,
      input: z.object({
        note: z.undefined().optional(),
        maybe: z.union([z.string(), z.undefined()]),
        day: z.coerce.date(),
        at: z.iso.datetime().transform((text) => new Date(text)),
        later: z.preprocess((value) => new Date(String(value)), z.date()),
      }),
    });
    expect(tool.inputSchema).toMatchObject({ type: "object" });
  });

  it("a bad name, with a name that would do", () => {
    expect(
      definitionError(() => defineTool({ ...base, name: "book table", input: z.object({}) }))
        .message,
    ).toBe(
      'Tool "book table": its name must be 1 to 64 letters, digits, _ or -, starting with a letter or _ (the names Claude, OpenAI, Gemini and Bedrock all accept); rename it, for example to "book_table".',
    );
    expect(
      definitionError(() => defineTool({ ...base, name: "3d-print", input: z.object({}) })).message,
    ).toContain('for example to "_3d-print"');
    expect(
      definitionError(() => defineTool({ ...base, name: "x".repeat(65), input: z.object({}) }))
        .message,
    ).toContain("1 to 64 letters");
    expect(
      definitionError(() => defineTool({ ...base, name: undefined, input: z.object({}) } as never))
        .message,
    ).toBe(
      'A tool needs a name: give it name: "..." (1 to 64 letters, digits, _ or -, starting with a letter or _), got undefined.',
    );
    // 64 characters, digits, - and _ are fine.
    defineTool({ ...base, name: `a${"-_9".repeat(21)}`, input: z.object({}) });
  });

  it("a missing or non-function run", () => {
    const { run: _run, ...noRun } = base;
    expect(
      definitionError(() => defineTool({ ...noRun, input: z.object({}) } as never)).message,
    ).toBe(
      'Tool "book": it has no run function; add run: (input, ctx) => ..., returning the text (or { data }) the model reads.',
    );
    expect(
      definitionError(() => defineTool({ ...base, input: z.object({}), run: "booked" } as never))
        .message,
    ).toBe('Tool "book": run must be a function (input, ctx) => ..., got "booked".');
  });

  it("an unknown dispatch value or kind, a deferred display tool", () => {
    expect(
      definitionError(() =>
        defineTool({ ...base, input: z.object({}), dispatch: "lazy" as "eager" }),
      ).message,
    ).toBe(
      'Tool "book": dispatch must be "eager" (starts as soon as its arguments are complete, the default) or "deferred" (starts once the model\'s message ended), got "lazy".',
    );
    expect(
      definitionError(() => defineTool({ ...base, input: z.object({}), kind: "card" as "display" }))
        .message,
    ).toBe(
      'Tool "book": kind must be "handler", "display" or "delegate" (or left out for "handler"), got "card".',
    );
    expect(
      definitionError(() =>
        defineTool({ ...base, input: z.object({}), kind: "display", dispatch: "deferred" }),
      ).message,
    ).toBe(
      'Tool "book": a display tool cannot be deferred (it has no side effects, deferring it only delays the UI); remove dispatch: "deferred", or make it a handler tool.',
    );
  });

  it("a timeout that is not a positive number; Infinity means no limit", () => {
    for (const timeoutMs of [-1, 0, Number.NaN, Number.NEGATIVE_INFINITY]) {
      expect(
        definitionError(() => defineTool({ ...base, input: z.object({}), timeoutMs })).message,
      ).toBe(
        `Tool "book": timeoutMs must be a positive number of milliseconds (Infinity for no limit, or left out for the executor's default), got ${timeoutMs}.`,
      );
    }
    defineTool({ ...base, input: z.object({}), timeoutMs: Number.POSITIVE_INFINITY });
  });

  it("a definition that is not an object, a description that is not a string", () => {
    expect(definitionError(() => defineTool(undefined as never)).message).toBe(
      "defineTool needs a definition object such as { name, description, input, run }, got undefined.",
    );
    expect(
      definitionError(() =>
        defineTool({ ...base, description: undefined, input: z.object({}) } as never),
      ).message,
    ).toBe(
      'Tool "book": its description must be a string (a sentence the model reads to decide when to call the tool), got undefined.',
    );
  });
});
