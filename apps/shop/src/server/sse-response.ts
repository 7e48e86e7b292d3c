/**
 * A turn's events as an SSE response: the log's entries after `lastEventId`, then the
 * live rest, each frame with its id, heartbeats while quiet. Proxies are asked not to buffer.
 * Closing the response (the browser left) stops this reader only; the turn goes on.
 *
 * One web stream from the log to the socket: the frames logged in the same turn of the event loop
 * (a tool call's start, its arguments and its status) are joined as text and leave as one chunk,
 * encoded once, once that turn is over (`setImmediate`): one read by the server, one HTTP chunk and
 * one socket write for a burst of frames, and no frame waits for a later one. (It was overlap's
 * `sseResponseBody` under a coalescing stream and the metrics' counting stream: three streams, a
 * read and a promise per frame in each.) Whoever else must know when the response is over (the
 * open-stream gauge) asks {@link onSseClose} instead of wrapping the body in a stream of its own.
 */

import { encodeAgentEvent, type LoggedEvent } from "overlap-runtime";
import { encodeSseComment } from "overlap-runtime/core";
import type { TurnView } from "./turn-registry.js";

/** Options of {@link sseResponse}. */
export interface SseResponseOptions {
  /** Milliseconds of silence before a heartbeat comment (default 15 s). */
  heartbeatMs?: number;
  /**
   * Called once when the response is over, whichever way: the log ended, reading it failed, or
   * the body was cancelled (the client went away, or a write to its socket failed). A stream
   * limit's permit is released here.
   */
  onClose?: () => void;
}

/** The reconnection delay suggested to EventSource clients. */
const RETRY_MS = 1_000;

/** A batch this long (in UTF-16 units) is sent at once, without waiting for the end of the turn. */
const MAX_BATCH_CHARS = 64 * 1024;

/** The close listeners of the bodies {@link sseResponse} made, until each is over. */
const closeListeners = new WeakMap<ReadableStream<Uint8Array>, (() => void)[]>();

/**
 * Calls `listener` once when `body` (an {@link sseResponse}'s body) is over, as its `onClose`
 * is. False, and nothing registered, when `body` is not such a body or is over already.
 */
export function onSseClose(body: ReadableStream<Uint8Array>, listener: () => void): boolean {
  const listeners = closeListeners.get(body);
  if (!listeners) return false;
  listeners.push(listener);
  return true;
}

/** The response streaming `log` from after `lastEventId` (from its start when absent). */
export function sseResponse(
  log: Pick<TurnView, "turnId" | "read">,
  lastEventId: string | undefined,
  options: SseResponseOptions = {},
): Response {
  return new Response(
    sseBody((signal) => log.read(lastEventId, signal), options),
    {
      status: 200,
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        "x-accel-buffering": "no",
        "x-turn-id": log.turnId,
      },
    },
  );
}

/**
 * The body: `retry:` first, then each entry as a frame, the frames of one turn of the event loop
 * in one chunk, and a heartbeat comment whenever nothing was written for `heartbeatMs`.
 */
function sseBody(
  entries: (signal: AbortSignal) => AsyncIterable<LoggedEvent>,
  options: SseResponseOptions = {},
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const reading = new AbortController();
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const listeners: (() => void)[] = options.onClose ? [options.onClose] : [];
  let timer: ReturnType<typeof setInterval> | undefined;
  let open = true;
  let pending = "";
  let scheduled = false;
  // Once over (ended, failed or cancelled), nothing more is enqueued and the listeners are told.
  const over = () => {
    if (!open) return;
    open = false;
    clearInterval(timer);
    closeListeners.delete(body);
    for (const listener of listeners.splice(0)) listener();
  };
  const body: ReadableStream<Uint8Array> = new ReadableStream<Uint8Array>({
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
          setImmediate(flush);
        }
      };
      write(`retry: ${RETRY_MS}\n\n`);
      timer = setInterval(
        () => {
          if (Date.now() - lastWrite >= heartbeatMs) write(`${encodeSseComment("heartbeat")}\n`);
        },
        Math.max(10, Math.floor(heartbeatMs / 2)),
      );
      void (async () => {
        try {
          for await (const { id, event } of entries(reading.signal)) {
            write(encodeAgentEvent(event, id));
          }
          flush();
          if (open) stream.close();
        } catch (err) {
          if (open) stream.error(err);
        } finally {
          over();
        }
      })();
    },
    cancel() {
      over();
      reading.abort();
    },
  });
  closeListeners.set(body, listeners);
  return body;
}
