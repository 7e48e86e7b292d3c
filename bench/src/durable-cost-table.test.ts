import { describe, expect, it } from "vitest";
import { cellOf, formatTable, median, withRatios } from "./durable-cost-table.js";

describe("durable-cost figures", () => {
  it("takes the median, middle pair averaged, whatever the order", () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it("gives per-call figures as the turn's median over its calls", () => {
    const cell = cellOf("sqlite", "demo", 4, [
      { cpuMs: 8, wallMs: 20 },
      { cpuMs: 100, wallMs: 12 },
      { cpuMs: 4, wallMs: 16 },
    ]);
    expect(cell).toMatchObject({ turns: 3, cpuMsPerTurn: 8, wallMsPerTurn: 16 });
    expect(cell.cpuMsPerCall).toBe(2);
    expect(cell.wallMsPerCall).toBe(4);
  });

  it("divides by the baseline of the same workload only", () => {
    const cells = withRatios(
      [
        cellOf("memory", "demo", 3, [{ cpuMs: 2, wallMs: 4 }]),
        cellOf("postgres", "demo", 3, [{ cpuMs: 10, wallMs: 40 }]),
        cellOf("memory", "8-call", 8, [{ cpuMs: 5, wallMs: 5 }]),
        cellOf("postgres", "8-call", 8, [{ cpuMs: 10, wallMs: 50 }]),
        cellOf("sqlite", "other", 1, [{ cpuMs: 1, wallMs: 1 }]),
      ],
      "memory",
    );
    expect(cells.map((c) => [c.cpuRatio, c.wallRatio])).toEqual([
      [1, 1],
      [5, 10],
      [1, 1],
      [2, 10],
      [undefined, undefined],
    ]);
  });

  it("prints one aligned row per cell, in the order given", () => {
    const table = formatTable(
      withRatios(
        [
          cellOf("memory", "demo", 3, [{ cpuMs: 1.5, wallMs: 3 }]),
          cellOf("sqlite-normal", "demo", 3, [{ cpuMs: 3, wallMs: 12 }]),
        ],
        "memory",
      ),
    );
    const lines = table.split("\n");
    expect(lines).toHaveLength(4);
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
    expect(lines[2]).toMatch(
      /^demo \(3 calls\)\s+memory\s+1\s+1\.500\s+3\.000\s+0\.500\s+1\.000\s+1\.0x\s+1\.0x$/,
    );
    expect(lines[3]).toMatch(/sqlite-normal .* 2\.0x\s+4\.0x$/);
  });
});
