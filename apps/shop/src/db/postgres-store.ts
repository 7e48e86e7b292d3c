/**
 * The PostgreSQL store, for several server processes sharing sessions, carts and the ledger:
 * Kysely's PostgresDialect over a pg Pool. The per-session lock across processes is a
 * transaction-scoped advisory lock, `pg_advisory_xact_lock(hashtextextended(key, 0))`, taken as
 * the transaction's first statement and released by COMMIT or ROLLBACK, so a crashed process can
 * never leave it held. Transactions stay READ COMMITTED on purpose: every statement after the lock
 * sees what the previous holder committed (REPEATABLE READ would keep a snapshot from before).
 *
 * The store's prepared queries (`prepared-query.ts`) run as named statements: each connection
 * parses and plans one once, then only binds and executes it.
 */

import { userInfo } from "node:os";
import { Kysely, PostgresDialect, sql } from "kysely";
import { postgresDriver } from "overlap-runtime/postgres";
import type { TurnEventTransport } from "overlap-runtime/redis";
import pg from "pg";
import type { CartRules } from "../domain/cart.js";
import { KyselyShopStore } from "./kysely-store.js";
import { preparedQuery, preparedStatementName } from "./prepared-query.js";
import type { ShopDatabase } from "./shop-database.js";
import type { ShopStore } from "./shop-store.js";
import type { StoreDialect } from "./store-dialect.js";

/** How to open a PostgreSQL store. */
export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database`. */
  connectionString: string;
  /** Schema to use (search_path), e.g. a throwaway one per test run; it must exist. */
  schema?: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  cartRules?: Partial<CartRules>;
  /** Test only: see `KyselyShopStoreOptions.recordDelayMs`. */
  recordDelayMs?: number;
  /** See `KyselyShopStoreOptions.turnEvents`. */
  turnEvents?: TurnEventTransport;
  /** See `KyselyShopStoreOptions.tokenTtlMs` (default 30 days) and `clock`. */
  tokenTtlMs?: number;
  clock?: () => number;
  /** Told about errors of idle pooled connections (the pool replaces them). */
  onPoolError?: (error: Error) => void;
}

const POSTGRES_DIALECT: StoreDialect = {
  name: "postgres",
  jsonType: "jsonb",
  exactJsonType: "json",
  async lock(trx, key) {
    await advisoryLock(trx, key);
  },
};

const advisoryLock = preparedQuery((db, key: string) =>
  db.selectNoFrom(sql<null>`pg_advisory_xact_lock(hashtextextended(${key}, 0))`.as("locked")),
);

/**
 * Makes a pooled client run the store's prepared queries as named statements (pg prepares a
 * name once per connection); every other query goes through unchanged.
 */
function useNamedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    const name =
      typeof text === "string" && args.length === 2 ? preparedStatementName(text) : undefined;
    return name === undefined ? query(...args) : query({ name, text, values });
  };
}

/** OIDs of json and jsonb: handed back as text, like SQLite, so the store parses JSON itself. */
const JSON_OIDS: ReadonlySet<number> = new Set([114, 3802]);

const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    JSON_OIDS.has(oid)
      ? (value: string) => value
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Opens and migrates a PostgreSQL store. */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<ShopStore> {
  if (options.schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(options.schema)) {
    throw new RangeError(`Invalid schema name: ${options.schema}`);
  }
  const pool = new pg.Pool({
    connectionString: withDefaultUser(options.connectionString),
    max: options.poolSize ?? 10,
    types,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // An idle connection that dies (server restart) emits "error" on the pool; unhandled, that
  // would crash the process, while the pool simply replaces the connection.
  pool.on("error", (error) => options.onPoolError?.(error));
  pool.on("connect", useNamedStatements);
  const db = new Kysely<ShopDatabase>({ dialect: new PostgresDialect({ pool }) });
  // The durable stores' readers and cancels are woken across processes by LISTEN/NOTIFY.
  const { listen, notify } = postgresDriver(pool);
  return KyselyShopStore.open({
    db,
    dialect: POSTGRES_DIALECT,
    wakeups: { ...(listen ? { listen } : {}), ...(notify ? { notify } : {}) },
    ...(options.cartRules ? { cartRules: options.cartRules } : {}),
    ...(options.recordDelayMs ? { recordDelayMs: options.recordDelayMs } : {}),
    ...(options.turnEvents ? { turnEvents: options.turnEvents } : {}),
    tokenTtlMs: options.tokenTtlMs,
    clock: options.clock,
  });
}

/**
 * Fills in the user name when the URL has none, as libpq does (`PGUSER`, else the OS user):
 * node-pg only looks at `USER`, which service managers and containers often leave unset.
 */
export function withDefaultUser(connectionString: string): string {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return connectionString;
  }
  if (url.username || process.env.PGUSER) return connectionString;
  url.username = process.env.USER || userInfo().username;
  return url.toString();
}
