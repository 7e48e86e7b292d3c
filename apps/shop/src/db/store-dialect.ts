/**
 * What differs between SQLite and PostgreSQL for the shared Kysely store: column types for JSON
 * and the lock taken inside a transaction. Everything else is one implementation.
 */

import type { Transaction } from "kysely";
import type { ShopDatabase } from "./shop-database.js";

/** The dialect-specific part of the shared store (`KyselyShopStore`). */
export interface StoreDialect {
  readonly name: "sqlite" | "postgres";
  /** Column type for JSON the store reads back whole (`jsonb` in PostgreSQL). */
  readonly jsonType: "jsonb" | "text";
  /**
   * Column type for JSON that must come back byte for byte: conversation content. jsonb would
   * reorder object keys, and a resent conversation that differs from what the provider saw
   * before defeats prompt caching.
   */
  readonly exactJsonType: "json" | "text";
  /**
   * Takes an exclusive lock on `key` that is released when the transaction ends, so writers in
   * other processes sharing the database wait. A no-op where the transaction itself already
   * excludes every other writer (SQLite's BEGIN IMMEDIATE).
   */
  lock(trx: Transaction<ShopDatabase>, key: string): Promise<void>;
}
