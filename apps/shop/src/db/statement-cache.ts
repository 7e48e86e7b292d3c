/**
 * better-sqlite3's `prepare` compiles the SQL text every time it is called, and Kysely's SQLite
 * driver calls it for every query. {@link cachedStatements} keeps the prepared statements of one
 * connection by their SQL text, so a query the store runs over and over (the same text, other
 * parameters) is compiled once. Bounded: past `max` texts the least recently used is dropped
 * (texts vary with the length of an `in` list or of a multi-row insert).
 */

import type { SqliteDatabase, SqliteStatement } from "kysely";

/** The default bound of {@link cachedStatements}. */
export const DEFAULT_MAX_STATEMENTS = 500;

/**
 * `database` with `prepare` answered from a cache of its statements, for Kysely's SqliteDialect.
 * Safe because a statement runs to completion before the next query (the driver serialises the
 * one connection and never iterates a statement lazily here: the store does not stream).
 */
export function cachedStatements(
  database: SqliteDatabase,
  max = DEFAULT_MAX_STATEMENTS,
): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => {
      statements.clear();
      database.close();
    },
    prepare(sql) {
      const known = statements.get(sql);
      if (known) {
        // Most recently used last: a Map iterates in insertion order.
        statements.delete(sql);
        statements.set(sql, known);
        return known;
      }
      const statement = database.prepare(sql);
      statements.set(sql, statement);
      if (statements.size > max) {
        const oldest = statements.keys().next().value;
        if (oldest !== undefined) statements.delete(oldest);
      }
      return statement;
    },
  };
}
