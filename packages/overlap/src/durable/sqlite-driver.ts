/**
 * The SQLite adapter: the user's `better-sqlite3` database (or anything with its `prepare` and
 * `exec`) as a {@link SqlDriver}. `better-sqlite3` is an optional peer dependency of
 * overlap-runtime: nothing here imports it; the database is given.
 *
 * better-sqlite3 runs each statement synchronously on one connection, while a store's transaction
 * awaits between its statements: without a queue, a statement of another turn could run inside
 * that transaction. So every statement and transaction of this driver takes its turn in one queue
 * per database. Several processes on one file are serialized by SQLite itself (`BEGIN IMMEDIATE`
 * and the busy timeout).
 */

import type { SqlDriver, SqlExecutor, SqlResult } from "./sql-driver.js";

/** What the adapter uses of a better-sqlite3 statement. */
export interface SqliteStatementLike {
  readonly reader: boolean;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { changes: number };
}

/** What the adapter uses of a better-sqlite3 database. */
export interface SqliteDatabaseLike {
  prepare(sql: string): SqliteStatementLike;
  exec(sql: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** The database file (better-sqlite3's `name`): connections to one file share a queue. */
  readonly name?: string;
}

/** Options of {@link sqliteDriver}. */
export interface SqliteDriverOptions {
  /**
   * How long a write waits for another process's write lock before failing, in ms (the
   * connection's `busy_timeout`). Default 5000; `null` leaves the connection's own setting.
   */
  busyTimeoutMs?: number | null;
}

/**
 * One queue per database file in this process, shared by every driver and connection over it: a
 * connection that waited for another's write lock would block the event loop (better-sqlite3
 * waits synchronously) while the other's transaction awaits its next statement, so neither could
 * go on. Other processes wait for the lock as SQLite makes them (the busy timeout).
 */
const fileQueues = new Map<string, { tail: Promise<unknown> }>();
const connectionQueues = new WeakMap<SqliteDatabaseLike, { tail: Promise<unknown> }>();

function queueOf(db: SqliteDatabaseLike): { tail: Promise<unknown> } {
  const file = db.name && db.name !== ":memory:" && db.name !== "" ? db.name : undefined;
  let queue = file ? fileQueues.get(file) : connectionQueues.get(db);
  if (!queue) {
    queue = { tail: Promise.resolve() };
    if (file) fileQueues.set(file, queue);
    else connectionQueues.set(db, queue);
  }
  return queue;
}

/** The user's better-sqlite3 database as a {@link SqlDriver}. */
export function sqliteDriver(db: SqliteDatabaseLike, options: SqliteDriverOptions = {}): SqlDriver {
  const busy = options.busyTimeoutMs === undefined ? 5000 : options.busyTimeoutMs;
  if (busy !== null) db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busy))}`);
  const q = queueOf(db);
  const statements = new Map<string, SqliteStatementLike>();
  const prepared = (sql: string): SqliteStatementLike => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const run = <R>(sql: string, params: readonly unknown[]): SqlResult<R> => {
    const statement = prepared(sql);
    const values = params.map(sqliteValue);
    if (statement.reader) {
      const rows = statement.all(...values) as R[];
      return { rows, changes: rows.length };
    }
    return { rows: [], changes: statement.run(...values).changes };
  };
  /** Runs `fn` when every earlier statement and transaction of this database ended. */
  const exclusive = <T>(fn: () => Promise<T> | T): Promise<T> => {
    const out = q.tail.then(fn);
    q.tail = out.catch(() => undefined);
    return out;
  };
  const inTransaction: SqlExecutor = {
    dialect: "sqlite",
    query: async <R>(sql: string, params: readonly unknown[] = []) => run<R>(sql, params),
  };
  return {
    dialect: "sqlite",
    query: <R>(sql: string, params: readonly unknown[] = []) =>
      exclusive(() => run<R>(sql, params)),
    transaction: <T>(fn: (tx: SqlExecutor) => Promise<T>) =>
      exclusive(async () => {
        db.exec("BEGIN IMMEDIATE");
        try {
          const out = await fn(inTransaction);
          db.exec("COMMIT");
          return out;
        } catch (error) {
          try {
            db.exec("ROLLBACK");
          } catch {
            // SQLite rolled back already (a failed COMMIT, or an error that ends the transaction).
          }
          throw error;
        }
      }),
  };
}

/** SQLite binds no booleans: they are stored as 0 and 1. */
function sqliteValue(value: unknown): unknown {
  return typeof value === "boolean" ? (value ? 1 : 0) : value;
}
