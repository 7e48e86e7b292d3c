import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { addInFirstVariant } from "../domain/test-products.testkit.js";
import { registerMerchantStoreSuite } from "./merchant-store-suite.testkit.js";
import type { ShopDatabase } from "./shop-database.js";
import type { ShopStore } from "./shop-store.js";
import { openSqliteStore } from "./sqlite-store.js";
import {
  type PeerOptions,
  registerStoreSuite,
  registerUpgradeSuite,
} from "./store-suite.testkit.js";
import { registerTurnLeaseSuite } from "./turn-leases.testkit.js";

/** A temporary directory per harness, deleted with it. */
function tempFile(): { file: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "shop-sqlite-"));
  return {
    file: join(dir, "shop.sqlite"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const sqliteHarness = async () => {
  const { file, remove } = tempFile();
  const store = await openSqliteStore({ file });
  const peers: ShopStore[] = [];
  return {
    store,
    concurrentPeers: false,
    workerTarget: { sqliteFile: file },
    async openPeer(options: PeerOptions = {}) {
      const peer = await openSqliteStore({ file, ...options });
      peers.push(peer);
      return peer;
    },
    async dispose() {
      for (const s of [store, ...peers]) await s.close();
      remove();
    },
  };
};

registerStoreSuite("ShopStore on SQLite", sqliteHarness);
registerTurnLeaseSuite("Turn leases on SQLite", sqliteHarness);
registerMerchantStoreSuite("Merchant changes on SQLite", sqliteHarness);

registerUpgradeSuite("SQLite upgrade", async () => {
  const { file, remove } = tempFile();
  const db = new Kysely<ShopDatabase>({
    dialect: new SqliteDialect({ database: new Database(file) }),
  });
  return {
    db,
    dialect: { name: "sqlite", jsonType: "text", exactJsonType: "text", lock: async () => {} },
    open: () => openSqliteStore({ file }),
    dispose: async () => remove(),
  };
});

describe("SQLite specifics", () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("takes the write lock when the cart transaction begins (BEGIN IMMEDIATE), readers still read", async () => {
    const { file, remove } = tempFile();
    cleanups.push(remove);
    const store = await openSqliteStore({ file });
    cleanups.push(() => store.close());
    // Another process's view of the same file, failing at once instead of waiting.
    const other = new Database(file, { timeout: 0 });
    cleanups.push(() => other.close());
    let tried = false;
    await store.withCart("s", async (cart, tx) => {
      // Only reads have happened in this transaction so far; a deferred BEGIN would hold no lock.
      expect(() => other.prepare("BEGIN IMMEDIATE").run()).toThrow(/locked|busy/i);
      // WAL: readers are not blocked by the writer.
      expect(other.prepare("SELECT count(*) AS n FROM products").get()).toEqual({ n: 220 });
      tried = true;
      return addInFirstVariant(cart, await tx.getProduct("p-0001"), 1, tx.rules);
    });
    expect(tried).toBe(true);
    other.prepare("BEGIN IMMEDIATE").run();
    other.prepare("ROLLBACK").run();
    expect(other.pragma("journal_mode", { simple: true })).toBe("wal");
  });

  it("works in memory", async () => {
    const store = await openSqliteStore({ file: ":memory:", cartRules: { maxTotalCents: 10_000 } });
    cleanups.push(() => store.close());
    expect(store.cartRules).toEqual({ maxQuantityPerLine: 10, maxTotalCents: 10_000 });
    const result = await store.withCart("s", async (cart, tx) =>
      addInFirstVariant(cart, await tx.getProduct("p-0001"), 2, tx.rules),
    );
    expect(result).toMatchObject({ ok: false, code: "over_limit" });
  });
});
