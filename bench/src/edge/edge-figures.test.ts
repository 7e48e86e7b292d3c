import { describe, expect, it } from "vitest";
import { count, describeTally, type EdgeRun, edgeTable, httpErrorsOf } from "./edge-figures.js";

describe("edge figures", () => {
  it("tallies answers and describes them in key order", () => {
    const tally = {};
    for (const status of ["429", "200", "429", "open"]) count(tally, status);
    expect(tally).toEqual({ "200": 1, "429": 2, open: 1 });
    expect(describeTally(tally)).toBe("200 ×1, 429 ×2, open ×1");
    expect(describeTally({})).toBe("-");
  });

  it("reads the http error counts of an exposition, not the turn ones", () => {
    const exposition = [
      "# TYPE shop_errors_total counter",
      'shop_errors_total{source="http",code="client_aborted"} 12',
      'shop_errors_total{source="turn",code="internal"} 3',
      'shop_errors_total{source="http",code="too_many_streams"} 992',
    ].join("\n");
    expect(httpErrorsOf(exposition)).toEqual({ client_aborted: 12, too_many_streams: 992 });
  });

  it("puts runs side by side, a row per figure and per attack", () => {
    const run = (label: string, streams: Record<string, number>): EdgeRun => ({
      label,
      env: {},
      attacks: { streams },
      rssBeforeBytes: 100 * 1024 * 1024,
      rssPeakBytes: 300 * 1024 * 1024,
      rssEndBytes: 200 * 1024 * 1024,
      healthMs: [1, 2, 3, 4, 100],
      health: { "200": 5 },
      errors: { client_aborted: 2 },
    });
    const table = edgeTable(
      [run("before", { "200": 10 }), run("after", { "200": 8, "429": 2 })],
      ["streams"],
    );
    expect(table.split("\n")).toEqual([
      "| | before | after |",
      "|---|---|---|",
      "| shop RSS before the attack | 100 MiB | 100 MiB |",
      "| shop RSS peak during it | 300 MiB | 300 MiB |",
      "| shop RSS at its end | 200 MiB | 200 MiB |",
      "| /healthz p50 / p99 | 3.0 / 100.0 ms | 3.0 / 100.0 ms |",
      "| /healthz answers | 200 ×5 | 200 ×5 |",
      "| streams | 200 ×10 | 200 ×8, 429 ×2 |",
      "| shop_errors_total (http) after | client_aborted 2 | client_aborted 2 |",
    ]);
  });
});
