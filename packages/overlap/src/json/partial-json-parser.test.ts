import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonPreview } from "../protocol/json-preview.js";
import { PartialJsonParser, parsePartialJson } from "./partial-json-parser.js";

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** Splits `text` at the given positions (taken modulo its length, deduplicated). */
function split(text: string, cuts: readonly number[]): string[] {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let prev = 0;
  for (const c of at) {
    chunks.push(text.slice(prev, c));
    prev = c;
  }
  chunks.push(text.slice(prev));
  return chunks;
}

/** One chunk per UTF-16 code unit: splits every surrogate pair too. */
function units(text: string): string[] {
  return Array.from({ length: text.length }, (_, i) => text[i]!);
}

/** Pushes the chunks one by one and returns the snapshot after each. */
function feed(chunks: readonly string[]): {
  parser: PartialJsonParser;
  snaps: (JsonPreview | undefined)[];
} {
  const parser = new PartialJsonParser();
  const snaps = chunks.map((chunk) => {
    parser.push(chunk);
    return parser.snapshot();
  });
  return { parser, snaps };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Returns why `partial` is not a possible preview of `final`, or undefined when it is. Finished
 * scalars must be equal, strings prefixes, arrays prefixes whose elements before the last are
 * finished (deep-equal) and whose last element is consistent, object keys a subset with consistent
 * values. `checked` memoizes subtrees already verified: shared subtrees are frozen, so once
 * consistent they stay consistent, and the check stays cheap on 1-char feeds.
 */
/** Subtrees already verified deep-equal to their final value (see {@link inconsistency}). */
const finished = new WeakSet<object>();

function inconsistency(
  partial: unknown,
  final: unknown,
  checked: WeakMap<object, unknown>,
  path = "$",
): string | undefined {
  if (partial === undefined) return undefined;
  if (typeof final === "string") {
    if (typeof partial !== "string" || !final.startsWith(partial)) {
      return `${path}: ${JSON.stringify(partial)} is not a prefix of ${JSON.stringify(final)}`;
    }
    // Never half a character: a shown high surrogate must not be the first half of a pair.
    const last = partial.charCodeAt(partial.length - 1);
    const next = final.charCodeAt(partial.length);
    if (last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      return `${path}: ${JSON.stringify(partial)} ends with half a surrogate pair`;
    }
    return undefined;
  }
  if (final === null || typeof final !== "object") {
    return Object.is(partial, final)
      ? undefined
      : `${path}: ${String(partial)} !== ${String(final)}`;
  }
  if (typeof partial !== "object" || partial === null) return `${path}: expected a container`;
  if (checked.get(partial) === final) return undefined;
  if (!Object.isFrozen(partial)) return `${path}: not frozen`;
  if (Array.isArray(final)) {
    if (!Array.isArray(partial)) return `${path}: expected an array`;
    if (partial.length > final.length) return `${path}: array longer than final`;
    for (let i = 0; i < partial.length; i++) {
      const p = `${path}[${i}]`;
      if (i < partial.length - 1) {
        // Only the last element can still be in progress.
        const element: unknown = partial[i];
        if (typeof element === "object" && element !== null && finished.has(element)) continue;
        const why = inconsistency(element, final[i], checked, p);
        if (why) return why;
        if (!isDeepEqual(element, final[i])) return `${p}: finished element differs`;
        if (typeof element === "object" && element !== null) finished.add(element);
      } else {
        const why = inconsistency(partial[i], final[i], checked, p);
        if (why) return why;
      }
    }
  } else {
    if (!isObject(partial) || !isObject(final)) return `${path}: expected an object`;
    if (Object.getPrototypeOf(partial) !== Object.prototype) return `${path}: prototype changed`;
    for (const key of Object.keys(partial)) {
      if (!Object.hasOwn(final, key)) return `${path}: unexpected key ${JSON.stringify(key)}`;
      const why = inconsistency(partial[key], final[key], checked, `${path}.${key}`);
      if (why) return why;
    }
  }
  checked.set(partial, final);
  return undefined;
}

/**
 * Structural equality of JSON values with own-property semantics: an own `__proto__` member
 * counts, prototypes must match, key order must match, and `-0` differs from `0`. Used instead of
 * `toStrictEqual`, which compares `a.constructor === b.constructor` and so fails on any object with
 * an own `constructor` member holding an object.
 */
function isDeepEqual(a: unknown, b: unknown): boolean {
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") {
    return Object.is(a, b);
  }
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.every((k, i) => k === kb[i] && isDeepEqual(ra[k], rb[k]));
}

