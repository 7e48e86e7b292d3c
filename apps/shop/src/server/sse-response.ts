/**
 * A turn's events as an SSE response: the log's entries after `lastEventId`, then the
 * live rest, each frame with its id, heartbeats while quiet. Proxies are asked not to buffer.
 * Closing the response (the browser left) stops this reader only; the turn goes on.
 *
 * One web stream from the log to the socket, overlap's `sseResponseBody` (the frames of one turn
 * of the event loop leave as one chunk). Whoever else must know when the response is over (the
 * open-stream gauge) asks {@link onSseClose} instead of wrapping the body in a stream of its own.
 */

import { sseResponseBody } from "overlap-runtime";
import type { TurnView } from "./turn-view.js";

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

/** The close listeners of the bodies {@link sseResponse} made, until each is over. */
const closeListeners = new WeakMap<ReadableStream<Uint8Array>, (() => void)[]>();

/** The body of each response {@link sseResponse} made. */
const bodies = new WeakMap<Response, ReadableStream<Uint8Array>>();

/**
 * The body of `response` when {@link sseResponse} made it, else `undefined`. Middleware asks
 * this before `response.body`: on the Node server, reading `body` of Hono's light response makes
 * a full web Response of it.
 */
export function sseBodyOf(response: Response): ReadableStream<Uint8Array> | undefined {
  return bodies.get(response);
}

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
  const listeners: (() => void)[] = options.onClose ? [options.onClose] : [];
  const body = sseResponseBody((signal) => log.read(lastEventId, signal), {
    retryMs: RETRY_MS,
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    onClose: () => {
      closeListeners.delete(body);
      for (const listener of listeners.splice(0)) listener();
    },
  });
  closeListeners.set(body, listeners);
  const response = new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
      "x-turn-id": log.turnId,
    },
  });
  bodies.set(response, body);
  return response;
}
