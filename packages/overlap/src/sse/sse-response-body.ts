/**
 * The body of an SSE response (resumable with `Last-Event-ID`) as a web-standard ReadableStream: logged events as
 * frames with ids, and a heartbeat comment whenever the stream has been quiet for a while, so
 * proxies keep the connection open. Cancelling the body (the browser left) stops reading only.
 *
 * The frames written in the same turn of the event loop (a tool call's start, its arguments and
 * its status) are joined as text and leave as one chunk, encoded once, when that turn is over:
 * one read by the server, one HTTP chunk and one socket write for a burst of frames, and no frame
 * waits for a later one.
 */

import { encodeAgentEvent, encodeSseComment } from "./sse-encoder.js";
import type { LoggedEvent } from "./turn-event-log.js";

/** Options of {@link sseResponseBody}. */
export interface SseResponseBodyOptions {
  /** Milliseconds of silence before a heartbeat comment. Default 15 s. */
  heartbeatMs?: number;
  /** Suggested reconnection delay sent first (`retry:`), in ms. */
  retryMs?: number;
  /** Called once when the body is over: its events ended, its source failed, or it was cancelled. */
  onClose?: () => void;
}

/** A batch this long (in UTF-16 units) is sent at once, without waiting for the end of the turn. */
const MAX_BATCH_CHARS = 64 * 1024;

/** Runs `task` once the current turn of the event loop is over (where there is no setImmediate, a timer). */
const afterThisTurn: (task: () => void) => void =
  typeof setImmediate === "function" ? (task) => setImmediate(task) : (task) => setTimeout(task, 0);

/** Encodes logged events as an SSE byte stream. */
export function sseResponseBody(
  entries: (signal: AbortSignal) => AsyncIterable<LoggedEvent>,
  options: SseResponseBodyOptions = {},
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const reading = new AbortController();
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  let timer: ReturnType<typeof setInterval> | undefined;
  // Once over (ended, failed or cancelled), nothing more is enqueued and `onClose` is told.
  let open = true;
  let pending = "";
  let scheduled = false;
  /** The source's failure, once it failed: the stream errors once what was written is read. */
  let failure: { error: unknown } | undefined;
  const fail = (stream: ReadableStreamDefaultController<Uint8Array>, error: unknown) => {
    over();
    stream.error(error);
  };
  const over = () => {
    if (!open) return;
    open = false;
    clearInterval(timer);
    options.onClose?.();
  };
  return new ReadableStream<Uint8Array>({
    start(stream) {
      let lastWrite = Date.now();
      const flush = () => {
        scheduled = false;
        if (!open || pending === "") return;
        const text = pending;
        pending = "";
        stream.enqueue(encoder.encode(text));
      };
      const write = (text: string) => {
        if (!open) return;
        lastWrite = Date.now();
        pending += text;
        // A source that never pauses must not grow the batch without bound.
        if (pending.length >= MAX_BATCH_CHARS) flush();
        else if (!scheduled) {
          scheduled = true;
          afterThisTurn(flush);
        }
      };
      if (options.retryMs !== undefined) write(`retry: ${options.retryMs}\n\n`);
      timer = setInterval(
        () => {
          if (Date.now() - lastWrite >= heartbeatMs) write(`${encodeSseComment("heartbeat")}\n`);
        },
        Math.max(10, Math.floor(heartbeatMs / 2)),
      );
      void (async () => {
        try {
          for await (const { id, event } of entries(reading.signal))
            write(encodeAgentEvent(event, id));
          flush();
          if (open) stream.close();
        } catch (error) {
          if (!open) return;
          // Erroring a stream drops its queue: the frames written before the failure are sent
          // first, and the stream errors at the next pull, once they were read.
          flush();
          failure = { error };
          if ((stream.desiredSize ?? 0) > 0) fail(stream, error);
        } finally {
          if (!failure) over();
        }
      })();
    },
    pull(stream) {
      if (failure && open) fail(stream, failure.error);
    },
    cancel() {
      over();
      reading.abort();
    },
  });
}