/** Asserts JSON equality as {@link isDeepEqual} defines it, with a readable diff on failure. */
function expectJson(actual: unknown, expected: unknown): void {
  if (!isDeepEqual(actual, expected)) expect(actual).toStrictEqual(expected);
  expect(isDeepEqual(actual, expected)).toBe(true);
}

function isDeepFrozen(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return true;
  return Object.isFrozen(v) && Object.values(v).every(isDeepFrozen);
}

/**
 * Feeds `doc` in the given chunks and checks every rule that holds for any valid document: never
 * throws, every snapshot is a consistent preview of the final value and is deeply frozen, `done`
 * only at the end, earlier snapshots unchanged, and the final snapshot deep-equals JSON.parse.
 * A bare top-level number needs one more character (whitespace) to be known complete.
 */
function checkValidDocument(doc: string, chunks: readonly string[], cloneSnapshots: boolean): void {
  const expected = JSON.parse(doc) as unknown;
  const parser = new PartialJsonParser();
  const checked = new WeakMap<object, unknown>();
  const taken: { snap: JsonPreview | undefined; clone: unknown }[] = [];
  let pushed = "";
  for (const chunk of chunks) {
    parser.push(chunk);
    pushed += chunk;
    const snap = parser.snapshot();
    const why = inconsistency(snap, expected, checked);
    if (why) throw new Error(`after ${JSON.stringify(pushed)}: ${why}`);
    // Plain checks in this loop: `expect` per character would dominate the run time.
    if (parser.done && pushed.length < doc.length) throw new Error(`done early: ${pushed}`);
    if (cloneSnapshots) {
      taken.push({ snap, clone: structuredClone(snap) });
      // Snapshots depend on the text only, not on how it was split.
      if (!isDeepEqual(parsePartialJson(pushed), snap))
        throw new Error(`split-dependent: ${pushed}`);
    }
  }
  if (typeof expected === "number") {
    expect(parser.snapshot()).toBeUndefined();
    parser.push(" ");
  }
  expect(parser.invalid).toBe(false);
  expect(parser.done).toBe(true);
  expect(parser.length).toBe(pushed.length + (typeof expected === "number" ? 1 : 0));
  const final = parser.snapshot();
  expectJson(final, expected);
  expect(isDeepFrozen(final)).toBe(true);
  for (const { snap, clone } of taken) expect(isDeepEqual(snap, clone)).toBe(true);
}

// ---------------------------------------------------------------------------------------------
// Unit tests
// ---------------------------------------------------------------------------------------------

