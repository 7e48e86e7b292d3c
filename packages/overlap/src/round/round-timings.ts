/**
 * Per-round timings (B11, B13): when each block streamed and when each tool ran, in milliseconds
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
}

/** Everything measured about one round. */
export interface RoundTimings {
  /** Absolute start (ms since the epoch), to place rounds on a wall clock. */
  startedAt: number;
  /** First event from the provider. */
  firstEventMs?: number;
  /** First tool started. */
  firstToolStartMs?: number;
  /** The provider's stream ended. */
  streamEndMs?: number;
  /** All tools joined and results are ready. */
  endMs?: number;
  blocks: BlockTiming[];
  tools: ToolTiming[];
  /**
   * Estimated end had the tools started only after the stream ended (all in parallel), minus
   * the real end: the time the overlap saved.
   */
  savedMs?: number;
}
