/**
 * The shop's Kysely as the `SqlDriver` of overlap's durable stores (`overlap-runtime/durable`):
 * their statements run on the shop's own connection (SQLite: its one connection, whose
 * transactions Kysely serializes; PostgreSQL: its pool), and {@link sqlExecutorOf} turns one of the
 * shop's transactions into the executor the durable stores write in, so a tool's ledger record
 * commits in the transaction of the cart change it describes. The named lock of a transaction is
 * the shop's own (`StoreDialect.lock`: the same advisory lock the durable stores take). Wake-ups
 * between processes (PostgreSQL LISTEN/NOTIFY) come from whoever owns the pool.
 */

import { CompiledQuery, type Kysely, type Transaction } from "kysely";
import type { SqlDriver, SqlExecutor, SqlResult } from "overlap-runtime/durable";
import type { ShopDatabase } from "./shop-database.js";
import type { StoreDialect } from "./store-dialect.js";

/** Wake-ups between processes, when the database has them (PostgreSQL's LISTEN/NOTIFY). */
export type SqlWakeups = Pick<SqlDriver, "listen" | "notify">;

/** The durable stores' driver over the shop's Kysely. */
export function kyselySqlDriver(
  db: Kysely<ShopDatabase>,
  dialect: StoreDialect,
  wakeups: SqlWakeups = {},
): SqlDriver {
  const driver: SqlDriver = {
    ...sqlExecutorOf(db, dialect),
    transaction: (fn, lock) =>
      db.transaction().execute(async (trx) => {
        if (lock !== undefined) await dialect.lock(trx, lock);
        return fn(sqlExecutorOf(trx, dialect));
      }),
  };
  if (wakeups.listen) driver.listen = wakeups.listen;
  if (wakeups.notify) driver.notify = wakeups.notify;
  return driver;
}

/** Statements of the durable stores on the shop's Kysely, or inside one of its transactions. */
export function sqlExecutorOf(
  db: Kysely<ShopDatabase> | Transaction<ShopDatabase>,
  dialect: StoreDialect,
): SqlExecutor {
  const postgres = dialect.name === "postgres";
  return {
    dialect: dialect.name,
    async query<R>(text: string, params: readonly unknown[] = []): Promise<SqlResult<R>> {
      const result = await db.executeQuery<R>(
        postgres
          ? CompiledQuery.raw(numbered(text), [...params])
          : CompiledQuery.raw(text, params.map(sqliteValue)),
      );
      // A reader (SELECT, or a write with RETURNING) reports its rows, a plain write its changes.
      const changes =
        result.numAffectedRows === undefined ? result.rows.length : Number(result.numAffectedRows);
      return { rows: [...result.rows], changes };
    },
  };
}

/** `?` placeholders numbered as PostgreSQL wants them: the stores' SQL has no `?` of its own. */
function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/** SQLite binds no booleans: they are stored as 0 and 1. */
function sqliteValue(value: unknown): unknown {
  return typeof value === "boolean" ? (value ? 1 : 0) : value;
}
