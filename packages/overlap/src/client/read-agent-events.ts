/**
 * The reading half of the client: the body of an SSE response in, validated
 * {@link AgentEvent}s with their ids out. Framing is the runtime's own {@link SseDecoder}, the one
 * the server's side and the providers use; bytes are decoded with a streaming TextDecoder, so a
 * character split across network chunks (Chinese text, emoji) arrives whole. Heartbeat comments
 * are ignored; frames that are not valid events are skipped and counted (see
 * {@link parseAgentEvent}). An event may not grow past a size limit while it is received, so a
 * never-ending line cannot grow memory without end.
 */

import { OverlapError } from "../errors.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import { SseDecoder, type SseFrame } from "../sse/sse-decoder.js";
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
  // ignoreBOM: a leading byte order mark reaches the SSE decoder, which strips exactly one (spec).
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  // The decoder calls back synchronously from push(); frames wait here until the loop yields them.
  const frames: SseFrame[] = [];
  const sse = new SseDecoder(
    (frame) => frames.push(frame),
    undefined,
    options.maxEventChars === undefined ? {} : { maxEventChars: options.maxEventChars },
  );
  // Past the limit the decoder throws after dispatching the frames the chunk completed before the
  // oversized event: those still go out, then the error ends the read.
  let limit: OverlapError | undefined;
  const feed = (text: string) => {
    try {
      sse.push(text);
    } catch (err) {
      if (!(err instanceof OverlapError)) throw err;
      limit = err;
    }
  };
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
      if (chunk.done) {
        ended = true;
        feed(decoder.decode());
      } else {
        feed(decoder.decode(chunk.value, { stream: true }));
      }
      for (const frame of frames.splice(0)) {
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
