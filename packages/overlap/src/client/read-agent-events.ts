/**
 * The reading half of the client: the body of an SSE response in, validated
 * {@link AgentEvent}s with their ids out. Framing is the runtime's own {@link SseByteReader}, the one
 * the server's side and the providers use; bytes are decoded across chunks, so a character split
 * across network chunks (Chinese text, emoji) arrives whole. Heartbeat comments
 * are ignored; frames that are not valid events are skipped and counted (see
 * {@link parseAgentEvent}). An event may not grow past a size limit while it is received, so a
 * never-ending line cannot grow memory without end.
 */

import type { AgentEvent } from "../protocol/agent-event.js";
import { SseByteReader } from "../sse/sse-byte-reader.js";
import { parseAgentEvent } from "./parse-agent-event.js";

/** One event as received: its SSE id (for `Last-Event-ID` and de-duplication) and the event. */
export interface ReceivedEvent {
  /** The frame's `id:`, or `undefined` when the server sent none (such events cannot be deduplicated). */
  readonly id: string | undefined;
  readonly event: AgentEvent;
}

/** What one read saw, returned when the generator finishes. */
export interface ReadSummary {
  /** Events yielded. */
  events: number;
  /** Frames skipped because their data was not a valid event of a known type. */
  skipped: number;
}

/** Options of {@link readAgentEvents}. */
export interface ReadAgentEventsOptions {
  /**
   * The most characters an SSE event may take while it is received (its lines, as
   * `SseDecoderOptions.maxEventChars` counts them); default 8 Mi.
   */
  maxEventChars?: number;
}

/**
 * Reads `body` to its end (or until `signal` aborts, or the consumer stops iterating), yielding
 * each valid event as soon as its frame is complete. An unterminated last frame (the connection
 * dropped mid-frame) is discarded: its id was never applied, so a resume replays it.
 * @returns a {@link ReadSummary} (also when aborted).
 * @throws what the body's stream throws (a network error): the caller decides whether to resume;
 *   OverlapError `limit_exceeded` when an event passes `maxEventChars` (after the events before
 *   it; the body is cancelled). A resume would replay that event: the turn cannot be followed.
 */
export async function* readAgentEvents(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
  options: ReadAgentEventsOptions = {},
): AsyncGenerator<ReceivedEvent, ReadSummary, undefined> {
  const summary: ReadSummary = { events: 0, skipped: 0 };
  if (signal?.aborted) {
    await body.cancel(signal.reason).catch(() => {});
    return summary;
  }
  const reader = body.getReader();
  // Past the limit the frames the chunk completed before the oversized event still go out, then
  // the limit ends the read.
  const sse = new SseByteReader(
    options.maxEventChars === undefined ? {} : { maxEventChars: options.maxEventChars },
  );
  // Cancelling the reader ends a pending read() at once, so an abort never waits for the network.
  const cancel = () => {
    reader.cancel(signal?.reason).catch(() => {});
  };
  signal?.addEventListener("abort", cancel, { once: true });
  let ended = false;
  try {
    while (!ended) {
      const chunk = await reader.read();
      if (signal?.aborted) return summary;
      if (chunk.done) ended = true;
      const { frames, limit } = sse.read(chunk.done ? undefined : chunk.value);
      for (const frame of frames) {
        const event = parseAgentEvent(frame.data);
        if (event === undefined) {
          summary.skipped++;
          continue;
        }
        summary.events++;
        yield { id: frame.id, event };
        if (signal?.aborted) return summary;
      }
      if (limit) throw limit;
    }
    return summary;
  } catch (err) {
    if (signal?.aborted) return summary;
    throw err;
  } finally {
    signal?.removeEventListener("abort", cancel);
    // The consumer stopped early (or we were aborted): release the connection too.
    if (!ended) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
