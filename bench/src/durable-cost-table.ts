/**
 * The pure part of the `durable-cost` benchmark: medians of measured turns, the figures of one
 * cell (a store on a workload), their ratios to the in-memory cell, and the table that prints
 * them side by side.
 */

/** One measured turn: CPU and wall time in milliseconds. */
export interface TurnSample {
  cpuMs: number;
  wallMs: number;
}

/** The figures of one store on one workload (medians over the measured turns). */
export interface CellFigures {
  store: string;
  workload: string;
  /** Tool calls per turn of the workload. */
  calls: number;
  turns: number;
  cpuMsPerTurn: number;
  wallMsPerTurn: number;
  cpuMsPerCall: number;
  wallMsPerCall: number;
  /** Against the in-memory cell of the same workload (1 for itself; absent without one). */
  cpuRatio?: number;
  wallRatio?: number;
}

/** The median of the values (the mean of the middle two for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** One cell's figures from its samples: medians per turn, and per call as the turn over its calls. */
export function cellOf(
  store: string,
  workload: string,
  calls: number,
  samples: readonly TurnSample[],
): CellFigures {
  const cpu = median(samples.map((s) => s.cpuMs));
  const wall = median(samples.map((s) => s.wallMs));
  return {
    store,
    workload,
    calls,
    turns: samples.length,
    cpuMsPerTurn: cpu,
    wallMsPerTurn: wall,
    cpuMsPerCall: cpu / calls,
    wallMsPerCall: wall / calls,
  };
}

/** The cells with their ratios to the `baseline` store's cell of the same workload. */
export function withRatios(cells: readonly CellFigures[], baseline: string): CellFigures[] {
  return cells.map((cell) => {
    const base = cells.find((c) => c.store === baseline && c.workload === cell.workload);
    if (!base) return { ...cell };
    return {
      ...cell,
      cpuRatio: cell.cpuMsPerTurn / base.cpuMsPerTurn,
      wallRatio: cell.wallMsPerTurn / base.wallMsPerTurn,
    };
  });
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(3) : "-");
const ratio = (value: number | undefined) =>
  value !== undefined && Number.isFinite(value) ? `${value.toFixed(1)}x` : "-";

/** The cells as an aligned text table, one row per cell, in the order given. */
export function formatTable(cells: readonly CellFigures[]): string {
  const header = [
    "workload",
    "store",
    "turns",
    "CPU ms/turn",
    "wall ms/turn",
    "CPU ms/call",
    "wall ms/call",
    "CPU vs mem",
    "wall vs mem",
  ];
  const rows = cells.map((c) => [
    `${c.workload} (${c.calls} calls)`,
    c.store,
    String(c.turns),
    ms(c.cpuMsPerTurn),
    ms(c.wallMsPerTurn),
    ms(c.cpuMsPerCall),
    ms(c.wallMsPerCall),
    ratio(c.cpuRatio),
    ratio(c.wallRatio),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}
