/**
 * The pure parts of `bench/peers`: the lower bound, a turn's figures, fault counts, the summary
 * and the SVG writer. No timing assertions: the benchmark's own figures are never tested.
 */

import { describe, expect, it } from "vitest";
import { scenarioBlocks } from "./bench-policy.js";
import type { FaultRecord, ToolRun, TurnRecord, WireRequest } from "./child-kit.js";
import {
  faultCounts,
  invalidReason,
  lowerBound,
  median,
  sampleIndices,
  turnFigures,
} from "./figures.js";
import {
  cpuPerFrameUs,
  formatMarkdown,
  formatText,
  type SystemRun,
  summarize,
  tables,
} from "./report.js";
import { buildScenarios, faultScenario, type Scenario } from "./scenarios.js";
import { barChartSvg, escapeXml, niceStep, timelineSvg } from "./svg.js";

const call = (ms: number, locked = false, session = "s") => ({
  ms,
  locked,
  extra: locked ? { session } : {},
});

describe("lowerBound", () => {
  it("is max(stream end, block stop + duration) without locks", () => {
    expect(lowerBound(1000, [100, 300], [call(50), call(400)])).toBe(1000);
    expect(lowerBound(500, [100, 300], [call(50), call(400)])).toBe(700);
  });
  it("chains calls holding the same lock, in call order", () => {
    // 100+250 = 350; then max(150, 350)+250 = 600; then max(200, 600)+250 = 850.
    expect(
      lowerBound(300, [100, 150, 200], [call(250, true), call(250, true), call(250, true)]),
    ).toBe(850);
    // Different sessions do not wait for each other.
    expect(lowerBound(300, [100, 150], [call(250, true, "a"), call(250, true, "b")])).toBe(400);
  });
  it("needs every call's block stop", () => {
    expect(() => lowerBound(300, [100], [call(1), call(1)])).toThrow(/call 1/);
  });
});

