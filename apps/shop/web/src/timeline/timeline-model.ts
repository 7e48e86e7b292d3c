/**
 * The timeline's geometry, computed from the `round-end` timings of a turn (docs/protocol.md,
 * Timings): per round, one row per content block, in the order the model wrote them. A text block
 * is one bar; a tool_use block is the bar of its arguments streaming, then (on the same row) the
 * tool's wait for a slot, if any, and its run. All rounds of a turn share one scale, so their
 * lengths compare. Pure: no React, no DOM.
 */

import type { RoundInfo, RoundTimings } from "overlap-runtime/client";
import { formatMs as formatDuration } from "../api/format";

/** Below this, time saved is too little to speak of (timer noise, a tool of a millisecond). */
export const NOTICEABLE_MS = 10;

/** What a bar shows. */
export type BarKind =
  /** The model writing text. */
  | "text"
  /** The model thinking. */
  | "thinking"
  /** The model writing a tool call's arguments. */
  | "args"
  /** A provider-side tool's block. */
  | "server"
  /** A complete call waiting for a concurrency slot. */
  | "queue"
  /** A tool running. */
  | "run";

export interface Bar {
  kind: BarKind;
  startMs: number;
  endMs: number;
  /** For tool runs: `done`, `failed`, `cancelled`... */
  status: string | undefined;
}

export interface Row {
  key: string;
  /** "Text", "Thinking", or the tool's name. */
  label: string;
  /** True for a tool_use block (or a tool seen without its block). */
  tool: boolean;
  /** The call's id, for a tool row. */
  callId: string | undefined;
  bars: Bar[];
  /** How long before the end of the model's response this row's tool started (> 0 = overlap). */
  startedBeforeStreamEndMs: number | undefined;
}

export interface RoundChart {
  round: number;
  stopReason: string | undefined;
  rows: Row[];
  /** When the model's response ended. */
  streamEndMs: number | undefined;
  /** When the round's tools had all joined (its end). */
  endMs: number;
  /** What overlapping saved versus starting the tools after the response (in parallel). */
  savedMs: number | undefined;
  firstToolStartMs: number | undefined;
  /** How long tools were already running before the response ended (0 when none was). */
  headStartMs: number;
  /** The round's end had the tools started only after the response: `streamEnd + longest tool`. */
  endWithoutOverlapMs: number | undefined;
  /** When the last tool finished (`undefined` without tools). */
  toolsEndMs: number | undefined;
  /** The longest tool run (0 without tools). */
  longestToolMs: number;
}

export interface TurnChart {
  /** Rounds with their timings, in order. */
  rounds: RoundChart[];
  /** Rounds that started and have no timings yet (streaming now). */
  openRounds: number[];
  /** The axis of every round: 0..scaleMs. */
  scaleMs: number;
  ticks: number[];
  totalMs: number;
  totalSavedMs: number;
  /** Sum of the rounds' head starts: tool time that ran while the model was still writing. */
  totalHeadStartMs: number;
}

const STEPS = [
  25, 50, 100, 200, 250, 500, 1_000, 2_000, 2_500, 5_000, 10_000, 20_000, 30_000, 60_000,
];

/** A round figure for the axis end and its tick step (at most `maxTicks` intervals). */
export function niceAxis(maxMs: number, maxTicks = 4): { scaleMs: number; ticks: number[] } {
  const max = Math.max(maxMs, 1);
  const step =
    STEPS.find((s) => max / s <= maxTicks) ?? Math.ceil(max / maxTicks / 60_000) * 60_000;
  const scaleMs = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  for (let t = 0; t <= scaleMs + 1e-6; t += step) ticks.push(t);
  return { scaleMs, ticks };
}