describe("PartialJsonParser: what a snapshot shows", () => {
  it("knows nothing from empty or whitespace-only input", () => {
    expect(parsePartialJson("")).toBeUndefined();
    expect(parsePartialJson(" \n\t\r ")).toBeUndefined();
    const p = new PartialJsonParser();
    expect(p.snapshot()).toBeUndefined();
    p.push("  ");
    expect(p.snapshot()).toBeUndefined();
  });

  it("closes open containers", () => {
    expect(parsePartialJson("{")).toEqual({});
    expect(parsePartialJson("[")).toEqual([]);
    expect(parsePartialJson('{"a":[1,{"b":[[')).toEqual({ a: [1, { b: [[]] }] });
    expect(parsePartialJson('[{"a":1},')).toEqual([{ a: 1 }]);
  });

  it("shows an unfinished string up to its last complete character", () => {
    expect(parsePartialJson('"')).toBe("");
    expect(parsePartialJson('"hel')).toBe("hel");
    expect(parsePartialJson('{"q":"hel')).toEqual({ q: "hel" });
    expect(parsePartialJson('["a","b')).toEqual(["a", "b"]);
  });

  it("decodes every JSON escape", () => {
    expect(parsePartialJson(String.raw`"\"\\\/\b\f\n\r\t\u00e9\u00E9"`)).toBe(
      '"\\/\b\f\n\r\t\u00e9\u00e9',
    );
  });

  it.each([
    ['"ab\\', "ab"],
    ['"ab\\u', "ab"],
    ['"ab\\u0', "ab"],
    ['"ab\\u00', "ab"],
    ['"ab\\u00e', "ab"],
    ['"ab\\u00e9', "ab\u00e9"],
    ['"ab\\n', "ab\n"],
  ])("leaves out an unfinished escape: %s", (text, shown) => {
    expect(parsePartialJson(text)).toBe(shown);
  });

  it("leaves out a high surrogate until its low half arrives (escaped)", () => {
    const text = '"x\\ud83d\\ude00y"';
    for (let i = 0; i <= text.length; i++) {
      const p = new PartialJsonParser();
      p.push(text.slice(0, i));
      p.push(text.slice(i));
      expect(p.snapshot()).toBe("x\u{1F600}y");
    }
    expect(parsePartialJson('"x\\ud83d')).toBe("x");
    expect(parsePartialJson('"x\\ud83d\\')).toBe("x");
    expect(parsePartialJson('"x\\ud83d\\ude0')).toBe("x");
    expect(parsePartialJson('"x\\ud83d\\ude00')).toBe("x\u{1F600}");
  });

  it("leaves out a raw high surrogate split from its low half between chunks", () => {
    const p = new PartialJsonParser();
    p.push('{"e":"a\ud83d');
    expect(p.snapshot()).toEqual({ e: "a" });
    p.push("\ude00");
    expect(p.snapshot()).toEqual({ e: "a\u{1F600}" });
    p.push('"}');
    expect(p.snapshot()).toEqual({ e: "a\u{1F600}" });
  });

  it("keeps lone surrogates exactly as JSON.parse does once something follows", () => {
    for (const text of ['"\\ud83d"', '"\\ud83dx"', '"\\ude00"', '"a\\ud83d\\ud83d\\ude00"']) {
      expect(parsePartialJson(text)).toBe(JSON.parse(text));
    }
    // A lone high surrogate followed by more text is shown (it cannot be completed any more).
    expect(parsePartialJson('"\\ud83dx')).toBe("\ud83dx");
  });

  it("tolerates invalid escapes: the escaped character is kept literally", () => {
    expect(parsePartialJson('"a\\xb"')).toBe("axb");
    expect(parsePartialJson('{"p":"C:\\temp\\q"}')).toEqual({ p: "C:\tempq" });
    // A malformed \u escape keeps its text without the backslash; the next character still counts.
    expect(parsePartialJson('"\\u12G"')).toBe("u12G");
    expect(parsePartialJson('"\\u12"')).toBe("u12");
    const p = new PartialJsonParser();
    p.push('["\\x');
    p.push('", 1]');
    expect(p.snapshot()).toEqual(["x", 1]);
    expect(p.invalid).toBe(false);
    expect(p.done).toBe(true);
  });

  it("keeps raw control characters inside strings (lenient on purpose)", () => {
    expect(parsePartialJson('"a\nb"')).toBe("a\nb");
  });

  it("leaves out an unfinished number", () => {
    expect(parsePartialJson("12")).toBeUndefined();
    expect(parsePartialJson("-")).toBeUndefined();
    expect(parsePartialJson("12 ")).toBe(12);
    expect(parsePartialJson("[1, 2")).toEqual([1]);
    expect(parsePartialJson("[1, 2.5e")).toEqual([1]);
    expect(parsePartialJson("[1, 2]")).toEqual([1, 2]);
  });

  it("leaves out an object member whose value is an unfinished number entirely", () => {
    const snap = parsePartialJson('{"a":"x","n":12');
    expect(snap).toEqual({ a: "x" });
    expect(Object.hasOwn(snap as object, "n")).toBe(false);
    expect(parsePartialJson('{"a":"x","n":12,')).toEqual({ a: "x", n: 12 });
    expect(parsePartialJson('{"n":12}')).toEqual({ n: 12 });
  });

  it("leaves out an unfinished literal, and a member whose value is one", () => {
    expect(parsePartialJson("tru")).toBeUndefined();
    expect(parsePartialJson("true")).toBe(true);
    expect(parsePartialJson("fals")).toBeUndefined();
    expect(parsePartialJson("false")).toBe(false);
    expect(parsePartialJson("nul")).toBeUndefined();
    expect(parsePartialJson("null")).toBe(null);
    expect(parsePartialJson("[true, fa")).toEqual([true]);
    const snap = parsePartialJson('{"a":1,"b":nu');
    expect(snap).toEqual({ a: 1 });
    expect(Object.hasOwn(snap as object, "b")).toBe(false);
    expect(parsePartialJson('{"a":1,"b":null')).toEqual({ a: 1, b: null });
  });

  it("leaves out a key until its value has started", () => {
    expect(parsePartialJson('{"a":1,"')).toEqual({ a: 1 });
    expect(parsePartialJson('{"a":1,"ke')).toEqual({ a: 1 });
    expect(parsePartialJson('{"a":1,"key"')).toEqual({ a: 1 });
    expect(parsePartialJson('{"a":1,"key" ')).toEqual({ a: 1 });
    expect(parsePartialJson('{"a":1,"key":')).toEqual({ a: 1 });
    expect(parsePartialJson('{"a":1,"key": ')).toEqual({ a: 1 });
    expect(parsePartialJson('{"a":1,"key":"')).toEqual({ a: 1, key: "" });
    expect(parsePartialJson('{"a":1,"key":[')).toEqual({ a: 1, key: [] });
    expect(parsePartialJson('{"a":1,"key":{')).toEqual({ a: 1, key: {} });
  });

  it("parses numbers exactly as JSON.parse does", () => {
    const numbers = [
      "0",
      "-0",
      "1",
      "-1",
      "0.1",
      "1.5e3",
      "1E+2",
      "1e-2",
      "2.5E-3",
      "1e400",
      "-1e400",
      "1e-400",
      "-1.5e-400",
      "5e-324",
      "1.7976931348623157e308",
      "123456789012345678901234567890",
      "9007199254740993",
      "0.30000000000000004",
      "3.141592653589793238462643383279",
    ];
    for (const text of numbers) {
      expect(Object.is(parsePartialJson(`${text} `), JSON.parse(text)), text).toBe(true);
      expectJson(parsePartialJson(`[${text}]`), JSON.parse(`[${text}]`));
      expectJson(parsePartialJson(`{"n":${text}}`), JSON.parse(`{"n":${text}}`));
    }
  });

  it("creates __proto__ members as own properties, like JSON.parse", () => {
    const text = '{"__proto__":{"polluted":true},"a":[{"__proto__":1}]}';
    const snap = parsePartialJson(text) as Record<string, unknown>;
    expectJson(snap, JSON.parse(text));
    expect(Object.getPrototypeOf(snap)).toBe(Object.prototype);
    expect(Object.hasOwn(snap, "__proto__")).toBe(true);
    expect((snap as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    // Also while the member is still open (the copy on the open path).
    const open = parsePartialJson('{"__proto__":{"polluted":"ye') as Record<string, unknown>;
    expect(Object.getPrototypeOf(open)).toBe(Object.prototype);
    expect(Object.hasOwn(open, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(open, "__proto__")?.value).toEqual({ polluted: "ye" });
  });

  it("lets the last duplicate key win, in JSON.parse's key order", () => {
    const text = '{"a":1,"b":2,"a":{"c":3}}';
    const snap = parsePartialJson(text);
    expectJson(snap, JSON.parse(text));
    expect(Object.keys(snap as object)).toEqual(["a", "b"]);
    // While the duplicate's value is open, it already replaces the earlier one.
    expect(parsePartialJson('{"a":"old","b":2,"a":"ne')).toEqual({ a: "ne", b: 2 });
  });

  it("reports length and done", () => {
    const p = new PartialJsonParser();
    expect(p.length).toBe(0);
    expect(p.done).toBe(false);
    p.push('{"a":');
    p.push("[1]");
    expect(p.length).toBe(8);
    expect(p.done).toBe(false);
    p.push("}");
    expect(p.done).toBe(true);
    p.push(" \n");
    expect(p.done).toBe(true);
    expect(p.invalid).toBe(false);
    expect(p.length).toBe(11);
  });

  it("handles very deep nesting without recursion", () => {
    const depth = 100_000;
    const p = new PartialJsonParser();
    p.push("[".repeat(depth));
    expect(Array.isArray(p.snapshot())).toBe(true);
    p.push("]".repeat(depth));
    expect(p.done).toBe(true);
    let v = p.snapshot();
    let d = 0;
    while (Array.isArray(v) && v.length > 0) {
      v = v[0];
      d++;
    }
    expect(d).toBe(depth - 1);
  });
});

describe("PartialJsonParser: a document pushed whole (the native path)", () => {
  const doc = '{"items":[{"sku":"A-1","tags":["x","y"],"n":-0.5e3},null,true],"__proto__":{"p":1}}';

  it("gives the JSON.parse value, deeply frozen, done", () => {
    const p = new PartialJsonParser();
    p.push(`  ${doc}\n`);
    const snap = p.snapshot();
    expectJson(snap, JSON.parse(doc));
    expect(isDeepFrozen(snap)).toBe(true);
    expect(Object.hasOwn(snap as object, "__proto__")).toBe(true);
    expect(p.done).toBe(true);
    expect(p.invalid).toBe(false);
  });

  it("stays done on trailing whitespace and turns invalid on anything else, keeping the value", () => {
    const p = new PartialJsonParser();
    p.push(doc);
    const snap = p.snapshot();
    p.push(" \n");
    expect(p.invalid).toBe(false);
    p.push("x");
    expect(p.invalid).toBe(true);
    expect(p.snapshot()).toBe(snap);
  });

  it("leaves what JSON.parse refuses to the tolerant scanner (raw control characters, junk after)", () => {
    // A raw line feed and tab inside strings: not JSON, kept by the lenient scanner.
    expectJson(parsePartialJson('{"a":"line\nbreak","b":"x\ty"}'), { a: "line\nbreak", b: "x\ty" });
    const p = new PartialJsonParser();
    p.push('{"a":1} {"b":2}');
    expect(p.invalid).toBe(true);
    expectJson(p.snapshot(), { a: 1 });
  });

  it("freezes a deeply nested whole document without recursion", () => {
    const depth = 100_000;
    const snap = parsePartialJson(`${"[".repeat(depth)}${"]".repeat(depth)}`);
    let v = snap;
    let d = 0;
    while (Array.isArray(v) && v.length > 0) {
      expect(Object.isFrozen(v)).toBe(true);
      v = v[0];
      d++;
    }
    expect(d).toBe(depth - 1);
  });
});

describe("PartialJsonParser: invalid input", () => {
  it.each([
    "}",
    "]",
    ",",
    ":",
    "x",
    "[1,]",
    '{"a" 1}',
    '{"a":1,}',
    '{"a":1 "b":2}',
    "{1:2}",
    "[1 2]",
    "[01]",
    "[1.]",
    "[1.e3]",
    "[-]",
    "[--1]",
    "[1e]",
    "[1e+]",
    "[+1]",
    "[.5]",
    "[1x]",
    "[truex]",
    "[trux]",
    "{}}",
    '{"a":1}x',
    "12x",
    "[}",
    "{]",
    '{"a":1]',
    "[1}",
    "\u0000",
    "\ud83d",
    "NaN",
    "Infinity",
    "'single'",
  ])("never throws and stops advancing on %j", (text) => {
    for (const chunks of [[text], units(text)]) {
      const { parser } = feed(chunks);
      expect(parser.invalid).toBe(true);
      const before = parser.snapshot();
      parser.push('"more", 1, {"x": [2]}]}');
      expect(parser.snapshot()).toBe(before);
      expect(parser.invalid).toBe(true);
    }
  });

  it("keeps the last good snapshot", () => {
    const p = new PartialJsonParser();
    p.push('{"items":[{"sku":"A"},{"sku":"B","qty":2');
    const good = p.snapshot();
    expect(good).toEqual({ items: [{ sku: "A" }, { sku: "B" }] });
    p.push("x, 3]}");
    expect(p.invalid).toBe(true);
    expect(p.snapshot()).toEqual(good);
    p.push('}], "more": "ignored"}');
    expect(p.snapshot()).toEqual(good);
    // A number is not completed by an invalid delimiter.
    expect(parsePartialJson("[1x")).toEqual([]);
    expect(parsePartialJson('{"a":"x"} trailing')).toEqual({ a: "x" });
  });

  it("ignores non-string chunks from untyped callers", () => {
    const p = new PartialJsonParser();
    p.push('{"a":');
    for (const bad of [undefined, null, 42, {}, []]) p.push(bad as unknown as string);
    p.push('"b"}');
    expect(p.snapshot()).toEqual({ a: "b" });
    expect(p.length).toBe(9);
  });
});

describe("PartialJsonParser: immutability and structural sharing", () => {
  it("returns the very same object when nothing was pushed", () => {
    const p = new PartialJsonParser();
    p.push('{"a":[1,{"b":"x');
    const s1 = p.snapshot();
    expect(p.snapshot()).toBe(s1);
    p.push("");
    expect(p.snapshot()).toBe(s1);
  });

  it("also returns the same object when the pushed text changed nothing visible", () => {
    const p = new PartialJsonParser();
    p.push('{"a":[1, ');
    const s1 = p.snapshot();
    p.push("  \n 12"); // whitespace and an unfinished number
    expect(p.snapshot()).toBe(s1);
    p.push(",");
    expect(p.snapshot()).not.toBe(s1);
    expect(p.snapshot()).toEqual({ a: [1, 12] });
  });

  it("never changes a snapshot already returned", () => {
    const doc =
      '{"q":"shoes","items":[{"sku":"A","tags":["x","y"]},{"sku":"B","name":"Grü\\u00dfe"}],"n":3}';
    const p = new PartialJsonParser();
    const taken: { snap: unknown; clone: unknown }[] = [];
    for (const chunk of split(doc, [3, 9, 17, 25, 30, 41, 47, 52, 60, 66, 71, 80, 88])) {
      p.push(chunk);
      const snap = p.snapshot();
      taken.push({ snap, clone: structuredClone(snap) });
    }
    for (const { snap, clone } of taken) expectJson(snap, clone);
    expectJson(p.snapshot(), JSON.parse(doc));
  });

  it("deep-freezes every snapshot", () => {
    const p = new PartialJsonParser();
    p.push('{"a":[{"b":[1,2]},{"c":"d"},[3,[4');
    const snap = p.snapshot();
    expect(isDeepFrozen(snap)).toBe(true);
    expect(() => {
      (snap as { a: unknown[] }).a.push(1);
    }).toThrow(TypeError);
    p.push("]]]}");
    expect(isDeepFrozen(p.snapshot())).toBe(true);
  });

  it("shares a finished element of an open array by identity", () => {
    const p = new PartialJsonParser();
    p.push('{"items":[{"sku":"A","tags":["x"]},{"sku":"B');
    const s1 = p.snapshot() as { items: readonly Record<string, unknown>[] };
    p.push('","tags":["y"]}, {"sku":"C"');
    const s2 = p.snapshot() as { items: readonly Record<string, unknown>[] };
    expect(s2).not.toBe(s1);
    expect(s2.items).not.toBe(s1.items); // on the open path: copied
    expect(s2.items[0]).toBe(s1.items[0]); // finished: shared
    expect(s2.items[0]?.tags).toBe(s1.items[0]?.tags);
    expect(s1.items[1]).toEqual({ sku: "B" }); // the earlier view is untouched
    expect(s2.items[1]).toEqual({ sku: "B", tags: ["y"] });
    p.push("]");
    const s3 = p.snapshot() as { items: readonly Record<string, unknown>[] };
    expect(s3.items[0]).toBe(s1.items[0]);
    expect(s3.items[1]).toBe(s2.items[1]);
  });

  it("shares finished members of an open object and the completed root", () => {
    const p = new PartialJsonParser();
    p.push('{"done":{"k":[1,2]},"open":"ab');
    const s1 = p.snapshot() as Record<string, unknown>;
    p.push("cd");
    const s2 = p.snapshot() as Record<string, unknown>;
    expect(s2.done).toBe(s1.done);
    expect(s2.open).toBe("abcd");
    expect(s1.open).toBe("ab");
    p.push('"}');
    const s3 = p.snapshot();
    expect((s3 as Record<string, unknown>).done).toBe(s1.done);
    p.push("  ");
    expect(p.snapshot()).toBe(s3);
  });
});

// ---------------------------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------------------------

/** Strings rich in what is hard to stream: escapes, astral characters, CJK, lone surrogates. */
const trickyString = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '"',
        "\\",
        "\n",
        "\t",
        "/",
        "\u00e9",
        "\u0000",
        "\u001f",
        "\u2028",
        "\u{1F600}",
        "\u{1F469}\u200D\u{1F4BB}",
        "\u{20BB7}",
        "\ud83d",
        "\ude00",
        "中文",
        "日本語のテキスト",
        "한국어",
        " ",
        "a",
        "Size 42",
        "__proto__",
      ),
      fc.string({ maxLength: 6 }),
      fc.string({ unit: "grapheme", maxLength: 3 }),
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(""));

const trickyKey = fc.oneof(
  fc.constantFrom("__proto__", "constructor", "toString", "", "0", "10", "sku", "名前", 'q"uote'),
  trickyString,
);

const scalar = fc.oneof(
  trickyString,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);

/** Tool-argument-like values: objects holding arrays of objects, nested a few levels. */
const { toolValue } = fc.letrec<{ toolValue: unknown; product: unknown; list: unknown }>((tie) => ({
  toolValue: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    tie("product"),
    tie("list"),
    fc.dictionary(trickyKey, tie("toolValue"), { maxKeys: 4 }),
  ),
  product: fc.record({
    sku: fc.string({ minLength: 1, maxLength: 8 }),
    name: trickyString,
    price: fc.double({ min: 0, max: 1e6, noNaN: true }),
    tags: fc.array(trickyString, { maxLength: 4 }),
    extra: fc.dictionary(trickyKey, tie("toolValue"), { maxKeys: 3 }),
  }),
  list: fc.array(tie("product"), { maxLength: 4 }),
}));

