/**
 * The PostgreSQL adapter: the user's `pg` pool (or anything with its `query` and `connect`) as a
 * {@link SqlDriver}. `pg` is an optional peer dependency of overlap-runtime: nothing here imports
 * it; the pool is given.
 */

import {
  lockInTransaction,
  type SqlDriver,
  type SqlExecutor,
  type SqlResult,
} from "./sql-driver.js";

/** A notification as `pg` delivers it. */
export interface PgNotification {
  channel: string;
  payload?: string;
}

/** What the adapter uses of a `pg` client (a `PoolClient`, or a `Client`). */
export interface PgClientLike {
  query(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
  on?(event: "notification", listener: (message: PgNotification) => void): unknown;
  removeListener?(event: "notification", listener: (message: PgNotification) => void): unknown;
}

/** What the adapter uses of a `pg` pool. */
export interface PgPoolLike {
  query(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
  connect(): Promise<PgClientLike & { release(destroy?: boolean | Error): void }>;
}

/** `?` placeholders numbered as `$1`, `$2`...: the stores' SQL has no `?` of its own. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

function executorOf(client: PgClientLike | PgPoolLike): SqlExecutor {
  return {
    dialect: "postgres",
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<SqlResult<R>> {
      const result = await client.query(numbered(sql), [...params]);
      return { rows: result.rows as R[], changes: result.rowCount ?? 0 };
    },
  };
}

/** The user's PostgreSQL pool as a {@link SqlDriver}. */
export function postgresDriver(pool: PgPoolLike): SqlDriver {
  const base = executorOf(pool);
  return {
    ...base,
    async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, lock?: string): Promise<T> {
      const client = await pool.connect();
      let broken: unknown;
      try {
        await client.query("BEGIN");
        try {
          const tx = executorOf(client);
          if (lock !== undefined) await lockInTransaction(tx, lock);
          const out = await fn(tx);
          await client.query("COMMIT");
          return out;
        } catch (error) {
          await client.query("ROLLBACK").catch((rollback: unknown) => {
            broken = rollback;
          });
          throw error;
        }
      } finally {
        // A connection whose rollback failed is in an unknown state: the pool drops it.
        client.release(broken instanceof Error ? broken : undefined);
      }
    },
    async listen(channel: string, onNotify: (payload: string) => void) {
      // One connection held for as long as the listener lives: LISTEN belongs to a session.
      const client = await pool.connect();
      const listener = (message: PgNotification) => {
        if (message.channel === channel) onNotify(message.payload ?? "");
      };
      client.on?.("notification", listener);
      await client.query(`LISTEN "${channel}"`);
      return async () => {
        client.removeListener?.("notification", listener);
        try {
          await client.query(`UNLISTEN "${channel}"`);
          client.release();
        } catch (error) {
          client.release(error instanceof Error ? error : true);
        }
      };
    },
    async notify(channel: string, payload: string) {
      await pool.query("SELECT pg_notify($1, $2)", [channel, payload]);
    },
  };
}
