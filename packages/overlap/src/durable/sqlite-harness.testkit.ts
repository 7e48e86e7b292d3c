/** A SQLite database in a temp file for one test, as the durable suites take it. */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { type DurableHarness, testPrefix } from "./durable-store-suite.testkit.js";
import { openSqliteStore } from "./sqlite.js";

/** A temp file per test; each `open` is a connection of its own, as another process's would be. */
export async function sqliteHarness(): Promise<DurableHarness> {
  const dir = mkdtempSync(join(tmpdir(), "overlap-durable-"));
  const file = join(dir, "test.db");
  const connections: Database.Database[] = [];
  const prefix = testPrefix();
  return {
    prefix,
    async open(options = {}) {
      const db = new Database(file);
      db.pragma("journal_mode = WAL");
      connections.push(db);
      return openSqliteStore(db, { prefix, ...options });
    },
    async dispose() {
      for (const db of connections) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
