/**
 * A turn's events as an SSE response: the log's entries after `lastEventId`, then the
 * live rest, each frame with its id, heartbeats while quiet. Proxies are asked not to buffer.
 * Closing the response (the browser left) stops this reader only; the turn goes on. Frames
 * written in the same turn of the event loop (a tool call's start, its arguments and its status)
 * leave in one socket write: see {@link coalesceChunks}.
 */

import { sseResponseBody } from "overlap-runtime";
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

/** The response streaming `log` from after `lastEventId` (from its start when absent). */
export function sseResponse(
  log: Pick<TurnView, "turnId" | "read">,
  lastEventId: string | undefined,
  options: SseResponseOptions = {},
): Response {
  const body = sseResponseBody((signal) => log.read(lastEventId, signal), {
    retryMs: RETRY_MS,
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
  });
  return new Response(coalesceChunks(body, options.onClose), {
    status: 200,
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
      "x-turn-id": log.turnId,
    },
  });
}

/** A batch this large is sent at once, without waiting for the end of the turn of the loop. */
const MAX_BATCH_BYTES = 64 * 1024;

/**
 * `stream` with the chunks that arrive in the same turn of the event loop joined into one, sent
 * once that turn is over (`setImmediate`): one write, one HTTP chunk and one syscall for a burst
 * of frames instead of one each, and no frame waits for a later one. Cancelling the result
 * cancels `stream`. `onClose` is called once, when `stream` ended or failed or the result was
 * cancelled, whichever comes first.
 */
export function coalesceChunks(
  stream: ReadableStream<Uint8Array>,
  onClose?: () => void,
): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  let over = false;
  const ended = () => {
    if (over) return;
    over = true;
    onClose?.();
  };
  let parts: Uint8Array[] = [];
  let bytes = 0;
  let scheduled = false;
  let closed = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const flush = () => {
        scheduled = false;
        if (closed || parts.length === 0) return;
        const chunk = parts.length === 1 ? (parts[0] as Uint8Array) : join(parts, bytes);
        parts = [];
        bytes = 0;
        controller.enqueue(chunk);
      };
      void (async () => {
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            parts.push(value);
            bytes += value.byteLength;
            // A source that never pauses must not grow the batch without bound.
            if (bytes >= MAX_BATCH_BYTES) flush();
            else if (!scheduled) {
              scheduled = true;
              setImmediate(flush);
            }
          }
          flush();
          if (!closed) controller.close();
        } catch (err) {
          if (!closed) controller.error(err);
        } finally {
          closed = true;
          ended();
        }
      })();
    },
    cancel(reason) {
      closed = true;
      ended();
      return reader.cancel(reason);
    },
  });
}

function join(parts: readonly Uint8Array[], bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
