/**
 * Per-round timings: when each block streamed and when each tool ran, in milliseconds
 * since the round started, so a timeline can draw them on one axis.
 */

/** When one content block streamed. */
export interface BlockTiming {
  index: number;
  kind: string;
  /** The call id for tool_use / server_tool_use blocks. */
  callId?: string;
  name?: string;
  startMs: number;
  stopMs?: number;
}

/** When one tool ran. */
export interface ToolTiming {
  callId: string;
  name: string;
  /** When its arguments were complete (block stop) or, for late starts, when collect saw it. */
  readyMs: number;
  startMs?: number;
  endMs?: number;
  status?: string;
  /**
   * The sequence its tool runs in (calls of one sequence run one at a time, in call order): the
   * time saved reckons them one after another.
   */
  sequence?: string;
}

/** Everything measured about one round. */
export interface RoundTimings {
  /** Absolute start (ms since the epoch), to place rounds on a wall clock. */
  startedAt: number;
  /** First event from the provider. */
  firstEventMs?: number;
  /**
   * First content block started (text, thinking or a tool call): the model's time to first
   * token. Absent when the round produced no content, or when the host cannot see the request
   * go out (the whole-response path).
   */
  firstTokenMs?: number;
  /** First tool started. */
  firstToolStartMs?: number;
  /** The provider's stream ended. */
  streamEndMs?: number;
  /** All tools joined and results are ready. */
  endMs?: number;
  blocks: BlockTiming[];
  tools: ToolTiming[];
  /**
   * The time the overlap saved: when the round would have been ready had every tool that started
   * during the stream started only when the stream ended (all in parallel, each taking as long as
   * it did), minus when it was ready (the stream's end or the last tool's, whichever is later).
   * Never negative; 0 when no tool started before the stream ended (deferred calls, calls that
   * waited for approval, the whole-response path). Absent when no tool ran. See {@link savedMsOf}.
   */
  savedMs?: number;
}

/**
 * The time saved by starting tools while the model still streamed, versus waiting for the end of
 * the response: for each tool that ran, its start moved to the stream's end when it started
 * earlier (a tool that started later, e.g. after an approval, keeps its start), then the latest
 * end of that schedule minus the latest real end, both at least the stream's end. Calls that failed
 * or were cancelled keep their real times, so only a call that succeeded early can save time. Calls
 * of one sequence (see {@link ToolTiming.sequence}) run one after another in that schedule too.
 * Never negative.
 * `undefined` when the stream did not end or no tool ran (started and ended).
 */
export function savedMsOf(
  timings: Pick<RoundTimings, "streamEndMs" | "tools">,
): number | undefined {
  const streamEnd = timings.streamEndMs;
  if (streamEnd === undefined) return undefined;
  let ran = false;
  let readyAt = streamEnd;
  let waitingReadyAt = streamEnd;
  // Where each sequence's last call ends in the waiting schedule: its next call starts after it.
  const sequenceEnds = new Map<string, number>();
  const byStart = timings.tools
    .filter((t) => t.startMs !== undefined && t.endMs !== undefined)
    .sort((a, b) => (a.startMs as number) - (b.startMs as number));
  for (const tool of byStart) {
    const startMs = tool.startMs as number;
    const endMs = tool.endMs as number;
    ran = true;
    readyAt = Math.max(readyAt, endMs);
    // Only a call that succeeded moves to the stream's end in the waiting schedule: a call that
    // failed or was cancelled (the stream broke, its turn was stopped) produced nothing to be
    // early with, so it keeps its real times and can never show as time saved.
    let start = succeeded(tool) ? Math.max(streamEnd, startMs) : startMs;
    if (tool.sequence !== undefined) {
      start = Math.max(start, sequenceEnds.get(tool.sequence) ?? start);
      sequenceEnds.set(tool.sequence, start + endMs - startMs);
    }
    waitingReadyAt = Math.max(waitingReadyAt, start + endMs - startMs);
  }
  if (!ran) return undefined;
  return Math.max(0, Math.round((waitingReadyAt - readyAt) * 100) / 100);
}

/** A tool's end counts as a success unless its state says it failed or was cancelled. */
function succeeded(tool: ToolTiming): boolean {
  return tool.status !== "failed" && tool.status !== "cancelled";
}
