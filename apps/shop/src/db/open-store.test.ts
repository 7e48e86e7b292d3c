import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore, resolveStoreTarget } from "./open-store.js";

describe("resolveStoreTarget", () => {
  it("prefers explicit options, then DATABASE_URL, then DATA_DIR, then ./data", () => {
    const url = "postgres://u@h/db";
    expect(resolveStoreTarget({ env: {} })).toEqual({
      kind: "sqlite",
      file: join("data", "shop.sqlite"),
    });
    expect(resolveStoreTarget({ env: { DATA_DIR: "/var/shop" } })).toEqual({
      kind: "sqlite",
      file: join("/var/shop", "shop.sqlite"),
    });
    expect(resolveStoreTarget({ env: { DATABASE_URL: url, DATA_DIR: "/x" } })).toEqual({
      kind: "postgres",
      connectionString: url,
    });
    expect(resolveStoreTarget({ databaseUrl: url, env: {} })).toEqual({
      kind: "postgres",
      connectionString: url,
    });
    expect(resolveStoreTarget({ sqliteFile: ":memory:", env: { DATABASE_URL: url } })).toEqual({
      kind: "sqlite",
      file: ":memory:",
    });
    expect(resolveStoreTarget({ dataDir: "/d", env: { DATABASE_URL: url } })).toEqual({
      kind: "sqlite",
      file: join("/d", "shop.sqlite"),
    });
    expect(resolveStoreTarget({ env: { DATABASE_URL: "" } }).kind).toBe("sqlite");
  });
});

describe("openStore", () => {
  it("creates the data directory and keeps the data across a restart", async () => {
    const root = mkdtempSync(join(tmpdir(), "shop-open-"));
    try {
      const dataDir = join(root, "nested", "data");
      const first = await openStore({ dataDir });
      expect(first.dialect).toBe("sqlite");
      const session = await first.createSession("merchant");
      await first.conversations.write(session.id, 0, [{ role: "user", content: "hello" }]);
      await first.close();
      expect(existsSync(join(dataDir, "shop.sqlite"))).toBe(true);
      const second = await openStore({ dataDir });
      expect(await second.findSessionByToken(session.token)).toMatchObject({ id: session.id });
      expect(await second.conversations.load(session.id)).toEqual([
        { role: "user", content: "hello" },
      ]);
      await second.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("opens a private in-memory SQLite database", async () => {
    const store = await openStore({ sqliteFile: ":memory:", env: {} });
    expect(store.dialect).toBe("sqlite");
    expect((await store.listProducts()).length).toBeGreaterThanOrEqual(200);
    await store.close();
  });
});
