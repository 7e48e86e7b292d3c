/**
 * Retention of turn event logs: a turn's log is a resumption buffer (a reader that lost its
 * connection resumes from its last event id; a page reload shows the stored conversation, not the
 * log), so once a turn ended long enough ago its rows are deleted. These are the statements; the
 * schedule and the ending a reader of a deleted log gets are in `DurableTurnEvents`.
 */

import type { DurableTables } from "./durable-schema.js";
import type { SqlDriver } from "./sql-driver.js";

/** Options of `DurableStore.pruneEndedTurns`. */
export interface PruneEndedTurnsOptions {
  /**
   * Deletes the turns that ended longer ago than this, in ms. Default the store's
   * `events.retainEndedMs` (15 minutes unless configured).
   */
  olderThanMs?: number;
  /** Turns deleted per transaction. Default 50: a batch holds SQLite's write lock only briefly. */
  batchSize?: number;
}

/** What one pruning did. */
export interface PrunedTurns {
  /** Turn rows deleted. */
  turns: number;
  /** Event rows deleted (none when the events are kept elsewhere, as in Redis). */
  events: number;
  /**
   * Turns of dead instances that nobody had ended (no reader came), ended now as a reader ends
   * them (`turn_crashed`, `done`): deleted by a later pruning, once they too ended long enough ago.
   */
  ended: number;
}

/**
 * Ends the dead turns nobody ended (with `endCrashed`, as a reader does), then deletes the turns
 * that ended more than `olderThanMs` before `now`, their events with them unless `events` is
 * false (they are kept elsewhere).
 */
export async function pruneEndedTurns(
  driver: SqlDriver,
  t: DurableTables,
  options: {
    olderThanMs: number;
    batchSize: number;
    now: number;
    events: boolean;
    endCrashed: (chatId: string, turnId: string) => Promise<boolean>;
  },
): Promise<PrunedTurns> {
  const { olderThanMs, batchSize, now } = options;
  if (!(olderThanMs >= 0 && Number.isFinite(olderThanMs))) return { turns: 0, events: 0, ended: 0 };
  const cutoff = now - olderThanMs;
  let ended = 0;
  for (const dead of await deadTurns(driver, t, cutoff, now, batchSize)) {
    if (await options.endCrashed(dead.chatId, dead.turnId)) ended++;
  }
  const deleted = await deleteEndedTurns(driver, t, cutoff, { batchSize, events: options.events });
  return { ...deleted, ended };
}

/**
 * Turns that never ended, started before `cutoff`, whose lease no longer names them or expired:
 * their instance died, or a later turn took the chat over. Oldest first, at most `limit`.
 */
async function deadTurns(
  driver: SqlDriver,
  t: DurableTables,
  cutoff: number,
  now: number,
  limit: number,
): Promise<{ chatId: string; turnId: string }[]> {
  const { rows } = await driver.query<{ conversation_id: string; turn_id: string }>(
    `SELECT conversation_id, turn_id FROM ${t.turns} AS tu
     WHERE tu.ended_at IS NULL AND tu.started_at < ? AND NOT EXISTS (
       SELECT 1 FROM ${t.leases} AS l
       WHERE l.conversation_id = tu.conversation_id AND l.turn_id = tu.turn_id AND l.expires_at > ?
     )
     ORDER BY tu.started_at LIMIT ${Math.floor(limit)}`,
    [cutoff, now],
  );
  return rows.map((row) => ({ chatId: row.conversation_id, turnId: row.turn_id }));
}

/**
 * Deletes the turns that ended before `cutoff`, with their events unless `events` is false, in
 * batches of `batchSize` turns, each batch in one transaction (a turn's rows go together).
 */
async function deleteEndedTurns(
  driver: SqlDriver,
  t: DurableTables,
  cutoff: number,
  { batchSize, events }: { batchSize: number; events: boolean },
): Promise<{ turns: number; events: number }> {
  const size = Math.max(1, Math.floor(batchSize));
  const deleted = { turns: 0, events: 0 };
  for (;;) {
    const { rows } = await driver.query<{ turn_id: string }>(
      `SELECT turn_id FROM ${t.turns} WHERE ended_at < ? ORDER BY ended_at LIMIT ${size}`,
      [cutoff],
    );
    if (rows.length === 0) return deleted;
    const ids = rows.map((row) => row.turn_id);
    const list = ids.map(() => "?").join(", ");
    await driver.transaction(async (tx) => {
      if (events) {
        deleted.events += (
          await tx.query(`DELETE FROM ${t.events} WHERE turn_id IN (${list})`, ids)
        ).changes;
      }
      deleted.turns += (
        await tx.query(`DELETE FROM ${t.turns} WHERE turn_id IN (${list})`, ids)
      ).changes;
    });
    if (rows.length < size) return deleted;
    // Between batches, the host's own statements get their turn.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
