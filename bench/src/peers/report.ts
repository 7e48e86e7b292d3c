/**
 * From the records of one `bench/peers` run to what it reports: the summary (medians per
 * scenario and system, fault counts, CPU, goals), the tables (plain text for the terminal,
 * Markdown for `bench/results/peers.md`) and the charts' data. Pure (tested in `peers.test.ts`).
 */

import type { FaultRecord, TurnRecord } from "./child-kit.js";
import {
  conversationRequests,
  type FaultCounts,
  faultCounts,
  hadSystemRolePreflight,
  invalidReason,
  median,
  medianFigures,
  round2,
  type TurnFigures,
  turnFigures,
} from "./figures.js";
import type { Scenario } from "./scenarios.js";
import type { BarChart, TimelineChart, TimelineRow, TimelineSegment } from "./svg.js";

/** One system as the orchestrator ran it (or could not). */
export interface SystemRun {
  name: string;
  label: string;
  /** Which Node runs it ("20" or "22"), or "-" for a row that is not run. */
  node: string;
  /** Why it could not run: the error, instead of a number. */
  notRun?: string;
  nodeVersion?: string;
  versions?: Record<string, string>;
  turns: TurnRecord[];
  faults: FaultRecord[];
  /** Why the fault matrix stopped early or did not run for this system. */
  faultNote?: string;
}

export interface PreviewFigures {
  bytes: number;
  deltaBytes: number;
  deltas: number;
  overlapMs: number;
  anthropicSdkMs: number;
  aiSdkParsePartialJsonMs: number;
}

export interface PeersInput {
  systems: SystemRun[];
  scenarios: Scenario[];
  reps: number;
  preview?: PreviewFigures | { error: string };
  meta: Record<string, unknown>;
}

/** One system on one scenario. */
export interface Cell {
  valid: number;
  invalid: number;
  /** Distinct reasons a run did not count. */
  reasons: string[];
  median?: TurnFigures;
  /** Its median first tool start is at or after its median stream end: tools after the response. */
  afterResponse?: boolean;
  /** The next request ended with an assistant message (a prefill) in some run. */
  prefill: boolean;
  /** Some run first sent a request with a `system`-role message (rejected, then sent again). */
  systemRolePreflight: boolean;
}

export interface SystemSummary {
  name: string;
  label: string;
  node: string;
  ran: boolean;
  notRun?: string;
  nodeVersion?: string;
  versions?: Record<string, string>;
  /** Mean over the common scenarios of the median CPU ms per turn. */
  cpuPerTurnMs?: number;
  faults?: FaultCounts;
  faultNote?: string;
}

export interface PeersSummary {
  bench: "peers";
  reps: number;
  systems: SystemSummary[];
  scenarios: Array<{ id: string; title: string; calls: number; cells: Record<string, Cell> }>;
  /** Scenarios every running system completed: the CPU comparison uses these. */
  commonScenarios: string[];
  preview?: PeersInput["preview"];
  goals: Goals;
  meta: Record<string, unknown>;
}

export interface Goals {
  overlapWithin2Percent: {
    met: boolean;
    worstRound?: [string, number];
    worstTurn?: [string, number];
  };
  aheadOfAfterResponsePeers: { met: boolean; checked: number; behind: string[] };
  neverBehindMastra: { met: boolean | "n/a"; behind: string[] };
  faultsClean: { met: boolean; rejected: number; doubleRuns: number };
  /** overlap's default (fine-grained tool streaming), and `buffered`: the same wire as the peers that buffer arguments. */
  cpuNoHigherThanLeanestPeer: CpuGoal & { buffered: CpuGoal };
}

export interface CpuGoal {
  met: boolean | "n/a";
  overlapMs?: number;
  leanest?: [string, number];
}

const OVERLAP = "overlap";

