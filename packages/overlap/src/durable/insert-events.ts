/**
 * A turn's events in the database's `turn_events` table: the last seq written, and inserts in
 * chunks that never overwrite an event whose seq is taken.
 */

import type { AgentEvent } from "../protocol/agent-event.js";
import type { DurableTables } from "./durable-schema.js";
import type { SqlExecutor } from "./sql-driver.js";

/** The last seq of the turn's events in the table (0 for none). */
export async function lastSeq(tx: SqlExecutor, t: DurableTables, turnId: string): Promise<number> {
  const { rows } = await tx.query<{ last: number | string | null }>(
    `SELECT MAX(seq) AS last FROM ${t.events} WHERE turn_id = ?`,
    [turnId],
  );
  return Number(rows[0]?.last ?? 0);
}

export async function insertEvents(
  db: SqlExecutor,
  t: DurableTables,
  turnId: string,
  events: readonly { seq: number; event: AgentEvent }[],
): Promise<void> {
  for (let i = 0; i < events.length; i += 300) {
    const chunk = events.slice(i, i + 300);
    const values: unknown[] = [];
    for (const { seq, event } of chunk) values.push(turnId, seq, JSON.stringify(event));
    // A dead-looking writer's late events never overwrite the crash end a reader wrote.
    await db.query(
      `INSERT INTO ${t.events} (turn_id, seq, event) VALUES ${chunk.map(() => "(?, ?, ?)").join(", ")}
       ON CONFLICT (turn_id, seq) DO NOTHING`,
      values,
    );
  }
}
