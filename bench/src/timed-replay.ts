/**
 * A fake provider for latency benchmarks: stream events with planned arrival times, replayed
 * against absolute deadlines (round start + offset), so a late timer delays one event instead of
 * shifting every event after it. Each event's real arrival time is reported to the caller, so a
 * benchmark can compute its bounds from what actually happened rather than from the plan.
 */

import { performance } from "node:perf_hooks";
import type { StreamEvent } from "../../packages/overlap/src/stream/stream-event.js";
import { mulberry32 } from "../../packages/overlap/src/testing/replay.js";

/** An event and when it should reach the consumer, in ms after the round start. */
export interface TimedEvent {
  atMs: number;
  event: StreamEvent;
}

/** How a simulated model paces its output. */
export interface PaceOptions {
  /** Seed of the gap sequence: the same seed gives the same schedule. */
  seed: number;
  /** Smallest gap before a delta that carries content, in ms. */
  minGapMs: number;
  /** Largest gap before a delta that carries content, in ms. */
  maxGapMs: number;
  /** When `message_start` arrives (time to first event). Default 0. */
  firstEventMs?: number;
}

/**
 * Plans arrival times the way a streaming model delivers them: every delta that carries content
 * (text or argument characters) comes one generation step after the previous event, a step being
 * a pseudo-random gap in [minGapMs, maxGapMs]; `message_delta` (final usage) takes one more step.
 * Structural events (block start and stop, the empty delta that opens a tool block, message_stop)
 * ride on the same network read as the event before them, so they get the same time.
 */
export function paceEvents(events: readonly StreamEvent[], options: PaceOptions): TimedEvent[] {
  const random = mulberry32(options.seed);
  const span = options.maxGapMs - options.minGapMs;
  let at = options.firstEventMs ?? 0;
  return events.map((event, index) => {
    if (index > 0 && takesAStep(event)) at += options.minGapMs + random() * span;
    return { atMs: at, event };
  });
}

function takesAStep(event: StreamEvent): boolean {
  if (event.type === "message_delta") return true;
  if (event.type !== "content_block_delta") return false;
  const delta = event.delta;
  if (delta.type === "input_json_delta") return delta.partial_json !== "";
  return true;
}

/** Called as each event is handed to the consumer, with the time (`performance.now()`). */
export type ArrivalListener = (index: number, event: StreamEvent, atMs: number) => void;

/**
 * Replays `events` as an async stream: event i is yielded once `t0 + events[i].atMs` has passed
 * (never by sleeping a fixed delay per event). Events whose time has already come are yielded
 * without touching a timer. `onArrival` learns when each event was actually yielded.
 */
export async function* timedReplay(
  events: readonly TimedEvent[],
  t0: number,
  onArrival?: ArrivalListener,
): AsyncGenerator<StreamEvent> {
  for (let i = 0; i < events.length; i++) {
    const { atMs, event } = events[i]!;
    const wait = t0 + atMs - performance.now();
    if (wait > 0) await sleep(wait);
    onArrival?.(i, event, performance.now());
    yield event;
  }
}

/** Waits `ms` milliseconds; rejects with the signal's reason if it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
