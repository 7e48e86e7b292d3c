/**
 * Writing a turn's events to a transport other than the database (Redis Streams) through an
 * outage: a batch that fails is sent again after growing delays (in order: the writer sends one
 * batch at a time, and the events that come meanwhile wait for the next); once the delays are
 * spent, the turn's events go to the database's table from that batch on, and the turn's row
 * says from which seq (`table_from`), so readers on every instance find them there.
 */

import type { DurableTables } from "./durable-schema.js";
import type { SqlExecutor } from "./sql-driver.js";
import type { NumberedEvent, TurnEventTransport } from "./turn-event-transport.js";

/** The default delays before each new attempt, in ms: about three seconds in all. */
export const TRANSPORT_RETRY_MS: readonly number[] = [100, 200, 400, 800, 1_600];

/** Appends `events`, again after each of `delaysMs` while it fails; throws the last failure. */
export async function appendWithRetries(
  transport: TurnEventTransport,
  turnId: string,
  events: readonly NumberedEvent[],
  delaysMs: readonly number[],
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await transport.append(turnId, events);
      return;
    } catch (error) {
      const delay = delaysMs[attempt];
      if (delay === undefined) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** Marks the turn's events from `seq` on as kept in the table (the first mark stays). */
export async function markTableFrom(
  db: SqlExecutor,
  t: DurableTables,
  turnId: string,
  seq: number,
): Promise<void> {
  await db.query(`UPDATE ${t.turns} SET table_from = ? WHERE turn_id = ? AND table_from IS NULL`, [
    seq,
    turnId,
  ]);
}