export function summarize(input: PeersInput): PeersSummary {
  const running = input.systems.filter((s) => s.notRun === undefined);
  const scenarios = input.scenarios.map((scenario) => {
    const cells: Record<string, Cell> = {};
    for (const system of running) {
      const turns = system.turns.filter((t) => t.scenario === scenario.id);
      const figures: TurnFigures[] = [];
      const reasons = new Set<string>();
      let invalid = 0;
      for (const turn of turns) {
        const why = invalidReason(turn, scenario);
        if (why === undefined) figures.push(turnFigures(turn, scenario));
        else {
          invalid++;
          reasons.add(why);
        }
      }
      const cell: Cell = {
        valid: figures.length,
        invalid,
        reasons: [...reasons],
        prefill: turns.some((t) =>
          conversationRequests(t.requests)
            .slice(1)
            .some((r) => r.lastRole === "assistant"),
        ),
        systemRolePreflight: turns.some((t) => hadSystemRolePreflight(t.requests)),
      };
      if (figures.length > 0) {
        cell.median = medianFigures(figures);
        cell.afterResponse = median(figures.map((f) => f.firstToolMs - f.streamMs)) >= 0;
      }
      cells[system.name] = cell;
    }
    return { id: scenario.id, title: scenario.title, calls: scenario.calls.length, cells };
  });
  const commonScenarios = scenarios
    .filter((s) => running.every((sys) => s.cells[sys.name]?.median !== undefined))
    .map((s) => s.id);
  const systems: SystemSummary[] = input.systems.map((s) => {
    const summary: SystemSummary = {
      name: s.name,
      label: s.label,
      node: s.node,
      ran: s.notRun === undefined,
    };
    if (s.notRun !== undefined) summary.notRun = s.notRun;
    if (s.nodeVersion !== undefined) summary.nodeVersion = s.nodeVersion;
    if (s.versions !== undefined) summary.versions = s.versions;
    if (s.notRun === undefined) {
      const cpu = commonScenarios.map(
        (id) => scenarios.find((x) => x.id === id)!.cells[s.name]!.median!.cpuMs,
      );
      if (cpu.length > 0)
        summary.cpuPerTurnMs = round2(cpu.reduce((a, b) => a + b, 0) / cpu.length);
      if (s.faults.length > 0) summary.faults = faultCounts(s.faults);
    }
    if (s.faultNote !== undefined) summary.faultNote = s.faultNote;
    return summary;
  });
  const summary: PeersSummary = {
    bench: "peers",
    reps: input.reps,
    systems,
    scenarios,
    commonScenarios,
    goals: goals(systems, scenarios),
    meta: input.meta,
  };
  if (input.preview !== undefined) summary.preview = input.preview;
  return summary;
}

