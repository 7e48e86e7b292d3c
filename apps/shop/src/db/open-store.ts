/**
 * Opens the store the environment asks for: PostgreSQL when a database URL is given (option or
 * `DATABASE_URL`), else SQLite in `DATA_DIR` (default `./data`). Migrations run before it returns.
 * Only the driver in use is loaded: a SQLite deployment never loads pg, and a PostgreSQL one never
 * loads the native better-sqlite3 module.
 */

import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { TurnEventTransport } from "overlap-runtime/redis";
import type { CartRules } from "../domain/cart.js";
import type { ShopStore } from "./shop-store.js";

/** The SQLite file's name inside the data directory. */
export const SQLITE_FILE_NAME = "shop.sqlite";

/** Options of {@link openStore}; each falls back to the environment. */
export interface OpenStoreOptions {
  /** PostgreSQL URL; default `DATABASE_URL` unless a SQLite location is given. */
  databaseUrl?: string;
  /** Directory of the SQLite file `shop.sqlite`; default `DATA_DIR`, else `./data`. */
  dataDir?: string;
  /** SQLite file path overriding `dataDir`; `":memory:"` for a private in-memory database. */
  sqliteFile?: string;
  /** PostgreSQL schema (search_path); default the server's. */
  pgSchema?: string;
  cartRules?: Partial<CartRules>;
  /** Test only: see `KyselyShopStoreOptions.recordDelayMs`. */
  recordDelayMs?: number;
  /** How long a token opens anything (`SESSION_TOKEN_TTL`); default 30 days. */
  tokenTtlMs?: number;
  /** Test only: the store's clock (see `KyselyShopStoreOptions.clock`). */
  clock?: () => number;
  /** Where turn events are kept instead of the database (`REDIS_URL`); default the database. */
  turnEvents?: TurnEventTransport;
  /** The environment to read; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Where a store lives, as decided by {@link resolveStoreTarget}. */
export type StoreTarget =
  | { readonly kind: "postgres"; readonly connectionString: string }
  | { readonly kind: "sqlite"; readonly file: string };

/**
 * Decides where the store lives, without touching anything. Explicit options beat the
 * environment: `databaseUrl`, then `sqliteFile` or `dataDir`, then `DATABASE_URL`, then
 * `DATA_DIR`, then `./data`.
 */
export function resolveStoreTarget(options: OpenStoreOptions = {}): StoreTarget {
  const env = options.env ?? process.env;
  if (options.databaseUrl) return { kind: "postgres", connectionString: options.databaseUrl };
  if (options.sqliteFile) return { kind: "sqlite", file: options.sqliteFile };
  if (options.dataDir) return { kind: "sqlite", file: join(options.dataDir, SQLITE_FILE_NAME) };
  if (env.DATABASE_URL) return { kind: "postgres", connectionString: env.DATABASE_URL };
  return { kind: "sqlite", file: join(env.DATA_DIR || "./data", SQLITE_FILE_NAME) };
}

/** Opens and migrates the store. */
export async function openStore(options: OpenStoreOptions = {}): Promise<ShopStore> {
  const target = resolveStoreTarget(options);
  const extra = {
    ...(options.cartRules ? { cartRules: options.cartRules } : {}),
    ...(options.recordDelayMs ? { recordDelayMs: options.recordDelayMs } : {}),
    ...(options.tokenTtlMs ? { tokenTtlMs: options.tokenTtlMs } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.turnEvents ? { turnEvents: options.turnEvents } : {}),
  };
  if (target.kind === "postgres") {
    const { openPostgresStore } = await import("./postgres-store.js");
    return openPostgresStore({
      connectionString: target.connectionString,
      ...(options.pgSchema ? { schema: options.pgSchema } : {}),
      ...extra,
    });
  }
  if (target.file !== ":memory:") {
    await mkdir(dirname(target.file), { recursive: true });
  }
  const { openSqliteStore } = await import("./sqlite-store.js");
  return openSqliteStore({ file: target.file, ...extra });
}
