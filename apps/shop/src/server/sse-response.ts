/**
 * A turn's events as an SSE response (S12, B9): the log's entries after `lastEventId`, then the
 * live rest, each frame with its id, heartbeats while quiet. Proxies are asked not to buffer.
 * Closing the response (the browser left) stops this reader only; the turn goes on.
 */

import { sseResponseBody } from "overlap-runtime";
import type { TurnView } from "./turn-registry.js";

/** Options of {@link sseResponse}. */
export interface SseResponseOptions {
  /** Milliseconds of silence before a heartbeat comment (default 15 s). */
  heartbeatMs?: number;
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
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
      "x-turn-id": log.turnId,
    },
  });
}