function goals(systems: SystemSummary[], scenarios: PeersSummary["scenarios"]): Goals {
  const ours = (s: PeersSummary["scenarios"][number]) => s.cells[OVERLAP]?.median;
  let worstRound: [string, number] | undefined;
  let worstTurn: [string, number] | undefined;
  let within = scenarios.length > 0;
  for (const s of scenarios) {
    const m = ours(s);
    if (!m) {
      within = false;
      continue;
    }
    if (!worstRound || m.roundRatio > worstRound[1]) worstRound = [s.id, m.roundRatio];
    if (!worstTurn || m.turnRatio > worstTurn[1]) worstTurn = [s.id, m.turnRatio];
    if (m.roundRatio > 1.02 || m.turnRatio > 1.02) within = false;
  }
  const behind: string[] = [];
  let checked = 0;
  const behindMastra: string[] = [];
  for (const s of scenarios) {
    const m = ours(s);
    if (!m) continue;
    for (const [name, cell] of Object.entries(s.cells)) {
      if (name.startsWith(OVERLAP) || !cell.median) continue;
      // Turn latency over each one's own bound (the same schedule for all: the bounds differ
      // only by how long each system takes to send its first request).
      if (m.toolCanFinishBeforeEnd && cell.afterResponse) {
        checked++;
        if (m.turnRatio >= cell.median.turnRatio) {
          behind.push(`${s.id}: ${name} ${cell.median.turnRatio} <= overlap ${m.turnRatio}`);
        }
      }
      if (name === "mastra" && m.turnRatio > cell.median.turnRatio) {
        behindMastra.push(`${s.id}: overlap ${m.turnRatio} > mastra ${cell.median.turnRatio}`);
      }
    }
  }
  const mastraRan = systems.some((s) => s.name === "mastra" && s.ran);
  const overlap = systems.find((s) => s.name === OVERLAP);
  const peers = systems.filter(
    (s) => !s.name.startsWith(OVERLAP) && s.ran && s.cpuPerTurnMs !== undefined,
  );
  const leanest = peers.reduce<SystemSummary | undefined>(
    (best, s) => (!best || s.cpuPerTurnMs! < best.cpuPerTurnMs! ? s : best),
    undefined,
  );
  const cpuOf = (name: string): CpuGoal => {
    const ours = systems.find((s) => s.name === name);
    return ours?.cpuPerTurnMs !== undefined && leanest
      ? {
          met: ours.cpuPerTurnMs <= leanest.cpuPerTurnMs!,
          overlapMs: ours.cpuPerTurnMs,
          leanest: [leanest.name, leanest.cpuPerTurnMs!],
        }
      : { met: "n/a" };
  };
  const cpu = { ...cpuOf(OVERLAP), buffered: cpuOf(`${OVERLAP}-buffered`) };
  const faults = overlap?.faults;
  return {
    overlapWithin2Percent: {
      met: within,
      ...(worstRound ? { worstRound } : {}),
      ...(worstTurn ? { worstTurn } : {}),
    },
    aheadOfAfterResponsePeers: { met: checked > 0 && behind.length === 0, checked, behind },
    neverBehindMastra: { met: mastraRan ? behindMastra.length === 0 : "n/a", behind: behindMastra },
    faultsClean: {
      met: faults !== undefined && faults.rejected === 0 && faults.doubleRuns === 0,
      rejected: faults?.rejected ?? Number.NaN,
      doubleRuns: faults?.doubleRuns ?? Number.NaN,
    },
    cpuNoHigherThanLeanestPeer: cpu,
  };
}

/** CPU µs per SSE frame of a turn (its median CPU over its frames), one decimal. */
export function cpuPerFrameUs(m: Pick<TurnFigures, "cpuMs" | "frames">): string {
  return ((m.cpuMs * 1000) / m.frames).toFixed(1);
}

/** The goals in words, met or not, with the figures behind them. */
export function goalLines(g: Goals): string[] {
  const yes = (met: boolean | "n/a") => (met === "n/a" ? "n/a" : met ? "met" : "NOT met");
  const cpu = (c: CpuGoal) =>
    c.overlapMs === undefined
      ? "n/a"
      : `${c.overlapMs} ms vs ${c.leanest?.[0]} ${c.leanest?.[1]} ms: ${yes(c.met)}`;
  return [
    `overlap within 2% of the lower bound on every scenario (round and turn): ${yes(g.overlapWithin2Percent.met)}; worst round ${g.overlapWithin2Percent.worstRound?.join(" ")}, worst turn ${g.overlapWithin2Percent.worstTurn?.join(" ")}`,
    `ahead of every after-the-response peer wherever a tool can finish before the stream ends (turn ratio): ${yes(g.aheadOfAfterResponsePeers.met)} (${g.aheadOfAfterResponsePeers.checked} comparisons${g.aheadOfAfterResponsePeers.behind.length ? `; behind: ${g.aheadOfAfterResponsePeers.behind.join("; ")}` : ""})`,
    `never behind Mastra (turn ratio): ${yes(g.neverBehindMastra.met)}${g.neverBehindMastra.behind.length ? ` (${g.neverBehindMastra.behind.join("; ")})` : ""}`,
    `zero rejected requests and zero double runs under the fault matrix: ${yes(g.faultsClean.met)} (rejected ${g.faultsClean.rejected}, double runs ${g.faultsClean.doubleRuns})`,
    `CPU per turn no higher than the leanest peer's: overlap ${cpu(g.cpuNoHigherThanLeanestPeer)}; overlap-buffered ${cpu(g.cpuNoHigherThanLeanestPeer.buffered)}`,
  ];
}

