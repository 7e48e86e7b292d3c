/**
 * The pure arithmetic of `bench/peers`: the lower bound of a turn from what the wire tap saw, a
 * turn's figures as ratios to it, the fault matrix's counts, medians. No I/O (tested in
 * `peers.test.ts`).
 */

import type { FaultRecord, ToolRun, TurnRecord, WireRequest } from "./child-kit.js";
import type { Scenario, ScenarioCall } from "./scenarios.js";

export function median(values: readonly number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const round2 = (x: number): number => Math.round(x * 100) / 100;

/**
 * The earliest moment every call's result can be ready: no call starts before its arguments are
 * complete (`stops[k]`), each takes its nominal duration, calls holding the same lock (cart
 * writes of one session) run one at a time in call order, and nothing is ready before the stream
 * ends: `max(streamEnd, max over calls of ready_k)` with `ready_k = max(stop_k, ready of the
 * previous call under the same lock) + ms_k`. Without locks this is the classic
 * `max(end of stream, max over calls of block stop + tool duration)`.
 */
export function lowerBound(
  streamEnd: number,
  stops: readonly number[],
  calls: readonly Pick<ScenarioCall, "ms" | "locked" | "extra">[],
): number {
  let bound = streamEnd;
  const lockFree = new Map<string, number>();
  calls.forEach((call, k) => {
    const stop = stops[k];
    if (stop === undefined) throw new Error(`no block stop seen for call ${k}`);
    let start = stop;
    const key = call.locked ? String(call.extra.session ?? "default") : undefined;
    if (key !== undefined) start = Math.max(start, lockFree.get(key) ?? start);
    const ready = start + call.ms;
    if (key !== undefined) lockFree.set(key, ready);
    bound = Math.max(bound, ready);
  });
  return bound;
}

/** One measured turn's figures (ms from the turn's start) and ratios to its lower bound. */
export interface TurnFigures {
  firstToolMs: number;
  roundMs: number;
  turnMs: number;
  lbFirstToolMs: number;
  lbRoundMs: number;
  lbTurnMs: number;
  firstToolRatio: number;
  roundRatio: number;
  turnRatio: number;
  cpuMs: number;
  /** Frames (SSE events or chunks) of the turn's two responses. */
  frames: number;
  /** End of the first response's stream, ms. */
  streamMs: number;
  /** Whether some call's result could be ready before the stream ended. */
  toolCanFinishBeforeEnd: boolean;
}

/**
 * The requests of a turn's conversation: without the Claude Agent SDK CLI's first attempt, a
 * request whose messages end with a `system` role message (the scripted model answers it 400,
 * as it does any malformed request, and the CLI sends the conversation again without it).
 */
export function conversationRequests(requests: readonly WireRequest[]): WireRequest[] {
  return requests.filter((r) => r.lastRole !== "system");
}

/** Whether some request was such a `system`-role first attempt. */
export function hadSystemRolePreflight(requests: readonly WireRequest[]): boolean {
  return requests.some((r) => r.lastRole === "system");
}

/** Why a turn does not count, or undefined when it did the scenario's work exactly. */
export function invalidReason(record: TurnRecord, scenario: Scenario): string | undefined {
  if (record.error !== undefined) return record.error;
  const requests = conversationRequests(record.requests);
  const [first, second] = requests;
  if (!first || !second) return `${requests.length} request(s), expected 2`;
  if (requests.length !== 2) return `${requests.length} requests, expected 2`;
  if (first.status !== 200 || second.status !== 200) {
    return `statuses ${first.status}/${second.status}`;
  }
  if (first.streamEnd === undefined || second.streamEnd === undefined) {
    return "a stream never ended";
  }
  if (first.stops.length !== scenario.calls.length) {
    return `${first.stops.length} block stops seen, expected ${scenario.calls.length}`;
  }
  for (const call of scenario.calls) {
    const runs = record.runs.filter((r) => r.op === call.op);
    if (runs.length !== 1) return `${call.op} ran ${runs.length} times`;
    if (!runs[0]!.completed) return `${call.op} did not complete`;
    if (!second.markers.includes(call.op)) return `the next request lacks ${call.op}'s result`;
  }
  if (!record.text.startsWith("All ")) return `final text ${JSON.stringify(record.text)}`;
  return undefined;
}

/** The figures of a valid turn (see {@link invalidReason}). */
export function turnFigures(record: TurnRecord, scenario: Scenario): TurnFigures {
  const [first, second] = conversationRequests(record.requests) as Required<WireRequest>[];
  if (!first || !second) throw new Error("turnFigures needs a valid turn");
  const t0 = record.t0;
  const bound = lowerBound(first.streamEnd, first.stops, scenario.calls);
  const lbRoundMs = bound - t0;
  const lbFirstToolMs = Math.min(...first.stops) - t0;
  const lbTurnMs = lbRoundMs + (second.streamEnd - second.sentAt);
  const firstToolMs = Math.min(...record.runs.map((r) => r.start)) - t0;
  const roundMs = second.sentAt - t0;
  const turnMs = record.tEnd - t0;
  return {
    firstToolMs,
    roundMs,
    turnMs,
    lbFirstToolMs,
    lbRoundMs,
    lbTurnMs,
    firstToolRatio: firstToolMs / lbFirstToolMs,
    roundRatio: roundMs / lbRoundMs,
    turnRatio: turnMs / lbTurnMs,
    cpuMs: record.cpuMs,
    frames: first.frames + second.frames,
    streamMs: first.streamEnd - t0,
    toolCanFinishBeforeEnd: scenario.calls.some(
      (call, k) => first.stops[k]! + call.ms < first.streamEnd,
    ),
  };
}

/** The medians of several turns' figures. */
export function medianFigures(list: readonly TurnFigures[]): TurnFigures {
  const m = (f: (x: TurnFigures) => number) => round2(median(list.map(f)));
  return {
    firstToolMs: m((x) => x.firstToolMs),
    roundMs: m((x) => x.roundMs),
    turnMs: m((x) => x.turnMs),
    lbFirstToolMs: m((x) => x.lbFirstToolMs),
    lbRoundMs: m((x) => x.lbRoundMs),
    lbTurnMs: m((x) => x.lbTurnMs),
    firstToolRatio: Math.round(median(list.map((x) => x.firstToolRatio)) * 1000) / 1000,
    roundRatio: Math.round(median(list.map((x) => x.roundRatio)) * 1000) / 1000,
    turnRatio: Math.round(median(list.map((x) => x.turnRatio)) * 1000) / 1000,
    cpuMs: m((x) => x.cpuMs),
    frames: m((x) => x.frames),
    streamMs: m((x) => x.streamMs),
    toolCanFinishBeforeEnd: list.some((x) => x.toolCanFinishBeforeEnd),
  };
}

// ---------------------------------------------------------------------------------------------
// Faults

/** What the fault matrix counts for one system. */
export interface FaultCounts {
  cells: number;
  /** Requests the strict scripted model answered 400 (a conversation it rejects). */
  rejected: number;
  /** Calls (by `op`) run more than once. */
  doubleRuns: number;
  /** Tool runs that completed but whose result never reached a later request. */
  effectsWithoutResult: number;
  /** Turns that did not settle within the deadline. */
  hangs: number;
  /** Cells whose "go on" turn did not end normally (after a fault). */
  stuck: number;
  /** A few examples, for the report. */
  examples: string[];
}

function completedWithoutResult(runs: readonly ToolRun[], requests: readonly WireRequest[]) {
  return runs.filter(
    (run) =>
      run.completed &&
      !requests.some((r) => r.sentAt >= (run.end ?? 0) && r.markers.includes(run.op)),
  );
}

export function faultCounts(records: readonly FaultRecord[]): FaultCounts {
  const counts: FaultCounts = {
    cells: records.length,
    rejected: 0,
    doubleRuns: 0,
    effectsWithoutResult: 0,
    hangs: 0,
    stuck: 0,
    examples: [],
  };
  const example = (text: string) => {
    if (counts.examples.length < 4 && !counts.examples.includes(text)) counts.examples.push(text);
  };
  for (const record of records) {
    const rejected = conversationRequests(record.requests).filter((r) => r.status === 400).length;
    counts.rejected += rejected;
    if (rejected > 0) example(`${record.fault}: ${rejected} request(s) rejected with 400`);
    const byOp = new Map<string, number>();
    for (const run of record.runs) byOp.set(run.op, (byOp.get(run.op) ?? 0) + 1);
    const doubles = [...byOp.values()].filter((n) => n > 1).length;
    counts.doubleRuns += doubles;
    if (doubles > 0) example(`${record.fault}: ${doubles} call(s) ran twice`);
    const lost = completedWithoutResult(record.runs, record.requests);
    counts.effectsWithoutResult += lost.length;
    if (lost.length > 0) {
      example(`${record.fault}: ${lost.map((r) => r.op).join(", ")} ran, result never sent`);
    }
    const hung = [record.first, record.second].filter((t) => t?.outcome === "hang").length;
    counts.hangs += hung;
    if (hung > 0) example(`${record.fault}: turn hung`);
    if (record.second && record.second.outcome !== "ok") {
      counts.stuck++;
      example(`${record.fault}: "go on" failed: ${record.second.error ?? record.second.outcome}`);
    }
  }
  return counts;
}

/** At most `cap` indices spread evenly over 0..count-1 (all of them when `count <= cap`). */
export function sampleIndices(count: number, cap: number): number[] {
  if (count <= cap) return Array.from({ length: count }, (_, i) => i);
  const picks = Array.from({ length: cap }, (_, i) => Math.round((i * (count - 1)) / (cap - 1)));
  return [...new Set(picks)];
}