const toolArgs = fc.record({
  query: trickyString,
  items: fc.array(toolValue, { maxLength: 5 }),
  nested: toolValue,
});

/** A JSON text of `value`, compact or indented. */
const serialized = (value: fc.Arbitrary<unknown>) =>
  fc
    .tuple(value, fc.constantFrom(undefined, 0, 1, 2, "\t", " \r\n"))
    .map(([v, indent]) => JSON.stringify(v, null, indent))
    .filter((text): text is string => typeof text === "string");

const cuts = fc.array(fc.nat(), { maxLength: 16 });

describe("PartialJsonParser: properties", () => {
  it("streams any JSON value consistently and ends equal to JSON.parse (fc.jsonValue)", () => {
    fc.assert(
      fc.property(serialized(fc.jsonValue()), cuts, (doc, at) => {
        checkValidDocument(doc, split(doc, at), true);
        checkValidDocument(doc, units(doc), false);
      }),
      { numRuns: 300 },
    );
  });

  it("streams tool-argument-like documents with escapes, emoji and CJK text", () => {
    fc.assert(
      fc.property(serialized(toolArgs), cuts, (doc, at) => {
        checkValidDocument(doc, split(doc, at), true);
        checkValidDocument(doc, units(doc), false);
      }),
      { numRuns: 200 },
    );
  });

  it("parses any JSON number text exactly as JSON.parse", () => {
    const digits = fc.string({
      unit: fc.constantFrom(..."0123456789"),
      minLength: 1,
      maxLength: 25,
    });
    const numberText = fc
      .tuple(
        fc.constantFrom("", "-"),
        fc.oneof(fc.constant("0"), fc.tuple(fc.constantFrom(..."123456789"), digits)),
        fc.option(digits),
        fc.option(fc.tuple(fc.constantFrom("e", "E"), fc.constantFrom("", "+", "-"), digits)),
      )
      .map(([sign, int, frac, exp]) => {
        const i = typeof int === "string" ? int : int[0] + int[1];
        const f = frac === null ? "" : `.${frac}`;
        const e = exp === null ? "" : exp.join("");
        return `${sign}${i}${f}${e}`;
      });
    fc.assert(
      fc.property(numberText, cuts, (text, at) => {
        const doc = `[${text},{"n":${text}}]`;
        const { snaps } = feed(split(doc, at));
        expectJson(snaps.at(-1), JSON.parse(doc));
        expect(Object.is(parsePartialJson(`${text}\n`), JSON.parse(text))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("never throws on garbage, and agrees with JSON.parse whenever JSON.parse accepts", () => {
    const jsonish = fc.string({
      unit: fc.constantFrom(
        ...'{}[]:,"\\/ubnrtfe0123456789.-+ \n\tlsaE',
        "\ud83d",
        "\ude00",
        "\u0000",
        "中",
      ),
      maxLength: 60,
    });
    const garbage = fc.oneof(jsonish, fc.string({ unit: "binary", maxLength: 40 }));
    fc.assert(
      fc.property(garbage, cuts, (text, at) => {
        const { parser } = feed(split(text, at));
        parser.snapshot();
        let expected: unknown;
        try {
          expected = JSON.parse(text);
        } catch {
          return;
        }
        if (typeof expected === "number") parser.push(" ");
        expectJson(parser.snapshot(), expected);
      }),
      { numRuns: 400 },
    );
  });

  it("never throws on corrupted JSON and freezes once invalid", () => {
    const corrupted = fc
      .tuple(
        serialized(toolArgs),
        fc.nat(),
        fc.constantFrom("insert", "delete", "replace"),
        fc.string({ minLength: 1, maxLength: 2 }),
      )
      .map(([doc, pos, op, s]) => {
        const at = pos % (doc.length + 1);
        if (op === "insert") return doc.slice(0, at) + s + doc.slice(at);
        if (op === "delete") return doc.slice(0, at) + doc.slice(at + 1);
        return doc.slice(0, at) + s + doc.slice(at + s.length);
      });
    fc.assert(
      fc.property(corrupted, cuts, (text, at) => {
        const parser = new PartialJsonParser();
        let frozenAt: JsonPreview | undefined;
        let wasInvalid = false;
        for (const chunk of split(text, at)) {
          parser.push(chunk);
          const snap = parser.snapshot();
          if (wasInvalid) expect(snap).toBe(frozenAt);
          if (parser.invalid && !wasInvalid) {
            wasInvalid = true;
            frozenAt = snap;
          }
        }
        let expected: unknown;
        try {
          expected = JSON.parse(text);
        } catch {
          return;
        }
        if (typeof expected === "number") parser.push(" ");
        expectJson(parser.snapshot(), expected);
      }),
      { numRuns: 200 },
    );
  });
});
