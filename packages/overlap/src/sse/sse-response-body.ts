/**
 * The body of an SSE response (resumable with `Last-Event-ID`) as a web-standard ReadableStream: logged events as
 * frames with ids, and a heartbeat comment whenever the stream has been quiet for a while, so
 * proxies keep the connection open. Cancelling the body (the browser left) stops reading only.
 */

import { encodeAgentEvent, encodeSseComment } from "./sse-encoder.js";
import type { LoggedEvent } from "./turn-event-log.js";

/** Options of {@link sseResponseBody}. */
export interface SseResponseBodyOptions {
  /** Milliseconds of silence before a heartbeat comment. Default 15 s. */
  heartbeatMs?: number;
  /** Suggested reconnection delay sent first (`retry:`), in ms. */
  retryMs?: number;
}

/** Encodes logged events as an SSE byte stream. */
export function sseResponseBody(
  entries: (signal: AbortSignal) => AsyncIterable<LoggedEvent>,
  options: SseResponseBodyOptions = {},
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const controller = new AbortController();
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  let timer: ReturnType<typeof setInterval> | undefined;
  // Once the reader cancelled, the stream refuses writes: nothing more is enqueued.
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(stream) {
      let lastWrite = Date.now();
      const write = (text: string) => {
        if (!open) return;
        lastWrite = Date.now();
        stream.enqueue(encoder.encode(text));
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
          for await (const { id, event } of entries(controller.signal))
            write(encodeAgentEvent(event, id));
          if (open) stream.close();
        } catch (err) {
          if (open) stream.error(err);
        } finally {
          open = false;
          clearInterval(timer);
        }
      })();
    },
    cancel() {
      open = false;
      clearInterval(timer);
      controller.abort();
    },
  });
}
