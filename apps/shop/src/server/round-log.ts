/**
 * One log line per round, at info: what the `round-end` event's timings say, in
 * milliseconds since the round started: the model's time to first token, when the first tool
 * started, when the stream ended and the round was ready, each tool's start and end, and the time
 * saved versus waiting for the end of the response. The line carries the same figures as the
 * event (`null` where the event has none), so a log and a browser's timeline never disagree.
 */

import type { AgentEvent } from "overlap-runtime";
import type { Logger } from "pino";

type RoundEnd = Extract<AgentEvent, { type: "round-end" }>;

/** The fields of a round's log line. */
export interface RoundLogFields {
  round: number;
  stopReason: string;
  /** Set for a delegated agent's round: its agent and the outer call it answers. */
  delegate?: { agent: string | null; parentCallId: string };
  firstTokenMs: number | null;
  firstToolStartMs: number | null;
  streamEndMs: number | null;
  endMs: number | null;
  savedMs: number | null;
  tools: Array<{
    callId: string;
    name: string;
    readyMs: number;
    startMs: number | null;
    endMs: number | null;
    status: string | null;
  }>;
  usage: { inputTokens: number | null; outputTokens: number | null };
}

/** The log line's fields for one `round-end` event. */
export function roundLogFields(event: RoundEnd): RoundLogFields {
  const t = event.timings;
  return {
    round: event.round,
    stopReason: event.stopReason,
    ...(event.parentCallId === undefined
      ? {}
      : { delegate: { agent: event.agent ?? null, parentCallId: event.parentCallId } }),
    firstTokenMs: t.firstTokenMs ?? null,
    firstToolStartMs: t.firstToolStartMs ?? null,
    streamEndMs: t.streamEndMs ?? null,
    endMs: t.endMs ?? null,
    savedMs: t.savedMs ?? null,
    tools: t.tools.map((tool) => ({
      callId: tool.callId,
      name: tool.name,
      readyMs: tool.readyMs,
      startMs: tool.startMs ?? null,
      endMs: tool.endMs ?? null,
      status: tool.status ?? null,
    })),
    usage: {
      inputTokens: event.usage.input_tokens ?? null,
      outputTokens: event.usage.output_tokens ?? null,
    },
  };
}

/** Writes the round's line (message `round`) to `log`, which carries the session and turn. */
export function logRound(log: Logger, event: RoundEnd): void {
  log.info(roundLogFields(event), "round");
}