/** The chart of one round that has its timings. */
export function roundChart(info: RoundInfo & { timings: RoundTimings }): RoundChart {
  const t = info.timings;
  const rows: Row[] = [];
  const toolsById = new Map(t.tools.map((tool) => [tool.callId, tool]));
  const placed = new Set<string>();
  const last = (...values: (number | undefined)[]) =>
    Math.max(0, ...values.filter((v): v is number => typeof v === "number"));
  const streamEnd = t.streamEndMs;
  const fallbackEnd = last(t.endMs, streamEnd);

  const toolBars = (callId: string): { bars: Bar[]; startMs: number | undefined } => {
    const tool = toolsById.get(callId);
    if (!tool || tool.startMs === undefined) return { bars: [], startMs: undefined };
    placed.add(callId);
    const bars: Bar[] = [];
    if (tool.startMs - tool.readyMs >= 1) {
      bars.push({ kind: "queue", startMs: tool.readyMs, endMs: tool.startMs, status: undefined });
    }
    bars.push({
      kind: "run",
      startMs: tool.startMs,
      endMs: tool.endMs ?? fallbackEnd,
      status: tool.status,
    });
    return { bars, startMs: tool.startMs };
  };
  const early = (startMs: number | undefined) =>
    startMs === undefined || streamEnd === undefined ? undefined : streamEnd - startMs;

  for (const block of [...t.blocks].sort((a, b) => a.startMs - b.startMs || a.index - b.index)) {
    const endMs = block.stopMs ?? streamEnd ?? fallbackEnd;
    const key = `b${block.index}`;
    if (block.kind === "text" || block.kind === "thinking") {
      rows.push({
        key,
        label: block.kind === "text" ? "Text" : "Thinking",
        tool: false,
        callId: undefined,
        bars: [{ kind: block.kind, startMs: block.startMs, endMs, status: undefined }],
        startedBeforeStreamEndMs: undefined,
      });
    } else if (block.kind === "tool_use") {
      const run = block.callId ? toolBars(block.callId) : { bars: [], startMs: undefined };
      rows.push({
        key,
        label: block.name ?? "tool",
        tool: true,
        callId: block.callId,
        bars: [{ kind: "args", startMs: block.startMs, endMs, status: undefined }, ...run.bars],
        startedBeforeStreamEndMs: early(run.startMs),
      });
    } else if (block.kind === "server_tool_use") {
      rows.push({
        key,
        label: block.name ?? "server tool",
        tool: true,
        callId: undefined,
        bars: [{ kind: "server", startMs: block.startMs, endMs, status: undefined }],
        startedBeforeStreamEndMs: undefined,
      });
    }
  }
  // Tools started without a block of theirs in the list (started late by the join).
  for (const tool of t.tools) {
    if (placed.has(tool.callId)) continue;
    const run = toolBars(tool.callId);
    if (run.bars.length === 0) continue;
    rows.push({
      key: `t${tool.callId}`,
      label: tool.name,
      tool: true,
      callId: tool.callId,
      bars: run.bars,
      startedBeforeStreamEndMs: early(run.startMs),
    });
  }

  const runs = t.tools.flatMap((tool) =>
    tool.startMs !== undefined && tool.endMs !== undefined ? [tool.endMs - tool.startMs] : [],
  );
  const endMs = last(t.endMs, streamEnd, ...rows.flatMap((r) => r.bars.map((b) => b.endMs)));
  return {
    round: info.round,
    stopReason: info.stopReason,
    rows,
    streamEndMs: streamEnd,
    endMs,
    savedMs: t.savedMs,
    firstToolStartMs: t.firstToolStartMs,
    headStartMs:
      t.firstToolStartMs !== undefined && streamEnd !== undefined
        ? Math.max(0, streamEnd - t.firstToolStartMs)
        : 0,
    endWithoutOverlapMs: withoutOverlap(t, runs),
    toolsEndMs: t.tools.some((tool) => tool.endMs !== undefined)
      ? Math.max(...t.tools.flatMap((tool) => (tool.endMs !== undefined ? [tool.endMs] : [])))
      : undefined,
    longestToolMs: runs.length > 0 ? Math.max(...runs) : 0,
  };
}

/**
 * When the round would have been ready had the tools waited for the end of the response: when it
 * was ready (the stream's end or the last tool's) plus the time the runtime reckoned saved, so the
 * two bars and the "saved" figure always agree (a checkout that waited for the shopper: equal bars,
 * no time saved). Without that figure: the stream's end plus the longest tool.
 */
function withoutOverlap(t: RoundTimings, runs: readonly number[]): number | undefined {
  const streamEnd = t.streamEndMs;
  if (runs.length === 0 || streamEnd === undefined) return undefined;
  if (t.savedMs === undefined) return streamEnd + Math.max(...runs);
  const ends = t.tools.flatMap((tool) => (tool.endMs !== undefined ? [tool.endMs] : []));
  return Math.max(streamEnd, ...ends) + t.savedMs;
}

