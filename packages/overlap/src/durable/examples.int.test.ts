import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { testPrefix } from "./durable-store-suite.testkit.js";

const DATABASE_URL = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
const CI = process.env.CI === "true";
const EXAMPLES = join(import.meta.dirname, "../../examples");
const README = readFileSync(join(import.meta.dirname, "../../README.md"), "utf8");

/** The README's block marked `<!-- runnable: examples/<name> ... -->`. */
function readmeBlock(name: string): string | undefined {
  const marker = `<!-- runnable: examples/${name}`;
  const at = README.indexOf(marker);
  if (at === -1) return undefined;
  const match = /```js\n([\s\S]*?)\n```/.exec(README.slice(at));
  return match?.[1];
}

/** Runs an example in this worker (the runtime resolved from its sources); returns what it logged. */
async function runExample(name: string): Promise<string> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
    lines.push(args.map(String).join(" "));
  });
  try {
    await import(/* @vite-ignore */ join(EXAMPLES, name));
  } finally {
    spy.mockRestore();
  }
  return lines.join("\n");
}

describe("the README's durable examples", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("the SQLite example is the README's code and runs", async () => {
    const file = readFileSync(join(EXAMPLES, "durable-sqlite.mjs"), "utf8");
    expect(readmeBlock("durable-sqlite.mjs")).toBe(file.trimEnd());
    expect(await runExample("durable-sqlite.mjs")).toBe(
      ["end_turn", "tool-result", "done", "4 messages stored"].join("\n"),
    );
  });

  it("the PostgreSQL example is the README's code and runs", async () => {
    const file = readFileSync(join(EXAMPLES, "durable-postgres.mjs"), "utf8");
    expect(readmeBlock("durable-postgres.mjs")).toBe(file.trimEnd());
    const pg = (await import("pg")).default;
    const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    const reachable = await admin.query("select 1").then(
      () => true,
      (error: unknown) => {
        if (CI) throw error;
        console.warn(`!!! PostgreSQL example SKIPPED: ${DATABASE_URL} unreachable (${error}).`);
        return false;
      },
    );
    if (!reachable) return void (await admin.end());
    const prefix = testPrefix();
    vi.stubEnv("TABLE_PREFIX", prefix);
    vi.stubEnv("DATABASE_URL", DATABASE_URL);
    try {
      expect(await runExample("durable-postgres.mjs")).toBe(
        [
          "409, retry after true",
          "done: end_turn",
          '[{"type":"text","text":"It has shipped."}]',
        ].join("\n"),
      );
    } finally {
      const { rows } = await admin.query<{ tablename: string }>(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE $1",
        [`${prefix.replace(/_/g, "\\_")}%`],
      );
      for (const { tablename } of rows) await admin.query(`DROP TABLE IF EXISTS "${tablename}"`);
      await admin.end();
    }
  });

  it("the Redis example is the README's code and runs", async () => {
    const file = readFileSync(join(EXAMPLES, "durable-redis.mjs"), "utf8");
    expect(readmeBlock("durable-redis.mjs")).toBe(file.trimEnd());
    const pg = (await import("pg")).default;
    const { Redis } = await import("ioredis");
    const REDIS_URL = process.env.REDIS_URL || "redis://127.0.0.1:6379";
    const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    const reachable = await Promise.all([admin.query("select 1"), redis.connect()]).then(
      () => true,
      (error: unknown) => {
        if (CI) throw error;
        console.warn(`!!! Redis example SKIPPED: PostgreSQL or Redis unreachable (${error}).`);
        return false;
      },
    );
    const prefix = testPrefix();
    const keyPrefix = `${prefix}:`;
    try {
      if (!reachable) return;
      vi.stubEnv("TABLE_PREFIX", prefix);
      vi.stubEnv("KEY_PREFIX", keyPrefix);
      vi.stubEnv("DATABASE_URL", DATABASE_URL);
      vi.stubEnv("REDIS_URL", REDIS_URL);
      expect(await runExample("durable-redis.mjs")).toBe(
        [
          "done: end_turn",
          "last event id is the stream's last entry: true",
          "events in the database: 0",
        ].join("\n"),
      );
    } finally {
      if (reachable) {
        const keys = await redis.keys(`${keyPrefix}*`);
        if (keys.length > 0) await redis.del(...keys);
        await dropTables(admin, prefix);
      }
      redis.disconnect();
      await admin.end();
    }
  });
});

/** Drops the tables of a test's prefix. */
async function dropTables(admin: import("pg").Pool, prefix: string): Promise<void> {
  const { rows } = await admin.query<{ tablename: string }>(
    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE $1",
    [`${prefix.replace(/_/g, "\\_")}%`],
  );
  for (const { tablename } of rows) await admin.query(`DROP TABLE IF EXISTS "${tablename}"`);
}
