/**
 * The figures of the HTTP-edge attack benchmark (`run-edge.ts`): what each attack received, the
 * shop's resident memory and `/healthz` latency during the attack, for two runs side by side
 * ("before": the bounds set out of reach through the settings; "after": the defaults).
 */

import { percentile } from "../load/load-figures.js";

/** How many answers of each kind one attack received, e.g. `{ "200": 8, "429": 992 }`. */
export type Tally = Record<string, number>;

/** What one run measured. */
export interface EdgeRun {
  /** "before" or "after". */
  label: string;
  /** The settings the shop ran with (empty: the defaults). */
  env: Record<string, string>;
  /** Per attack, the answers its connections received. */
  attacks: Record<string, Tally>;
  rssBeforeBytes: number;
  rssPeakBytes: number;
  rssEndBytes: number;
  /** `/healthz` latencies during the attack, ms, and its statuses. */
  healthMs: number[];
  health: Tally;
  /** `shop_errors_total` from `/metrics` after the attack, by code (source http). */
  errors: Record<string, number>;
}

/** Counts one answer. */
export function count(tally: Tally, key: string): void {
  tally[key] = (tally[key] ?? 0) + 1;
}

/** `{ "429": 992, "200": 8 }` as `200 ×8, 429 ×992` (keys in order). */
export function describeTally(tally: Tally): string {
  const keys = Object.keys(tally).sort();
  return keys.length === 0 ? "-" : keys.map((k) => `${k} ×${tally[k]}`).join(", ");
}

const MIB = 1024 * 1024;

/** The runs as one Markdown table, a column per run. */
export function edgeTable(runs: readonly EdgeRun[], attackNames: readonly string[]): string {
  const rows: Array<[string, (run: EdgeRun) => string]> = [
    ["shop RSS before the attack", (r) => `${(r.rssBeforeBytes / MIB).toFixed(0)} MiB`],
    ["shop RSS peak during it", (r) => `${(r.rssPeakBytes / MIB).toFixed(0)} MiB`],
    ["shop RSS at its end", (r) => `${(r.rssEndBytes / MIB).toFixed(0)} MiB`],
    [
      "/healthz p50 / p99",
      (r) =>
        `${percentile(r.healthMs, 50).toFixed(1)} / ${percentile(r.healthMs, 99).toFixed(1)} ms`,
    ],
    ["/healthz answers", (r) => describeTally(r.health)],
    ...attackNames.map(
      (name) =>
        [name, (r: EdgeRun) => describeTally(r.attacks[name] ?? {})] as [
          string,
          (run: EdgeRun) => string,
        ],
    ),
    [
      "shop_errors_total (http) after",
      (r) =>
        Object.keys(r.errors).length === 0
          ? "-"
          : Object.entries(r.errors)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([code, n]) => `${code} ${n}`)
              .join(", "),
    ],
  ];
  const header = `| | ${runs.map((r) => r.label).join(" | ")} |`;
  const rule = `|---|${runs.map(() => "---").join("|")}|`;
  const body = rows.map(([name, cell]) => `| ${name} | ${runs.map(cell).join(" | ")} |`);
  return [header, rule, ...body].join("\n");
}

/** `shop_errors_total{source="http",code="..."} N` lines of a Prometheus text exposition. */
export function httpErrorsOf(exposition: string): Record<string, number> {
  const errors: Record<string, number> = {};
  for (const match of exposition.matchAll(
    /^shop_errors_total\{source="http",code="([^"]+)"\} (\d+(?:\.\d+)?)$/gm,
  )) {
    errors[match[1] as string] = Number(match[2]);
  }
  return errors;
}