// ---------------------------------------------------------------------------------------------
// Tables

export interface Table {
  title: string;
  head: string[];
  rows: string[][];
  note?: string;
}

const ratio = (x: number | undefined) => (x === undefined ? "-" : x.toFixed(3));
const ms = (x: number | undefined) => (x === undefined ? "-" : String(Math.round(x)));

function cellText(cell: Cell | undefined, pick: (m: TurnFigures) => string): string {
  if (!cell) return "-";
  if (!cell.median) return cell.invalid > 0 ? "failed" : "-";
  const mark = cell.invalid > 0 ? `*${cell.invalid}` : "";
  return `${pick(cell.median)}${mark}`;
}

export function tables(summary: PeersSummary): Table[] {
  const running = summary.systems.filter((s) => s.ran);
  const head = ["scenario", ...running.map((s) => s.name)];
  const matrix = (title: string, pick: (m: TurnFigures) => string, note?: string): Table => {
    const table: Table = {
      title,
      head,
      rows: summary.scenarios.map((s) => [
        s.id,
        ...running.map((sys) => cellText(s.cells[sys.name], pick)),
      ]),
    };
    if (note !== undefined) table.note = note;
    return table;
  };
  const out: Table[] = [
    matrix(
      "round latency / lower bound (median; first request sent -> second request sent, over max(stream end, block stop + tool ms))",
      (m) => ratio(m.roundRatio),
      "*N: N runs did not count (see the reasons below); 'failed': none did.",
    ),
    matrix(
      "turn latency / lower bound (model -> tools -> model final answer; bound = round bound + the second response's own duration)",
      (m) => ratio(m.turnRatio),
    ),
    matrix("time to first tool start / earliest block stop", (m) => ratio(m.firstToolRatio)),
    {
      title: "turn latency, ms (median) and the lower bounds",
      head: [...head, "bound(round)", "bound(turn)"],
      rows: summary.scenarios.map((s) => {
        const lb = s.cells[OVERLAP]?.median ?? Object.values(s.cells).find((c) => c.median)?.median;
        return [
          s.id,
          ...running.map((sys) => cellText(s.cells[sys.name], (m) => ms(m.turnMs))),
          ms(lb?.lbRoundMs),
          ms(lb?.lbTurnMs),
        ];
      }),
      note: "bounds shown from overlap's runs (each system's ratio uses its own runs' bound).",
    },
    {
      title:
        "CPU ms per turn of each system's process (median; process.cpuUsage() around the turn)",
      head,
      rows: [
        ...summary.scenarios.map((s) => [
          s.id,
          ...running.map((sys) => cellText(s.cells[sys.name], (m) => m.cpuMs.toFixed(1))),
        ]),
        [
          `mean over ${summary.commonScenarios.length} common scenarios`,
          ...running.map((s) => (s.cpuPerTurnMs === undefined ? "-" : s.cpuPerTurnMs.toFixed(1))),
        ],
      ],
    },
    matrix(
      "CPU µs per wire frame (median turn's CPU over the SSE frames of its two responses) and the frames",
      (m) => (m.frames > 0 ? `${cpuPerFrameUs(m)} (${m.frames})` : "-"),
      "the fine-grained wire (overlap) carries each call's arguments in 8-character deltas: many more frames for the same turn than the buffered wire; a system's cost per turn is mostly its cost per frame times its frames.",
    ),
  ];
  const faultRows = summary.systems.map((s) => {
    if (!s.ran) return [s.name, "not run", "", "", "", "", "", s.notRun ?? ""];
    const f = s.faults;
    if (!f) return [s.name, "-", "", "", "", "", "", s.faultNote ?? "no fault runs"];
    return [
      s.name,
      String(f.cells),
      String(f.rejected),
      String(f.doubleRuns),
      String(f.effectsWithoutResult),
      String(f.hangs),
      String(f.stuck),
      [s.faultNote, ...f.examples].filter(Boolean).join("; "),
    ];
  });
  out.push({
    title:
      'faults: the 3-call response cut (drop-after=N) and broken (error-after=N) after every event N, then "go on"',
    head: [
      "system",
      "cells",
      "rejected(400)",
      "double runs",
      "ran, no result sent",
      "hangs",
      "go-on failed (any cause)",
      "examples",
    ],
    rows: faultRows,
  });
  // Each note once per system, with the scenarios it applies to ("all" when every one).
  const grouped = new Map<string, { system: string; why: string; scenarios: string[] }>();
  const note = (scenario: string, system: string, why: string) => {
    const key = `${system}\n${why}`;
    const entry = grouped.get(key) ?? { system, why, scenarios: [] };
    entry.scenarios.push(scenario);
    grouped.set(key, entry);
  };
  for (const s of summary.scenarios) {
    for (const [name, cell] of Object.entries(s.cells)) {
      for (const reason of cell.reasons) note(s.id, name, reason);
      if (cell.prefill)
        note(s.id, name, "its next request ended with an assistant message (prefill)");
      if (cell.systemRolePreflight) {
        note(
          s.id,
          name,
          "sent the conversation first with a system-role message (400), then without it; both in its time",
        );
      }
    }
  }
  const notes: string[][] = [...grouped.values()].map((g) => [
    g.scenarios.length === summary.scenarios.length ? "all" : g.scenarios.join(", "),
    g.system,
    g.why,
  ]);
  for (const s of summary.systems) {
    if (!s.ran) notes.push(["-", s.name, `not run: ${s.notRun}`]);
  }
  if (notes.length > 0) {
    out.push({
      title: "runs that did not count, and notes",
      head: ["scenarios", "system", "why"],
      rows: notes,
    });
  }
  const p = summary.preview;
  if (p && "bytes" in p) {
    out.push({
      title: `preview cost: one ${Math.round(p.bytes / 1024)} KiB display-tool argument in ${p.deltaBytes}-byte deltas (${p.deltas} deltas), a preview after each`,
      head: ["parser", "ms", "x overlap"],
      rows: [
        ["overlap PartialJsonParser (push + snapshot)", p.overlapMs.toFixed(1), "1"],
        [
          "Anthropic SDK MessageStream inputJson",
          p.anthropicSdkMs.toFixed(1),
          (p.anthropicSdkMs / p.overlapMs).toFixed(0),
        ],
        [
          "AI SDK parsePartialJson(accumulated)",
          p.aiSdkParsePartialJsonMs.toFixed(1),
          (p.aiSdkParsePartialJsonMs / p.overlapMs).toFixed(0),
        ],
      ],
    });
  } else if (p && "error" in p) {
    out.push({ title: "preview cost", head: ["error"], rows: [[p.error]] });
  }
  return out;
}

