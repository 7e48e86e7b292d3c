import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  JsonPathWriter,
  type PartialArg,
  PartialArgsOrderError,
  parseJsonPath,
} from "./gemini-partial-args.js";

/** The leaves of a JSON object in document order, as Vertex would stream them. */
function leaves(value: unknown, path = "$"): Array<{ path: string; value: unknown }> {
  if (Array.isArray(value) && value.length > 0) {
    return value.flatMap((item, i) => leaves(item, `${path}[${i}]`));
  }
  if (typeof value === "object" && value !== null && Object.keys(value).length > 0) {
    return Object.entries(value).flatMap(([k, v]) =>
      leaves(v, /^[A-Za-z_]\w*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`),
    );
  }
  return [{ path, value }];
}

/** Partial args for an object, strings cut in pieces of `size` characters. */
function partialArgs(args: Record<string, unknown>, size: number): PartialArg[] {
  return leaves(args).flatMap(({ path, value }): PartialArg[] => {
    if (typeof value === "string") {
      const pieces: PartialArg[] = [];
      for (let i = 0; i < value.length || i === 0; i += size) {
        const piece = value.slice(i, i + size);
        pieces.push({ jsonPath: path, stringValue: piece, willContinue: i + size < value.length });
      }
      return pieces;
    }
    if (typeof value === "number") return [{ jsonPath: path, numberValue: value }];
    if (typeof value === "boolean") return [{ jsonPath: path, boolValue: value }];
    if (value === null) return [{ jsonPath: path, nullValue: null }];
    throw new Error(`not a scalar leaf: ${JSON.stringify(value)}`);
  });
}

const scalar = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const nonEmptyJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    scalar,
    fc.array(tie("value"), { minLength: 1, maxLength: 4 }),
    fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), tie("value"), {
      minKeys: 1,
      maxKeys: 4,
    }),
  ),
})).value;
const argsObject = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), nonEmptyJson, {
  minKeys: 1,
  maxKeys: 5,
});

describe("JsonPathWriter", () => {
  it("writes in-order partial args as exactly JSON.stringify of the object, whatever the pieces", () => {
    fc.assert(
      fc.property(argsObject, fc.integer({ min: 1, max: 5 }), (args, size) => {
        const writer = new JsonPathWriter();
        const deltas = partialArgs(args, size).map((arg) => writer.writePartialArgs([arg]));
        deltas.push(writer.finish());
        const text = deltas.join("");
        expect(text).toBe(JSON.stringify(args));
        expect(writer.text).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it("writes an args object the same way", () => {
    fc.assert(
      fc.property(argsObject, (args) => {
        const writer = new JsonPathWriter();
        expect(writer.writeArgs(args) + writer.finish()).toBe(JSON.stringify(args));
      }),
      { numRuns: 200 },
    );
  });

  it("keeps a string open while its pieces continue, and closes it when another path comes", () => {
    const writer = new JsonPathWriter();
    expect(writer.write("$.location", "Bost", true)).toBe('{"location":"Bost');
    expect(writer.write("$.location", "on, MA", true)).toBe("on, MA");
    // The string's last piece never said it was the last: the next path ends it.
    expect(writer.write("$.brightness", 50)).toBe('","brightness":50');
    expect(writer.write("$.tags[0]", 'a "quoted" ✓')).toBe(',"tags":["a \\"quoted\\" ✓"');
    expect(writer.write("$.tags[1]", null)).toBe(",null");
    expect(writer.finish()).toBe("]}");
    expect(JSON.parse(writer.text)).toEqual({
      location: "Boston, MA",
      brightness: 50,
      tags: ['a "quoted" ✓', null],
    });
  });

  it("an empty call is {}", () => {
    const writer = new JsonPathWriter();
    expect(writer.finish()).toBe("{}");
    expect(writer.finish()).toBe("");
  });

  it("refuses what cannot be written as a prefix: a finished container reopened, an index skipped, a value for $", () => {
    const reopened = new JsonPathWriter();
    reopened.write("$.a.x", 1);
    reopened.write("$.b", 2);
    expect(() => reopened.write("$.a.y", 3)).toThrow(PartialArgsOrderError);

    const repeated = new JsonPathWriter();
    repeated.write("$.a", "done");
    expect(() => repeated.write("$.a", "again")).toThrow(PartialArgsOrderError);

    const skipped = new JsonPathWriter();
    expect(() => skipped.write("$.list[1]", 1)).toThrow(/expected index 0/);

    expect(() => new JsonPathWriter().write("$", 1)).toThrow(PartialArgsOrderError);
    expect(() => new JsonPathWriter().write("$[0]", 1)).toThrow(PartialArgsOrderError);
  });

  it("parses the JSON Path forms Vertex sends", () => {
    expect(parseJsonPath("$")).toEqual([]);
    expect(parseJsonPath("$.foo.bar[0].data")).toEqual(["foo", "bar", 0, "data"]);
    expect(parseJsonPath("$['a b'][\"c.d\"][12]")).toEqual(["a b", "c.d", 12]);
    for (const bad of ["foo", "$.", "$[x]", "$['a'", "$..a", "$[-1]"]) {
      expect(() => parseJsonPath(bad), bad).toThrow(PartialArgsOrderError);
    }
  });
});
