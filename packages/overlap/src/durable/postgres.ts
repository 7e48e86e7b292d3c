/**
 * overlap-runtime/postgres: the durable stores on PostgreSQL, over the user's own `pg` pool (an
 * optional peer dependency; nothing here imports it). Cross-instance turn streams need nothing
 * else: readers are woken by LISTEN/NOTIFY and poll as a fallback.
 */

import { DurableStore, type DurableStoreOptions } from "./durable-store.js";
import { type PgPoolLike, postgresDriver } from "./postgres-driver.js";

export type { PgClientLike, PgNotification, PgPoolLike } from "./postgres-driver.js";
export { postgresDriver } from "./postgres-driver.js";

/** Opens the durable stores in PostgreSQL, migrating the schema first (idempotently). */
export function openPostgresStore(
  pool: PgPoolLike,
  options: DurableStoreOptions = {},
): Promise<DurableStore> {
  return DurableStore.open(postgresDriver(pool), options);
}