/** The chart of a turn's rounds. */
export function turnChart(rounds: Readonly<Record<number, RoundInfo>>): TurnChart {
  const infos = Object.values(rounds).sort((a, b) => a.round - b.round);
  const charts: RoundChart[] = [];
  const openRounds: number[] = [];
  for (const info of infos) {
    if (info.timings) charts.push(roundChart({ ...info, timings: info.timings }));
    else openRounds.push(info.round);
  }
  const longest = Math.max(0, ...charts.map((c) => Math.max(c.endMs, c.endWithoutOverlapMs ?? 0)));
  const { scaleMs, ticks } = niceAxis(longest);
  return {
    rounds: charts,
    openRounds,
    scaleMs,
    ticks,
    totalMs: charts.reduce((sum, c) => sum + c.endMs, 0),
    totalSavedMs: charts.reduce((sum, c) => sum + Math.max(0, c.savedMs ?? 0), 0),
    totalHeadStartMs: charts.reduce((sum, c) => sum + c.headStartMs, 0),
  };
}

/** What a round's figures mean, in one or two sentences (`undefined` for a round without tools). */
export function explainRound(chart: RoundChart, lang: "en" | "zh"): string | undefined {
  const stream = chart.streamEndMs;
  const without = chart.endWithoutOverlapMs;
  if (stream === undefined || without === undefined) return undefined;
  const zh = lang === "zh";
  const saved = Math.max(0, chart.savedMs ?? without - chart.endMs);
  const fmt = (ms: number) => formatDuration(ms, lang);
  if (saved >= NOTICEABLE_MS) {
    const doneBefore = chart.toolsEndMs !== undefined ? stream - chart.toolsEndMs : undefined;
    if (doneBefore !== undefined && doneBefore >= NOTICEABLE_MS) {
      return zh
        ? `工具在回复写完前 ${fmt(doneBefore)} 就已完成；如果等回复写完再开始，会多花 ${fmt(saved)}。`
        : `The tools finished ${fmt(doneBefore)} before the reply ended; waiting for the reply would have taken ${fmt(saved)} longer.`;
    }
    return zh
      ? `工具在回复写完前 ${fmt(chart.headStartMs)} 开始；如果等回复写完再开始，会多花 ${fmt(saved)}。`
      : `The tools started ${fmt(chart.headStartMs)} before the reply ended; waiting for the reply would have taken ${fmt(saved)} longer.`;
  }
  if (chart.headStartMs >= NOTICEABLE_MS) {
    return zh
      ? `工具在回复写完前 ${fmt(chart.headStartMs)} 就开始了，但只用了 ${fmt(chart.longestToolMs)}，所以没有节省时间。`
      : `The tools started ${fmt(chart.headStartMs)} before the reply ended, but took only ${fmt(chart.longestToolMs)}, so no time was saved.`;
  }
  return zh
    ? "工具要等回复写完才能开始，所以没有节省时间。"
    : "The tools could only start once the reply was written, so no time was saved.";
}

/** A turn's figures in one sentence. */
export function explainTurn(chart: TurnChart, lang: "en" | "zh"): string {
  const zh = lang === "zh";
  const fmt = (ms: number) => formatDuration(ms, lang);
  const withTools = chart.rounds.filter((r) => r.endWithoutOverlapMs !== undefined);
  if (withTools.length === 0) {
    return zh
      ? `这条回复没有用到工具，用时 ${fmt(chart.totalMs)}。`
      : `No tool ran in this reply; it took ${fmt(chart.totalMs)}.`;
  }
  if (chart.totalSavedMs >= NOTICEABLE_MS) {
    const without = chart.totalMs + chart.totalSavedMs;
    return zh
      ? `工具在回复还在书写时就开始运行，节省了 ${fmt(chart.totalSavedMs)}：回复用时 ${fmt(chart.totalMs)}，否则要 ${fmt(without)}。`
      : `Tools started while the reply was still being written, which saved ${fmt(chart.totalSavedMs)}: the reply took ${fmt(chart.totalMs)} instead of ${fmt(without)}.`;
  }
  return zh
    ? `这次没有节省时间（回复用时 ${fmt(chart.totalMs)}）：工具要么在回复写完后才开始，要么快到提前开始也无关紧要。`
    : `No time was saved this time (the reply took ${fmt(chart.totalMs)}): the tools either started only once the reply was written, or were so quick that starting early made no difference.`;
}
