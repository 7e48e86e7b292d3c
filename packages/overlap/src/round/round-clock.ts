/**
 * Timing bookkeeping of one round (the timeline and the time saved), kept apart from the relay so the relay stays short.
 */

import {
  type BlockTiming,
  type RoundTimings,
  savedMsOf,
  type ToolTiming,
} from "../protocol/round-timings.js";

/** Records block and tool times relative to the round start. */
export class RoundClock {
  readonly timings: RoundTimings;
  readonly #now: () => number;
  readonly #start: number;
  readonly #blocks = new Map<number, BlockTiming>();
  readonly #tools = new Map<string, ToolTiming>();
  readonly #sequenceOf: (name: string) => string | undefined;

  /** `sequenceOf` names the sequence a tool's calls run in, if any (see `ToolConfig.sequence`). */
  constructor(
    now: () => number,
    sequenceOf: (name: string) => string | undefined = () => undefined,
  ) {
    this.#now = now;
    this.#sequenceOf = sequenceOf;
    this.#start = now();
    this.timings = { startedAt: Date.now(), blocks: [], tools: [] };
  }

  /** Milliseconds since the round started. */
  elapsed(): number {
    return round2(this.#now() - this.#start);
  }

  event(): void {
    this.timings.firstEventMs ??= this.elapsed();
  }

  blockStart(index: number, kind: string, callId?: string, name?: string): void {
    const timing: BlockTiming = { index, kind, startMs: this.elapsed() };
    this.timings.firstTokenMs ??= timing.startMs;
    if (callId !== undefined) timing.callId = callId;
    if (name !== undefined) timing.name = name;
    this.#blocks.set(index, timing);
    this.timings.blocks.push(timing);
  }

  blockStop(index: number): void {
    const timing = this.#blocks.get(index);
    if (timing) timing.stopMs = this.elapsed();
  }

  /** A call became ready to run (its arguments are complete, or collect saw it). */
  toolReady(callId: string, name: string): void {
    if (this.#tools.has(callId)) return;
    const timing: ToolTiming = { callId, name, readyMs: this.elapsed() };
    const sequence = this.#sequenceOf(name);
    if (sequence !== undefined) timing.sequence = sequence;
    this.#tools.set(callId, timing);
    this.timings.tools.push(timing);
  }

  toolStatus(callId: string, name: string, status: string): number {
    this.toolReady(callId, name);
    const timing = this.#tools.get(callId)!;
    const at = this.elapsed();
    if (status === "running") {
      timing.startMs = at;
      this.timings.firstToolStartMs ??= at;
    } else if (status !== "queued") {
      timing.endMs = at;
      timing.status = status;
    }
    return at;
  }

  streamEnd(): void {
    this.timings.streamEndMs ??= this.elapsed();
  }

  /** Closes the round and computes the time saved versus starting tools after the stream. */
  end(): RoundTimings {
    const t = this.timings;
    t.endMs = this.elapsed();
    const saved = savedMsOf(t);
    if (saved !== undefined) t.savedMs = saved;
    return t;
  }
}

function round2(ms: number): number {
  return Math.round(ms * 100) / 100;
}