describe("median and sampling", () => {
  it("takes the middle value, or the mean of the two middle ones", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
  it("samples at most cap indices, evenly, ends included", () => {
    expect(sampleIndices(5, 10)).toEqual([0, 1, 2, 3, 4]);
    const picked = sampleIndices(100, 10);
    expect(picked).toHaveLength(10);
    expect(picked[0]).toBe(0);
    expect(picked.at(-1)).toBe(99);
  });
});

/** A made-up turn of `scenario`: t0 = 0, its calls' block stops at 100, 200..., as a peer would. */
function turn(scenario: Scenario, options: { toolStart?: (k: number) => number } = {}) {
  const stops = scenario.calls.map((_, k) => 100 * (k + 1));
  const streamEnd = 100 * (scenario.calls.length + 2);
  const runs: ToolRun[] = scenario.calls.map((c, k) => {
    const start = options.toolStart?.(k) ?? stops[k]!;
    return {
      op: c.op,
      name: c.name,
      start,
      workStart: start,
      end: start + c.ms,
      completed: true,
      aborted: false,
    };
  });
  const lastEnd = Math.max(streamEnd, ...runs.map((r) => r.end!));
  const first: WireRequest = {
    sentAt: 5,
    path: "/v1/messages",
    markers: [],
    frames: 40,
    stops,
    streamEnd,
    errorEvent: false,
    status: 200,
  };
  const second: WireRequest = {
    sentAt: lastEnd + 2,
    path: "/v1/messages",
    markers: scenario.calls.map((c) => c.op),
    frames: 10,
    stops: [],
    streamEnd: lastEnd + 302,
    errorEvent: false,
    status: 200,
  };
  const record: TurnRecord = {
    scenario: scenario.id,
    t0: 0,
    tEnd: lastEnd + 305,
    cpuMs: 12,
    text: "All 2 results are in.",
    requests: [first, second],
    runs,
  };
  return record;
}

const typical = buildScenarios().find((s) => s.id === "typical")!;

describe("turnFigures", () => {
  it("gives ratios to the turn's own lower bound", () => {
    const record = turn(typical);
    expect(invalidReason(record, typical)).toBeUndefined();
    const f = turnFigures(record, typical);
    // Calls stop at 100/200/300 with 400/250/30 ms: bound max(500, 500, 450, 330) = 500.
    expect(f.lbRoundMs).toBe(500);
    expect(f.roundMs).toBe(502);
    expect(f.roundRatio).toBeCloseTo(502 / 500);
    expect(f.lbFirstToolMs).toBe(100);
    expect(f.firstToolRatio).toBe(1);
    expect(f.lbTurnMs).toBe(800);
    expect(f.turnRatio).toBeCloseTo(807 / 800);
    expect(f.toolCanFinishBeforeEnd).toBe(true);
    expect(f.frames).toBe(50);
  });
  it("rejects turns that did not do the scenario's work", () => {
    const twice = turn(typical);
    twice.runs.push({ ...twice.runs[0]! });
    expect(invalidReason(twice, typical)).toMatch(/ran 2 times/);
    const lost = turn(typical);
    lost.requests[1]!.markers = [];
    expect(invalidReason(lost, typical)).toMatch(/lacks/);
    const failed = turn(typical);
    failed.error = "boom";
    expect(invalidReason(failed, typical)).toBe("boom");
  });
});

describe("faultCounts", () => {
  const request = (status: number, markers: string[], sentAt: number): WireRequest => ({
    sentAt,
    path: "/v1/messages",
    markers,
    frames: 3,
    stops: [],
    errorEvent: false,
    status,
  });
  const run = (op: string, end: number): ToolRun => ({
    op,
    name: "add_to_cart",
    start: end - 20,
    end,
    completed: true,
    aborted: false,
  });
  it("counts rejections, double runs, lost results, hangs and failed continuations", () => {
    const records: FaultRecord[] = [
      {
        fault: "drop-after=9",
        first: { outcome: "error" },
        second: { outcome: "error", error: "400" },
        requests: [request(200, [], 0), request(400, [], 50)],
        runs: [run("f-1", 30)],
      },
      {
        fault: "error-after=9",
        first: { outcome: "error" },
        second: { outcome: "ok" },
        requests: [request(200, [], 0), request(200, ["f-1"], 60)],
        runs: [run("f-1", 30), run("f-1", 40)],
      },
      {
        fault: "drop-after=1",
        first: { outcome: "ok" },
        second: { outcome: "ok" },
        // The agent SDK CLI's first attempt (a system-role message, 400) is not a rejection.
        requests: [{ ...request(400, [], 0), lastRole: "system" }, request(200, [], 1)],
        runs: [],
      },
      {
        fault: "drop-after=3",
        first: { outcome: "hang" },
        requests: [request(200, [], 0)],
        runs: [],
      },
    ];
    const counts = faultCounts(records);
    expect(counts).toMatchObject({
      cells: 4,
      rejected: 1,
      doubleRuns: 1,
      effectsWithoutResult: 1,
      hangs: 1,
      stuck: 1,
    });
    expect(counts.examples.length).toBeGreaterThan(0);
  });
});

describe("summary and tables", () => {
  const system = (name: string, late: boolean): SystemRun => ({
    name,
    label: name,
    node: "20",
    nodeVersion: "v20",
    turns: [1, 2, 3].map(() =>
      turn(typical, late ? { toolStart: () => 100 * (typical.calls.length + 2) + 3 } : {}),
    ),
    faults: [],
  });
  it("takes medians per scenario and system, classifies after-the-response peers, checks goals", () => {
    const summary = summarize({
      systems: [
        system("overlap", false),
        system("after", true),
        {
          name: "absent",
          label: "absent",
          node: "22",
          notRun: "needs Node 22",
          turns: [],
          faults: [],
        },
      ],
      scenarios: [typical],
      reps: 3,
      meta: {},
    });
    const cells = summary.scenarios[0]!.cells;
    expect(cells.overlap!.valid).toBe(3);
    expect(cells.overlap!.afterResponse).toBe(false);
    expect(cells.after!.afterResponse).toBe(true);
    expect(cells.absent).toBeUndefined();
    expect(summary.commonScenarios).toEqual(["typical"]);
    expect(summary.goals.aheadOfAfterResponsePeers).toMatchObject({ met: true, checked: 1 });
    expect(summary.systems.find((s) => s.name === "absent")).toMatchObject({
      ran: false,
      notRun: "needs Node 22",
    });
    const all = tables(summary);
    const text = all.map(formatText).join("\n");
    expect(text).toContain("round latency / lower bound");
    expect(text).toContain("absent");
    expect(all.map(formatMarkdown).join("\n")).toMatch(/^\| scenario \| overlap \| after \|$/m);
    // CPU per frame beside CPU per turn: the median turn's CPU over its frames, and the frames.
    const median = cells.overlap!.median!;
    expect(median.frames).toBeGreaterThan(0);
    const perFrame = all.find((t) => t.title.startsWith("CPU µs per wire frame"))!;
    expect(perFrame.rows[0]![1]).toBe(
      `${((median.cpuMs * 1000) / median.frames).toFixed(1)} (${median.frames})`,
    );
  });
});

describe("cpuPerFrameUs", () => {
  it("divides a turn's CPU by its frames, in µs", () => {
    expect(cpuPerFrameUs({ cpuMs: 12, frames: 4000 })).toBe("3.0");
    expect(cpuPerFrameUs({ cpuMs: 31, frames: 34 })).toBe("911.8");
  });
});

describe("svg", () => {
  it("escapes text and picks round steps", () => {
    expect(escapeXml(`a<b & "c">`)).toBe("a&lt;b &amp; &quot;c&quot;&gt;");
    expect(niceStep(230)).toBe(500);
    expect(niceStep(0.13)).toBe(0.2);
  });
  it("writes a timeline and a bar chart as standalone SVG documents", () => {
    const timeline = timelineSvg({
      title: "t <1>",
      rows: [
        {
          label: "overlap",
          lanes: [[{ from: 0, to: 100, kind: "stream" }], [{ from: 20, to: 60, kind: "tool" }]],
          markers: [{ at: 100, kind: "bound" }],
        },
      ],
    });
    expect(timeline.startsWith("<svg")).toBe(true);
    expect(timeline).toContain("t &lt;1&gt;");
    expect(timeline.match(/<rect /g)!.length).toBeGreaterThanOrEqual(4);
    const bars = barChartSvg({
      title: "ratios",
      series: ["a", "b"],
      groups: [{ label: "g", values: [1.01, undefined] }],
      reference: 1,
      minValue: 0.95,
      maxValue: 2,
    });
    expect(bars).toContain("b: no figure");
    expect(bars.trim().endsWith("</svg>")).toBe(true);
  });
});

describe("the bench policy's scripts", () => {
  it("puts each call's op and ms first, in the scenario's order", () => {
    const s = faultScenario();
    const blocks = scenarioBlocks(s);
    const calls = blocks.filter((b) => b.type === "tool_use");
    expect(
      calls.map((b) => (b.type === "tool_use" ? Object.keys(b.input).slice(0, 2) : [])),
    ).toEqual([
      ["op", "ms"],
      ["op", "ms"],
      ["op", "ms"],
    ]);
    expect(buildScenarios().length).toBeGreaterThanOrEqual(8);
  });
});
