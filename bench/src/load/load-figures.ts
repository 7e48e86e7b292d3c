/**
 * The load benchmark's figures, from what each conversation saw: latency percentiles, dispatch
 * delays (a tool's block stop to its `tool-status running` event, both on the round's clock, from
 * the round-end timings and the status event), CPU and memory per turn, and the goals. Pure.
 */

/** What one turn's stream told the client. */
export interface TurnRecord {
  /** True when the stream ended with `done` (end_turn) and held no `error` event. */
  ok: boolean;
  /** What went wrong, when not ok. */
  error?: string;
  /** From sending the request to the end of the stream, ms. */
  latencyMs: number;
  /** Events received. */
  events: number;
  /** Block stop to `tool-status running`, ms, one per tool that ran. */
  dispatchDelaysMs: number[];
}

/** A round-end event's timings, as far as dispatch delays need them. */
export interface RoundEndTimings {
  blocks: readonly { callId?: string; stopMs?: number }[];
}

/**
 * Dispatch delays of one round: for each `tool-status running` (callId, atMs) the call's block
 * stop from the round's timings; calls without a stop (none in the demo) are left out.
 */
export function dispatchDelays(
  running: readonly { callId: string; atMs: number }[],
  timings: RoundEndTimings,
): number[] {
  const stops = new Map<string, number>();
  for (const block of timings.blocks) {
    if (block.callId !== undefined && block.stopMs !== undefined) {
      stops.set(block.callId, block.stopMs);
    }
  }
  const delays: number[] = [];
  for (const { callId, atMs } of running) {
    const stop = stops.get(callId);
    if (stop !== undefined) delays.push(Math.max(0, atMs - stop));
  }
  return delays;
}

/** The p-th percentile (0..100) by the nearest-rank method; NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

/** What the processes used during the load, measured from outside. */
export interface LoadUsage {
  /** CPU time of the shop process during the load, ms. */
  shopCpuMs: number;
  /** CPU time of the model process during the load, ms. */
  modelCpuMs: number;
  /** Resident memory of the shop before the load and at its peak during it, bytes. */
  shopRssBeforeBytes: number;
  shopRssPeakBytes: number;
  /** Wall time of the load, ms. */
  wallMs: number;
}

/** The benchmark's result: its JSON line minus the bench name. */
export interface LoadFigures {
  /** All at once, one turn each (`burst`), or the open loop (`open`). */
  mode: "burst" | "open";
  conversations: number;
  /** Open loop: the think time between a reply and the next message, ms. */
  thinkMs?: number;
  /** Turns started (burst: one per conversation). */
  turns: number;
  turnsCompleted: number;
  errors: number;
  /** The first error messages, a few. */
  errorSamples: string[];
  loneTurnMs: number;
  turnP50Ms: number;
  turnP99Ms: number;
  dispatchP99Ms: number;
  dispatchSamples: number;
  eventsPerTurn: number;
  shopCpuMsPerTurn: number;
  modelCpuMsPerTurn: number;
  /** Lone turns' shop CPU per turn, ms: the cost without load. */
  loneShopCpuMsPerTurn: number;
  kibPerConversation: number;
  wallMs: number;
  /** Turns completed per second of the load's wall time. */
  turnsPerSecond: number;
}

/**
 * The figures of a run: `turns` are the load's (every turn of every conversation), `loneTurnMs`
 * the median lone turn; memory is per conversation, CPU per completed turn.
 */
export function loadFigures(input: {
  mode: "burst" | "open";
  conversations: number;
  thinkMs?: number;
  turns: readonly TurnRecord[];
  loneTurnMs: number;
  loneShopCpuMsPerTurn: number;
  usage: LoadUsage;
}): LoadFigures {
  const { turns, usage } = input;
  const completed = turns.filter((t) => t.ok);
  const failed = turns.filter((t) => !t.ok);
  const latencies = completed.map((t) => t.latencyMs);
  const delays = completed.flatMap((t) => t.dispatchDelaysMs);
  const per = (ms: number) => (completed.length === 0 ? Number.NaN : ms / completed.length);
  return {
    mode: input.mode,
    conversations: input.conversations,
    ...(input.thinkMs === undefined ? {} : { thinkMs: input.thinkMs }),
    turns: turns.length,
    turnsCompleted: completed.length,
    errors: failed.length,
    errorSamples: [...new Set(failed.map((t) => t.error ?? "unknown"))].slice(0, 5),
    loneTurnMs: round1(input.loneTurnMs),
    turnP50Ms: round1(percentile(latencies, 50)),
    turnP99Ms: round1(percentile(latencies, 99)),
    dispatchP99Ms: round1(percentile(delays, 99)),
    dispatchSamples: delays.length,
    eventsPerTurn: round1(per(completed.reduce((sum, t) => sum + t.events, 0))),
    shopCpuMsPerTurn: round1(per(usage.shopCpuMs)),
    modelCpuMsPerTurn: round1(per(usage.modelCpuMs)),
    loneShopCpuMsPerTurn: round1(input.loneShopCpuMsPerTurn),
    kibPerConversation: round1(
      Math.max(0, usage.shopRssPeakBytes - usage.shopRssBeforeBytes) /
        1024 /
        Math.max(1, input.conversations),
    ),
    wallMs: Math.round(usage.wallMs),
    turnsPerSecond:
      usage.wallMs > 0 ? round1((1000 * completed.length) / usage.wallMs) : Number.NaN,
  };
}