export function formatText(table: Table): string {
  const widths = table.head.map((h, i) =>
    Math.min(70, Math.max(h.length, ...table.rows.map((r) => (r[i] ?? "").length))),
  );
  const line = (cells: string[]) =>
    cells
      .map((c, i) => {
        const text = c.length > widths[i]! ? `${c.slice(0, widths[i]! - 1)}…` : c;
        return i === 0 || i === cells.length - 1
          ? text.padEnd(widths[i]!)
          : text.padStart(widths[i]!);
      })
      .join("  ")
      .trimEnd();
  return [
    table.title,
    line(table.head),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...table.rows.map(line),
    ...(table.note ? [table.note] : []),
  ].join("\n");
}

export function formatMarkdown(table: Table): string {
  const esc = (c: string) => c.replace(/\|/g, "\\|");
  return [
    `**${table.title}**`,
    "",
    `| ${table.head.map(esc).join(" | ")} |`,
    `| ${table.head.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`,
    ...table.rows.map((r) => `| ${r.map(esc).join(" | ")} |`),
    ...(table.note ? ["", table.note] : []),
  ].join("\n");
}

// ---------------------------------------------------------------------------------------------
// Charts

/** The turn of `system` on `scenario` whose turn latency is the median one (valid turns only). */
export function medianTurn(
  system: SystemRun,
  scenario: Scenario,
): { record: TurnRecord; figures: TurnFigures } | undefined {
  const valid = system.turns
    .filter((t) => t.scenario === scenario.id && invalidReason(t, scenario) === undefined)
    .map((record) => ({ record, figures: turnFigures(record, scenario) }))
    .sort((a, b) => a.figures.turnMs - b.figures.turnMs);
  return valid[(valid.length - 1) >> 1];
}

