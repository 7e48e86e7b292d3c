import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDeltaData } from "./parse-delta-data.js";

const KINDS = [
  ["input_json_delta", "partial_json"],
  ["text_delta", "text"],
  ["thinking_delta", "thinking"],
] as const;

/** A delta frame's data as the API writes it. */
function frameData(index: number, kind: number, text: string): string {
  const [type, field] = KINDS[kind]!;
  return JSON.stringify({ type: "content_block_delta", index, delta: { type, [field]: text } });
}

/** What the full parse makes of `data`, or undefined where it refuses it. */
function parsed(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

/** `parseDeltaData` either declines or agrees with `JSON.parse`, and never accepts what it refuses. */
function agrees(data: string): void {
  const fast = parseDeltaData(data);
  if (fast === undefined) return;
  expect(parsed(data)).toEqual(fast);
  // The same key order as the full parse (events are written out again, e.g. to a journal).
  expect(JSON.stringify(fast)).toBe(JSON.stringify(parsed(data)));
}

describe("parseDeltaData", () => {
  it("reads the three kinds of delta the API sends, escapes and all", () => {
    const text = 'size \\"10\\" — “quoted” \u2028 tab\t emoji 👟 {"sku":';
    for (const kind of [0, 1, 2]) {
      const data = frameData(3, kind, text);
      expect(parseDeltaData(data)).toEqual(JSON.parse(data));
    }
    expect(parseDeltaData(frameData(0, 0, ""))).toEqual(JSON.parse(frameData(0, 0, "")));
    expect(parseDeltaData(frameData(12345, 1, "plain"))).toEqual(
      JSON.parse(frameData(12345, 1, "plain")),
    );
  });

  it("declines every other shape, for the full parse to read", () => {
    const declined = [
      '{"type":"content_block_stop","index":0}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"x"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{}}}',
      // Another key order, spaces, extra fields, a string that ends early:
      '{"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"a"}}',
      '{"type": "content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","x":1}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"x":"b"}}',
      // Not JSON at all: a leading zero, a raw control character, a bad escape, a cut string.
      '{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"a"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\nb"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\\qb"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"}}',
      '{"type":"content_block_delta","index":-1,"delta":{"type":"text_delta","text":"a"}}',
      '{"type":"content_block_delta","index":1234567890,"delta":{"type":"text_delta","text":"a"}}',
    ];
    for (const data of declined) {
      expect(parseDeltaData(data), data).toBeUndefined();
      agrees(data);
    }
  });

  it("agrees with JSON.parse on any text, index and kind (property)", () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 100_000 }),
        fc.integer({ min: 0, max: 2 }),
        fc.string({ unit: "binary" }),
        (index, kind, text) => {
          const data = frameData(index, kind, text);
          expect(parseDeltaData(data)).toEqual(JSON.parse(data));
          agrees(data);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("never accepts what JSON.parse refuses, whatever is cut or changed (property)", () => {
    const piece = fc.constantFrom('"', "\\", "}", ",", "\n", "\\u12", "0", "x", '\\"', "");
    fc.assert(
      fc.property(
        fc.nat({ max: 30 }),
        fc.integer({ min: 0, max: 2 }),
        fc.string(),
        fc.nat(),
        fc.nat(),
        piece,
        (index, kind, text, cutAt, insertAt, inserted) => {
          const data = frameData(index, kind, text);
          const cut = cutAt % (data.length + 1);
          const at = insertAt % (data.length + 1);
          agrees(data.slice(0, cut) + data.slice(cut + 1));
          agrees(data.slice(0, at) + inserted + data.slice(at));
        },
      ),
      { numRuns: 3_000 },
    );
  });
});
