/**
 * overlap-runtime/redis: turn event logs in Redis Streams, as an option beside the database's
 * table (which needs no Redis). Give the transport to the store:
 * `openPostgresStore(pool, { events: { transport: redisTurnEvents(redis) } })`.
 */

export type { NumberedEvent, TurnEventTransport } from "./durable-turn-events.js";
export {
  type RedisCallLike,
  type RedisTurnEventsOptions,
  redisTurnEvents,
} from "./redis-turn-events.js";
