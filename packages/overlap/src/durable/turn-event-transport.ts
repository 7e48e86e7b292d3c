/**
 * Where a turn's numbered events are kept when not in the database's table: the interface a
 * transport (Redis Streams, `redisTurnEvents`) gives `DurableTurnEvents`.
 */

import type { AgentEvent } from "../protocol/agent-event.js";

/** One numbered event of a turn. */
export interface NumberedEvent {
  seq: number;
  event: AgentEvent;
}

/**
 * Where a turn's events are kept when not in the database (`redisTurnEvents`: Redis Streams). An
 * event whose seq is taken already must be dropped, never overwrite the one there.
 */
export interface TurnEventTransport {
  /** Appends events in seq order. */
  append(turnId: string, events: readonly NumberedEvent[]): Promise<void>;
  /** Up to `limit` events after `seq`, in order. */
  after(turnId: string, seq: number, limit: number): Promise<NumberedEvent[]>;
  /** The last seq written (0 for none). */
  last(turnId: string): Promise<number>;
}
