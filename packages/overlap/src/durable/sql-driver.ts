/**
 * What the durable stores need of a database, and no more: statements with `?` placeholders, and
 * transactions that hold a named lock until they end. The stores are written once against this
 * (dialect-neutral SQL, a few dialect switches); `postgres-driver.ts` and `sqlite-driver.ts` are
 * the thin adapters over the user's own `pg` pool or `better-sqlite3` database. No ORM: the host
 * keeps whichever it uses for its own tables.
 */

/** The SQL dialects the durable stores speak. */
export type SqlDialect = "postgres" | "sqlite";

/** What a statement returned: its rows (for a query or `RETURNING`) and the rows it changed. */
export interface SqlResult<R = Record<string, unknown>> {
  rows: R[];
  changes: number;
}

/** Runs statements. Placeholders are `?` (the PostgreSQL adapter numbers them). */
export interface SqlExecutor {
  readonly dialect: SqlDialect;
  query<R = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
  ): Promise<SqlResult<R>>;
}

/** A database the durable stores can use. */
export interface SqlDriver extends SqlExecutor {
  /**
   * Runs `fn` in a transaction: committed when it resolves, rolled back when it rejects. With
   * `lock`, the transaction first takes that named lock and holds it until it ends (PostgreSQL: a
   * transaction-level advisory lock; SQLite: `BEGIN IMMEDIATE`, which takes the database's one
   * write lock, so every write transaction is serialized anyway).
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, lock?: string): Promise<T>;
  /**
   * Optional wake-ups between processes (PostgreSQL LISTEN/NOTIFY): `listen` calls `onNotify`
   * with each payload sent on `channel` until the returned function is called.
   */
  listen?(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /** Sends `payload` on `channel` to every listener (of every process). */
  notify?(channel: string, payload: string): Promise<void>;
}

/**
 * Inside a transaction: takes the named lock until the transaction ends, as
 * {@link SqlDriver.transaction}'s `lock` does (PostgreSQL: a transaction-level advisory lock). On
 * SQLite nothing: the transaction must hold the database's write lock already (`BEGIN
 * IMMEDIATE`). For transactions the host opened itself, on the connection behind `tx`.
 */
export async function lockInTransaction(tx: SqlExecutor, lock: string): Promise<void> {
  // hashtextextended gives the 64-bit key the advisory lock takes.
  if (tx.dialect === "postgres") {
    await tx.query("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", [lock]);
  }
}

/**
 * Checks a table prefix the host chose: the stores put it in front of every table name, unquoted,
 * so only letters, digits and underscores are allowed (and a letter or underscore first).
 */
export function checkTablePrefix(prefix: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(prefix)) {
    throw new TypeError(
      `The table prefix "${prefix}" must be 1 to 40 letters, digits or underscores, not starting with a digit.`,
    );
  }
  return prefix.toLowerCase();
}
