/**
 * The SQLite store (the default): better-sqlite3 through Kysely's SqliteDialect, WAL mode and a
 * busy timeout, transactions that start with BEGIN IMMEDIATE, and prepared statements kept by
 * their SQL text (`cachedStatements`).
 *
 * Why IMMEDIATE: a plain BEGIN takes the write lock only at the first write, so two processes can
 * both read a cart, then one of them fails to upgrade (SQLITE_BUSY, no retry possible inside the
 * transaction). Taking the write lock up front makes read-check-write one exclusive unit across
 * processes; within a process Kysely's driver already serialises on its single connection.
 *
 * Use one store per database file per process: better-sqlite3 is synchronous, so a second
 * connection in the same process waiting on the lock would block the event loop that the first
 * one needs to finish.
 */

import Database from "better-sqlite3";
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from "kysely";
import type { TurnEventTransport } from "overlap-runtime/redis";
import type { CartRules } from "../domain/cart.js";
import { KyselyShopStore } from "./kysely-store.js";
import type { ShopDatabase } from "./shop-database.js";
import type { ShopStore } from "./shop-store.js";
import { cachedStatements } from "./statement-cache.js";
import type { StoreDialect } from "./store-dialect.js";

/** How to open a SQLite store. */
export interface SqliteStoreOptions {
  /** Path of the database file, or `":memory:"` for a private in-memory database. */
  file: string;
  cartRules?: Partial<CartRules>;
  /** Test only: see `KyselyShopStoreOptions.recordDelayMs`. */
  recordDelayMs?: number;
  /** See `KyselyShopStoreOptions.turnEvents`. */
  turnEvents?: TurnEventTransport;
  /** See `KyselyShopStoreOptions.tokenTtlMs` (default 30 days) and `clock`. */
  tokenTtlMs?: number;
  clock?: () => number;
  /** How long to wait for another process's write lock before failing (default 5000 ms). */
  busyTimeoutMs?: number;
}

const SQLITE_DIALECT: StoreDialect = {
  name: "sqlite",
  jsonType: "text",
  exactJsonType: "text",
  // BEGIN IMMEDIATE already holds the database's only write lock for the whole transaction.
  lock: async () => {},
};

/** Opens (creating if needed) and migrates a SQLite store. */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<ShopStore> {
  const database = new Database(options.file);
  try {
    database.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5_000))}`);
    // WAL lets readers proceed while a writer holds the lock; in-memory databases ignore it.
    database.pragma("journal_mode = WAL");
    database.pragma("synchronous = NORMAL");
    database.pragma("foreign_keys = ON");
  } catch (error) {
    database.close();
    throw error;
  }
  // Each statement is compiled once, not at every query.
  const db = new Kysely<ShopDatabase>({
    dialect: new ImmediateSqliteDialect({ database: cachedStatements(database) }),
  });
  return KyselyShopStore.open({
    db,
    dialect: SQLITE_DIALECT,
    ...(options.cartRules ? { cartRules: options.cartRules } : {}),
    ...(options.recordDelayMs ? { recordDelayMs: options.recordDelayMs } : {}),
    ...(options.turnEvents ? { turnEvents: options.turnEvents } : {}),
    tokenTtlMs: options.tokenTtlMs,
    clock: options.clock,
  });
}

/** Kysely's SqliteDialect whose transactions begin with BEGIN IMMEDIATE. */
class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
}
