import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateConversation } from "overlap-runtime";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, describeDatabase, loadConfig } from "../config.js";
import { openStore } from "../db/open-store.js";
import { shopPolicy } from "../model/shop-policy.js";
import { startShop } from "./start-shop.js";
import { readEvents } from "./test-shop.testkit.js";

const DEMO =
  "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart and tell me the total";

describe("loadConfig", () => {
  it("defaults: port 3000, SQLite in ./data, info logs, a generated merchant token", () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.database).toEqual({ kind: "sqlite", file: join("./data", "shop.sqlite") });
    expect(config.logLevel).toBe("info");
    expect(config.merchantTokenGenerated).toBe(true);
    expect(config.merchantToken.length).toBeGreaterThanOrEqual(32);
    expect(loadConfig({}).merchantToken).not.toBe(config.merchantToken);
  });

  it("reads PORT, DATA_DIR, DATABASE_URL, MERCHANT_TOKEN, LOG_LEVEL", () => {
    const config = loadConfig({
      PORT: "8080",
      DATA_DIR: "/tmp/x",
      LOG_LEVEL: "DEBUG",
      MERCHANT_TOKEN: "a-long-enough-merchant-token",
    });
    expect(config).toMatchObject({
      port: 8080,
      database: { kind: "sqlite", file: join("/tmp/x", "shop.sqlite") },
      logLevel: "debug",
      merchantToken: "a-long-enough-merchant-token",
      merchantTokenGenerated: false,
    });
    const pg = loadConfig({ DATABASE_URL: "postgres://shop:s3cret@db:5432/shop" });
    expect(pg.database.kind).toBe("postgres");
    expect(describeDatabase(pg.database)).toBe("PostgreSQL postgres://shop:***@db:5432/shop");
  });

  it("refuses unusable values with a sentence naming the variable", () => {
    expect(() => loadConfig({ PORT: "http" })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: "70000" })).toThrow(/PORT/);
    expect(() => loadConfig({ LOG_LEVEL: "loud" })).toThrow(/LOG_LEVEL/);
    expect(() => loadConfig({ MERCHANT_TOKEN: "short" })).toThrow(/MERCHANT_TOKEN/);
  });
});

describe("startShop and graceful shutdown", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("serves on a real port; close cancels the running turn, saves its repaired conversation, closes everything", async () => {
    dir = await mkdtemp(join(tmpdir(), "shop-"));
    const config = loadConfig({ PORT: "0", DATA_DIR: dir, MERCHANT_TOKEN: "m".repeat(20) });
    const shop = await startShop({
      config,
      logger: pino({ level: "silent" }),
      env: {},
      policy: shopPolicy,
      pacing: { tokensPerSecond: 60, firstTokenMs: 20 },
    });
    expect(shop.model.scripted).toBe(true);
    const health = await fetch(`${shop.url}/healthz`);
    expect(await health.json()).toEqual({
      ok: true,
      db: "sqlite",
      model: "scripted-shop",
      scripted: true,
    });
    const { id, token } = (await (
      await fetch(`${shop.url}/api/sessions`, { method: "POST" })
    ).json()) as { id: string; token: string };
    const response = await fetch(`${shop.url}/api/sessions/${id}/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ text: DEMO }),
    });
    let closing: Promise<void> | undefined;
    const events = await readEvents(response, {
      until: (so) => {
        // Shut down while the round's tools run and the model still generates.
        if (!closing && so.at(-1)?.event.type === "tool-status") closing = shop.close();
        return false;
      },
    });
    await closing;
    expect(events.at(-2)?.event).toMatchObject({ type: "error", code: "aborted" });
    expect(events.at(-1)?.event).toMatchObject({ type: "done", stopReason: "error" });
    await expect(fetch(`${shop.url}/healthz`)).rejects.toThrow();

    // A restarted server finds the conversation saved and valid: every call answered.
    const store = await openStore({ dataDir: dir });
    try {
      const messages = await store.conversations.load(id);
      expect(messages.length).toBeGreaterThanOrEqual(3);
      expect(validateConversation(messages)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
