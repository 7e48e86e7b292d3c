import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SeenIds } from "./seen-ids.js";

describe("SeenIds", () => {
  it("behaves like a set, whatever the adds", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 3 }), { maxLength: 300 }),
        fc.array(fc.string({ maxLength: 3 })),
        (ids, probes) => {
          const model = new Set<string>();
          let seen = SeenIds.empty;
          for (const id of ids) {
            const before = seen;
            seen = seen.add(id);
            expect(seen === before).toBe(model.has(id));
            model.add(id);
          }
          expect(seen.size).toBe(model.size);
          for (const id of [...ids, ...probes]) expect(seen.has(id)).toBe(model.has(id));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("leaves older versions untouched (a pure reducer keeps every state valid)", () => {
    const versions: SeenIds[] = [SeenIds.empty];
    for (let i = 0; i < 1000; i++) versions.push(versions.at(-1)!.add(`t1:${i}`));
    versions.forEach((version, n) => {
      expect(version.size).toBe(n);
      expect(version.has(`t1:${n - 1}`)).toBe(n > 0);
      expect(version.has(`t1:${n}`)).toBe(false);
    });
  });

  it("keeps O(log n) runs", () => {
    let seen = SeenIds.empty;
    for (let i = 0; i < 20_000; i++) seen = seen.add(`t:${i}`);
    expect(seen.size).toBe(20_000);
    expect(seen.runs.length).toBeLessThanOrEqual(Math.ceil(Math.log2(20_000)));
  });
});
