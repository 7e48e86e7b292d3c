/**
 * overlap-runtime/sqlite: the durable stores on SQLite, over the user's own `better-sqlite3`
 * database (an optional peer dependency; nothing here imports it). Several processes may share
 * the file (use WAL mode); turn streams are read by polling.
 */

import { DurableStore, type DurableStoreOptions } from "./durable-store.js";
import {
  type SqliteDatabaseLike,
  type SqliteDriverOptions,
  sqliteDriver,
} from "./sqlite-driver.js";

export type {
  SqliteDatabaseLike,
  SqliteDriverOptions,
  SqliteStatementLike,
} from "./sqlite-driver.js";
export { sqliteDriver } from "./sqlite-driver.js";

/** Opens the durable stores in SQLite, migrating the schema first (idempotently). */
export function openSqliteStore(
  db: SqliteDatabaseLike,
  options: DurableStoreOptions & SqliteDriverOptions = {},
): Promise<DurableStore> {
  const { busyTimeoutMs, ...store } = options;
  return DurableStore.open(
    sqliteDriver(db, busyTimeoutMs === undefined ? {} : { busyTimeoutMs }),
    store,
  );
}
