import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { cachedStatements } from "./statement-cache.js";

/** A database whose `prepare` calls are counted. */
function countingDatabase() {
  const database = new Database(":memory:");
  database.exec("create table t (id integer primary key, v text)");
  const prepared: string[] = [];
  const prepare = database.prepare.bind(database);
  return {
    database: {
      close: () => database.close(),
      prepare: (sql: string) => {
        prepared.push(sql);
        return prepare(sql);
      },
    },
    prepared,
  };
}

describe("cachedStatements", () => {
  it("prepares a text once and runs it with other parameters each time", () => {
    const { database, prepared } = countingDatabase();
    const cached = cachedStatements(database);
    for (let i = 0; i < 3; i++) cached.prepare("insert into t (v) values (?)").run([`v${i}`]);
    const select = "select v from t where id = ?";
    expect(cached.prepare(select).all([2])).toEqual([{ v: "v1" }]);
    expect(cached.prepare(select).all([3])).toEqual([{ v: "v2" }]);
    expect(prepared).toEqual(["insert into t (v) values (?)", select]);
    cached.close();
  });

  it("keeps at most `max` texts, dropping the least recently used", () => {
    const { database, prepared } = countingDatabase();
    const cached = cachedStatements(database, 2);
    const a = "select 1";
    const b = "select 2";
    const c = "select 3";
    cached.prepare(a);
    cached.prepare(b);
    cached.prepare(a); // a is now the most recent: b goes first
    cached.prepare(c);
    cached.prepare(a);
    cached.prepare(b);
    expect(prepared).toEqual([a, b, c, b]);
    cached.close();
  });
});
