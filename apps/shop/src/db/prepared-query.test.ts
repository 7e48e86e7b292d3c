import Database from "better-sqlite3";
import { type CompiledQuery, Kysely, SqliteDialect } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { preparedQuery, preparedStatementName } from "./prepared-query.js";
import type { ShopDatabase } from "./shop-database.js";

/** A SQLite Kysely with a `products`-like table, whose executed SQL is recorded. */
function database() {
  const sqlite = new Database(":memory:");
  sqlite.exec("create table carts (shopper_id text primary key, lines text, updated_at text)");
  const executed: CompiledQuery[] = [];
  const db = new Kysely<ShopDatabase>({
    dialect: new SqliteDialect({ database: sqlite }),
    log: (event) => {
      if (event.level === "query") executed.push(event.query);
    },
  });
  return { db, executed };
}

const dbs: Kysely<ShopDatabase>[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.destroy();
});

const upsertCart = preparedQuery((db, owner: string, lines: string, now: string) =>
  db
    .insertInto("carts")
    .values({ shopper_id: owner, lines, updated_at: now })
    .onConflict((oc) => oc.column("shopper_id").doUpdateSet({ lines, updated_at: now })),
);
const linesOf = preparedQuery((db, owner: string) =>
  db.selectFrom("carts").select("lines").where("shopper_id", "=", owner),
);

describe("preparedQuery", () => {
  it("runs the query with each call's arguments in their places, also twice-used ones", async () => {
    const { db } = database();
    dbs.push(db);
    await upsertCart(db, "u-1", "[1]", "t1");
    await upsertCart(db, "u-2", "[2]", "t1");
    await upsertCart(db, "u-1", "[3]", "t2");
    expect((await linesOf(db, "u-1")).rows).toEqual([{ lines: "[3]" }]);
    expect((await linesOf(db, "u-2")).rows).toEqual([{ lines: "[2]" }]);
    expect((await linesOf(db, "u-3")).rows).toEqual([]);
    // The update's parameters came from the same arguments as the insert's.
    const row = await db.selectFrom("carts").selectAll().where("shopper_id", "=", "u-1").execute();
    expect(row).toEqual([{ shopper_id: "u-1", lines: "[3]", updated_at: "t2" }]);
  });

  it("compiles once per database: later runs execute the same SQL text", async () => {
    const { db, executed } = database();
    dbs.push(db);
    await linesOf(db, "a");
    await linesOf(db, "b");
    await db.transaction().execute(async (trx) => {
      await linesOf(trx, "c");
    });
    const selects = executed.filter((q) => q.sql.startsWith("select"));
    expect(selects.map((q) => q.parameters)).toEqual([["a"], ["b"], ["c"]]);
    expect(new Set(selects.map((q) => q.sql)).size).toBe(1);
    expect(preparedStatementName(selects[0]?.sql ?? "")).toMatch(/^shop_prepared_\d+$/);
    expect(preparedStatementName("select 1")).toBeUndefined();
  });

  it("keeps a constant the builder put in, and refuses an argument that shapes the SQL", async () => {
    const { db } = database();
    dbs.push(db);
    await upsertCart(db, "u-1", "[1]", "t1");
    const withConstant = preparedQuery((d, owner: string) =>
      d
        .selectFrom("carts")
        .select("lines")
        .where("shopper_id", "=", owner)
        .where("updated_at", "=", "t1"),
    );
    expect((await withConstant(db, "u-1")).rows).toEqual([{ lines: "[1]" }]);
    const shaped = preparedQuery((d, owner: string, _unused: string) =>
      d.selectFrom("carts").select("lines").where("shopper_id", "=", owner),
    );
    await expect(shaped(db, "u-1", "x")).rejects.toThrow(/each of its 2 arguments/);
  });
});
