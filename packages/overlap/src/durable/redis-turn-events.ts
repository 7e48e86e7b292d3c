/**
 * Turn events in Redis Streams instead of the database's table: one stream per turn, entry ids
 * `0-<seq>`, so a reader resumes after any event with one XRANGE, and an entry whose id is taken
 * (a late write of a writer presumed dead) is refused by Redis itself. Every stream expires
 * `retainMs` after its last write. The turns' lifecycle (started, ended, leases) stays in the
 * database: give it as `events.transport` of the store. The client is the user's (`ioredis`, an
 * optional peer dependency; anything with its `call` works); nothing here imports it.
 */

import type { AgentEvent } from "../protocol/agent-event.js";
import type { NumberedEvent, TurnEventTransport } from "./turn-event-transport.js";

/** What the transport uses of a Redis client: ioredis's generic `call`. */
export interface RedisCallLike {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
}

/** Options of {@link redisTurnEvents}. */
export interface RedisTurnEventsOptions {
  /** Put in front of every key. Default `overlap:`. */
  keyPrefix?: string;
  /** How long a turn's stream is kept after its last write, in ms. Default 15 minutes. */
  retainMs?: number;
}

/** Turn events in Redis Streams (see the module's note). */
export function redisTurnEvents(
  redis: RedisCallLike,
  options: RedisTurnEventsOptions = {},
): TurnEventTransport {
  const prefix = options.keyPrefix ?? "overlap:";
  const retainMs = options.retainMs ?? 15 * 60_000;
  const key = (turnId: string) => `${prefix}turn-events:${turnId}`;
  const entries = (reply: unknown): NumberedEvent[] =>
    (reply as [string, string[]][]).map(([id, fields]) => ({
      seq: Number(id.slice(id.indexOf("-") + 1)),
      event: JSON.parse(fields[fields.indexOf("e") + 1] as string) as AgentEvent,
    }));
  return {
    async append(turnId, events) {
      // Sent together, executed in order on the one connection.
      const writes = events.map((entry) =>
        redis.call("XADD", key(turnId), `0-${entry.seq}`, "e", JSON.stringify(entry.event)),
      );
      const results = await Promise.allSettled(writes);
      await redis.call("PEXPIRE", key(turnId), retainMs);
      for (const result of results) {
        // An id not above the stream's last one: that seq is taken already, the entry is dropped.
        if (result.status === "rejected" && !/equal or smaller/i.test(String(result.reason))) {
          throw result.reason;
        }
      }
    },
    async after(turnId, seq, limit) {
      return entries(
        await redis.call("XRANGE", key(turnId), `(0-${seq}`, "+", "COUNT", Math.floor(limit)),
      );
    },
    async last(turnId) {
      return entries(await redis.call("XREVRANGE", key(turnId), "+", "-", "COUNT", 1))[0]?.seq ?? 0;
    },
  };
}
