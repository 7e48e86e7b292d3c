/**
 * Kysely builds a query as a tree of frozen nodes and compiles it to SQL on every call: most of
 * the SQL layer's cost on the store's hot paths, where the same few queries run with other
 * values. {@link preparedQuery} builds and compiles a query once per database (once for SQLite,
 * once for PostgreSQL: the SQL differs) with placeholders for its arguments, and from then on
 * only puts the arguments in their places and executes the SQL, on the store's Kysely or inside
 * one of its transactions. The query stays written in Kysely, typed against the schema.
 *
 * The rule for a prepared query's builder: its SQL must not depend on its arguments' values
 * (no `if` on them, no `undefined` for an omitted column, no array whose length varies); each
 * argument is used as a value only. A query that needs another shape is another prepared query.
 *
 * The SQL texts of prepared queries are few and fixed, so a driver may also keep them prepared on
 * the database server, per connection: {@link preparedStatementName} names them (PostgreSQL's
 * named statements, see `postgres-store.ts`); SQLite's statements are kept by
 * `cachedStatements`.
 */

import type { Compilable, CompiledQuery, Kysely, QueryResult, RootOperationNode } from "kysely";
import type { ShopDatabase } from "./shop-database.js";

/** What the store runs queries on: its Kysely, or a transaction of it. */
type Db = Kysely<ShopDatabase>;

/** The SQL of one dialect and where each of its parameters comes from. */
interface Plan {
  readonly sql: string;
  readonly query: RootOperationNode;
  readonly queryId: CompiledQuery["queryId"];
  /** A parameter's argument index, or a constant the builder put in (`{ value }`). */
  readonly slots: readonly (number | { readonly value: unknown })[];
}

/** The name of each prepared query's SQL text, for named server-side statements. */
const statementNames = new Map<string, string>();

/**
 * The statement name of `sql` when it is a prepared query's SQL (`undefined` for any other text):
 * the same text always gets the same name in this process.
 */
export function preparedStatementName(sql: string): string | undefined {
  return statementNames.get(sql);
}

/** Marks the n-th argument while the query is built: a string no caller passes. */
const PLACEHOLDER = "\u0000prepared-query-argument:";

/** A query compiled once per database, then executed with its arguments. */
export type PreparedQuery<Args extends readonly unknown[], Row> = (
  db: Db,
  ...args: Args
) => Promise<QueryResult<Row>>;

/**
 * Prepares the query `build` makes from its arguments (see the rule above). The first run on a
 * database compiles it; runs on the same database (or its transactions) reuse the SQL.
 */
export function preparedQuery<Args extends readonly unknown[], Row>(
  build: (db: Db, ...args: Args) => Compilable<Row>,
): PreparedQuery<Args, Row> {
  // Keyed by the dialect's adapter, which a Kysely instance shares with its transactions.
  const plans = new WeakMap<object, Plan>();
  return (db, ...args) => {
    const key = dialectKey(db);
    let plan = key === undefined ? undefined : plans.get(key);
    if (plan === undefined) {
      try {
        plan = compilePlan(db, build, args.length);
      } catch (error) {
        return Promise.reject(error);
      }
      if (key !== undefined) plans.set(key, plan);
    }
    const parameters = plan.slots.map((slot) =>
      typeof slot === "number" ? args[slot] : slot.value,
    );
    return db.executeQuery<Row>({
      sql: plan.sql,
      query: plan.query,
      queryId: plan.queryId,
      parameters,
    } as CompiledQuery<Row>);
  };
}

function compilePlan<Args extends readonly unknown[], Row>(
  db: Db,
  build: (db: Db, ...args: Args) => Compilable<Row>,
  arity: number,
): Plan {
  const placeholders = Array.from({ length: arity }, (_, i) => `${PLACEHOLDER}${i}`);
  const compiled = build(db, ...(placeholders as unknown as Args)).compile();
  const seen = new Set<number>();
  const slots = compiled.parameters.map((value) => {
    if (typeof value === "string" && value.startsWith(PLACEHOLDER)) {
      const index = Number(value.slice(PLACEHOLDER.length));
      seen.add(index);
      return index;
    }
    return { value };
  });
  if (seen.size !== arity) {
    // An argument that is not a parameter of the SQL was used to shape it: not preparable.
    throw new TypeError(
      `A prepared query must use each of its ${arity} arguments as a value; it used ${seen.size}: ${compiled.sql}`,
    );
  }
  if (!statementNames.has(compiled.sql)) {
    statementNames.set(compiled.sql, `shop_prepared_${statementNames.size + 1}`);
  }
  return { sql: compiled.sql, query: compiled.query, queryId: compiled.queryId, slots };
}

/**
 * The object a Kysely instance and its transactions share for one dialect (its adapter), or
 * undefined where this Kysely does not expose it: then every run compiles, as before.
 */
function dialectKey(db: Db): object | undefined {
  const executor = (db as unknown as { getExecutor?: () => { adapter?: unknown } }).getExecutor?.();
  const adapter = executor?.adapter;
  return typeof adapter === "object" && adapter !== null ? adapter : undefined;
}
