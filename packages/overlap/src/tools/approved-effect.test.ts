import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, effectChanges, effectDigest, sameEffect } from "./approved-effect.js";

/** The same object with its keys in reverse order at every depth. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversed(v)]),
  );
}

const json = fc.jsonValue({ maxDepth: 4 });

describe("canonicalJson and sameEffect", () => {
  it("do not depend on key order, at any depth", () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(canonicalJson(reversed(value))).toBe(canonicalJson(value));
        expect(sameEffect(value, reversed(value))).toBe(true);
      }),
    );
  });

  it("tell apart what JSON tells apart", () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        const equal = JSON.stringify(JSON.parse(canonicalJson(a))) === canonicalJson(b);
        expect(sameEffect(a, b)).toBe(equal);
      }),
    );
    expect(sameEffect({ total: 4400 }, { total: 4401 })).toBe(false);
    expect(sameEffect([1, 2], [2, 1])).toBe(false);
  });

  it("refuse numbers JSON cannot say", () => {
    expect(() => canonicalJson({ total: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson([Number.POSITIVE_INFINITY])).toThrow(TypeError);
  });
});

describe("effectDigest", () => {
  it("is SHA-256 of the canonical JSON, the same for equal effects", async () => {
    const a = await effectDigest({ total: 4400, lines: [{ key: "p1", quantity: 1 }] });
    const b = await effectDigest({ lines: [{ quantity: 1, key: "p1" }], total: 4400 });
    expect(a).toBe(b);
    expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await effectDigest({ total: 4401 })).not.toBe(await effectDigest({ total: 4400 }));
    // The known digest of "{}" keeps the algorithm honest.
    expect(await effectDigest({})).toBe(
      "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
    );
  });
});

describe("effectChanges", () => {
  it("is empty exactly when the effects are the same", () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        expect(effectChanges(a, b).length === 0).toBe(sameEffect(a, b));
        expect(effectChanges(a, reversed(a))).toEqual([]);
      }),
    );
  });

  it("names each changed leaf by its path, matching keyed lines by key", () => {
    const before = {
      lines: [
        { key: "echo", quantity: 1, unitPriceCents: 4400 },
        { key: "rope", quantity: 2, unitPriceCents: 1200 },
      ],
      totalCents: 6800,
    };
    const after = {
      lines: [
        { key: "echo", quantity: 1, unitPriceCents: 9500 },
        { key: "socks", quantity: 5, unitPriceCents: 1450 },
      ],
      totalCents: 16750,
    };
    expect(effectChanges(before, after)).toEqual([
      { path: 'lines["echo"].unitPriceCents', before: 4400, after: 9500 },
      { path: 'lines["rope"]', before: { key: "rope", quantity: 2, unitPriceCents: 1200 } },
      { path: 'lines["socks"]', after: { key: "socks", quantity: 5, unitPriceCents: 1450 } },
      { path: "totalCents", before: 6800, after: 16750 },
    ]);
  });

  it("compares unkeyed arrays by position", () => {
    expect(effectChanges({ a: [1, 2] }, { a: [1, 3, 4] })).toEqual([
      { path: "a[1]", before: 2, after: 3 },
      { path: "a[2]", after: 4 },
    ]);
    expect(effectChanges(1, "1")).toEqual([{ path: "", before: 1, after: "1" }]);
  });
});
