/**
 * The durable stores' tables, under the prefix the host chose, and the migrations that make them.
 * `migrateDurableSchema` is idempotent and safe when several processes start at once: it runs in
 * one transaction under a lock named after the prefix (PostgreSQL: an advisory lock; SQLite: the
 * database's write lock), reads which migrations are applied, and applies the others in order.
 * A migration is never edited once released: a change of schema is a new one at the end.
 */

import type { SqlDialect, SqlDriver } from "./sql-driver.js";

/** The table names of one prefix. */
export interface DurableTables {
  migrations: string;
  conversations: string;
  messages: string;
  journal: string;
  ledger: string;
  leases: string;
  turns: string;
  events: string;
}

/** The tables of `prefix` (checked by `checkTablePrefix`). */
export function durableTables(prefix: string): DurableTables {
  return {
    migrations: `${prefix}schema_migrations`,
    conversations: `${prefix}conversations`,
    messages: `${prefix}messages`,
    journal: `${prefix}round_journal`,
    ledger: `${prefix}tool_ledger`,
    leases: `${prefix}turn_leases`,
    turns: `${prefix}turns`,
    events: `${prefix}turn_events`,
  };
}

/** One migration: its number and its statements. */
interface Migration {
  version: number;
  statements: (t: DurableTables, d: SqlDialect) => string[];
}

/** Epoch milliseconds and counters: BIGINT in PostgreSQL (INTEGER is 64 bits in SQLite). */
const big = (d: SqlDialect) => (d === "postgres" ? "BIGINT" : "INTEGER");

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: (t, d) => [
      `CREATE TABLE ${t.conversations} (
        id TEXT PRIMARY KEY,
        version ${big(d)} NOT NULL,
        updated_at ${big(d)} NOT NULL
      )`,
      `CREATE TABLE ${t.messages} (
        conversation_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        PRIMARY KEY (conversation_id, seq)
      )`,
      `CREATE TABLE ${t.journal} (
        conversation_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        round INTEGER NOT NULL,
        call_index INTEGER NOT NULL,
        idempotency_key TEXT NOT NULL,
        entry TEXT NOT NULL,
        created_at ${big(d)} NOT NULL,
        PRIMARY KEY (conversation_id, call_id)
      )`,
      `CREATE TABLE ${t.ledger} (
        conversation_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        name TEXT NOT NULL,
        status TEXT NOT NULL,
        outcome TEXT NOT NULL,
        entry TEXT,
        idempotency_key TEXT,
        created_at ${big(d)} NOT NULL,
        PRIMARY KEY (conversation_id, call_id)
      )`,
      `CREATE TABLE ${t.leases} (
        conversation_id TEXT PRIMARY KEY,
        turn_id TEXT NOT NULL,
        holder TEXT NOT NULL,
        expires_at ${big(d)} NOT NULL,
        cancel_reason TEXT,
        claimed_at ${big(d)} NOT NULL
      )`,
      `CREATE TABLE ${t.turns} (
        turn_id TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL,
        holder TEXT NOT NULL,
        started_at ${big(d)} NOT NULL,
        ended_at ${big(d)}
      )`,
      `CREATE INDEX ${t.turns}_by_conversation ON ${t.turns} (conversation_id, started_at)`,
      `CREATE TABLE ${t.events} (
        turn_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (turn_id, seq)
      )`,
    ],
  },
  {
    // Retention: the pruner finds the turns that ended before a bound (and the dead ones that
    // never ended, oldest first) through this index instead of reading the whole table. And
    // `table_from`: the seq from which a turn's events are in the table because its transport
    // (Redis) failed for good.
    version: 2,
    statements: (t) => [
      `CREATE INDEX IF NOT EXISTS ${t.turns}_by_end ON ${t.turns} (ended_at, started_at)`,
      `ALTER TABLE ${t.turns} ADD COLUMN table_from INTEGER`,
    ],
  },
];

/** The newest migration's number. */
export const DURABLE_SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

/**
 * Creates or upgrades the tables of `prefix`. Returns the migrations it applied (none when
 * another process, or an earlier start, applied them all).
 */
export async function migrateDurableSchema(driver: SqlDriver, prefix: string): Promise<number[]> {
  const t = durableTables(prefix);
  return driver.transaction(async (tx) => {
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${t.migrations} (version INTEGER PRIMARY KEY, applied_at ${big(driver.dialect)} NOT NULL)`,
    );
    const { rows } = await tx.query<{ version: number | string }>(
      `SELECT version FROM ${t.migrations}`,
    );
    const applied = new Set(rows.map((row) => Number(row.version)));
    const done: number[] = [];
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      for (const statement of migration.statements(t, driver.dialect)) await tx.query(statement);
      await tx.query(`INSERT INTO ${t.migrations} (version, applied_at) VALUES (?, ?)`, [
        migration.version,
        Date.now(),
      ]);
      done.push(migration.version);
    }
    return done;
  }, `overlap-durable:migrate:${prefix}`);
}