export function timelineChart(input: PeersInput, scenarioId: string): TimelineChart {
  const scenario = input.scenarios.find((s) => s.id === scenarioId);
  if (!scenario) throw new Error(`no scenario ${scenarioId}`);
  const rows: TimelineRow[] = [];
  for (const system of input.systems) {
    if (system.notRun !== undefined) continue;
    const turn = medianTurn(system, scenario);
    if (!turn) continue;
    const { record, figures } = turn;
    const at = (t: number | undefined) => (t === undefined ? 0 : t - record.t0);
    const streams: TimelineSegment[] = conversationRequests(record.requests).map((r, i) => ({
      from: at(r.sentAt),
      to: at(r.streamEnd ?? r.lastByte),
      kind: i === 0 ? "stream" : "answer",
      label: `request ${i + 1}: sent ${Math.round(at(r.sentAt))} ms, stream end ${Math.round(at(r.streamEnd))} ms`,
    }));
    const tools: TimelineSegment[][] = scenario.calls.map((call) => {
      const run = record.runs.find((r) => r.op === call.op);
      if (!run) return [];
      const segments: TimelineSegment[] = [];
      const workStart = run.workStart ?? run.start;
      if (workStart - run.start > 1) {
        segments.push({
          from: at(run.start),
          to: at(workStart),
          kind: "wait",
          label: `${call.op} waits for the lock`,
        });
      }
      segments.push({
        from: at(workStart),
        to: at(run.end),
        kind: "tool",
        label: `${call.name} (${call.ms} ms): ${Math.round(at(workStart))}-${Math.round(at(run.end))} ms`,
      });
      return segments;
    });
    rows.push({
      label: system.name,
      lanes: [streams, ...tools],
      markers: [
        {
          at: figures.lbTurnMs,
          kind: "bound",
          label: `lower bound ${Math.round(figures.lbTurnMs)} ms`,
        },
        { at: figures.turnMs, kind: "end", label: `turn end ${Math.round(figures.turnMs)} ms` },
      ],
    });
  }
  return {
    title: `bench/peers: one turn of "${scenario.id}" per system (${scenario.title})`,
    subtitle:
      "the median run of each, from the moment it is called; grey: the model's response, then its final answer; blue: each tool call",
    rows,
  };
}

export function ratioChart(summary: PeersSummary, which: "roundRatio" | "turnRatio"): BarChart {
  const running = summary.systems.filter((s) => s.ran);
  return {
    title:
      which === "roundRatio"
        ? "bench/peers: round latency / lower bound (median per scenario)"
        : "bench/peers: turn latency / lower bound (median per scenario)",
    subtitle: "1 = the lower bound max(end of stream, block stop + tool duration); lower is better",
    series: running.map((s) => s.name),
    groups: summary.scenarios.map((s) => ({
      label: s.id,
      values: running.map((sys) => s.cells[sys.name]?.median?.[which]),
    })),
    reference: 1,
    minValue: 0.95,
    maxValue: 2,
  };
}