/** One cost-per-turn goal, and whether the run met it. */
export interface Goal {
  name: string;
  met: boolean;
}

/** How far over a lone turn the p99 may be: in a burst every turn starts at once. */
export const P99_OVER_LONE_MS = { burst: 3_000, open: 250 } as const;
/** The open loop's goal rate, turns a second on one process. */
export const OPEN_LOOP_GOAL_RATE = 100;

/**
 * The goals: zero errors, the p99 over a lone turn (3 s in a burst, 250 ms in the open loop, which
 * must also reach 100 turns a second), dispatch, memory per conversation, CPU per turn.
 */
export function loadGoals(f: LoadFigures): Goal[] {
  const over = P99_OVER_LONE_MS[f.mode];
  return [
    {
      name: `zero errors (${f.turns} turns of ${f.conversations} conversations)`,
      met: f.errors === 0 && f.turns > 0 && f.turnsCompleted === f.turns,
    },
    ...(f.mode === "open"
      ? [
          {
            name: `at least ${OPEN_LOOP_GOAL_RATE} turns/s`,
            met: f.turnsPerSecond >= OPEN_LOOP_GOAL_RATE,
          },
        ]
      : []),
    {
      name: `p99 turn latency within ${over} ms of a lone turn`,
      met: f.turnP99Ms <= f.loneTurnMs + over,
    },
    { name: "p99 dispatch delay < 20 ms", met: f.dispatchP99Ms < 20 },
    { name: "< 100 KiB per conversation", met: f.kibPerConversation < 100 },
    { name: "shop CPU <= 5 ms per turn", met: f.shopCpuMsPerTurn <= 5 },
    { name: "scripted model CPU <= 3 ms per turn", met: f.modelCpuMsPerTurn <= 3 },
  ];
}

/** The human-readable table of a run. */
export function loadTable(f: LoadFigures): string {
  const rows: [string, string][] = [
    f.mode === "burst"
      ? ["conversations (all at once)", String(f.conversations)]
      : ["conversations (open loop)", `${f.conversations}, think time ${f.thinkMs ?? 0} ms`],
    ["turns started / completed", `${f.turns} / ${f.turnsCompleted}`],
    ["turns per second", String(f.turnsPerSecond)],
    ["errors", String(f.errors)],
    ["lone turn (median)", `${f.loneTurnMs} ms`],
    [
      "turn p50 / p99 (over a lone turn)",
      `${f.turnP50Ms} / ${f.turnP99Ms} ms (${signed(f.turnP50Ms - f.loneTurnMs)} / ${signed(f.turnP99Ms - f.loneTurnMs)} ms)`,
    ],
    [
      "dispatch delay p99 (block stop -> running)",
      `${f.dispatchP99Ms} ms (${f.dispatchSamples} tools)`,
    ],
    ["events per turn", String(f.eventsPerTurn)],
    ["shop CPU per turn (load / lone)", `${f.shopCpuMsPerTurn} / ${f.loneShopCpuMsPerTurn} ms`],
    ["scripted model CPU per turn", `${f.modelCpuMsPerTurn} ms`],
    ["shop memory per conversation", `${f.kibPerConversation} KiB`],
    ["wall time of the load", `${(f.wallMs / 1000).toFixed(1)} s`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
  for (const goal of loadGoals(f)) lines.push(`${goal.met ? "met    " : "NOT met"}  ${goal.name}`);
  if (f.errorSamples.length > 0) lines.push(`errors seen: ${f.errorSamples.join(" | ")}`);
  return lines.join("\n");
}

function signed(n: number): string {
  const r = round1(n);
  return r < 0 ? String(r) : `+${r}`;
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
