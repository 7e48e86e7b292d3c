/**
 * Writes paced frames to a response: each at `start + atMs` (absolute, so slow writes never add
 * up), honouring back-pressure, the `error-after` / `drop-after` faults and a client that leaves.
 */

import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { WireFrame } from "./wire-frame.js";

/** Options of {@link writeFrames}. */
export interface WriteFramesOptions {
  /** Aborted when the client disconnects or the server closes: writing stops. */
  signal: AbortSignal;
  /** After this many frames, write `errorFrame` and end the response. */
  errorAfter?: number | undefined;
  errorFrame: string | Uint8Array;
  /** After this many frames, destroy the connection: no terminator, no error. */
  dropAfter?: number | undefined;
}

/** How a stream ended. */
export type StreamEnding = "complete" | "error" | "dropped" | "aborted";

/**
 * Writes `frames` (sorted by time) and ends the response. A fault fires at the time the next frame
 * was due, as if generation failed there; a count beyond the last frame never fires.
 */
export async function writeFrames(
  res: ServerResponse,
  frames: readonly WireFrame[],
  options: WriteFramesOptions,
): Promise<StreamEnding> {
  const { signal } = options;
  if (signal.aborted) return "aborted";
  const start = performance.now();
  // One timer and one abort listener for the whole stream, not a promise, a timer and a listener
  // per frame (a stream is dozens of paced frames, and a busy server runs hundreds at once).
  let wake: (() => void) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    wake?.();
  };
  signal.addEventListener("abort", onAbort, { once: true });
  const until = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(() => {
        timer = undefined;
        resolve();
      }, ms);
    });
  // Only a drop waits for what was written to leave: other streams need no write callbacks.
  let flushed: Promise<void> = Promise.resolve();
  try {
    for (const [n, frame] of frames.entries()) {
      const wait = start + frame.atMs - performance.now();
      if (wait > 0.5) await until(wait);
      if (signal.aborted || res.destroyed) return "aborted";
      if (options.dropAfter !== undefined && n >= options.dropAfter) {
        // What was written reaches the client before the cut, as it would on a real connection.
        await flushed;
        res.destroy();
        return "dropped";
      }
      if (options.errorAfter !== undefined && n >= options.errorAfter) {
        res.end(options.errorFrame);
        return "error";
      }
      const chunk = frame.bytes ?? frame.text;
      let more: boolean;
      if (options.dropAfter === undefined) more = res.write(chunk);
      else {
        let written = (): void => {};
        flushed = new Promise((resolve) => {
          written = resolve;
        });
        more = res.write(chunk, () => written());
      }
      if (!more) await drained(res, signal);
    }
    if (signal.aborted || res.destroyed) return "aborted";
    res.end();
    return "complete";
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  }
}

function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      res.off("close", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Waits `ms` unless aborted first; true when the wait completed. */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (ms <= 0) return !signal.aborted;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
