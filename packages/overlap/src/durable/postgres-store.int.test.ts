import { describe, expect, it } from "vitest";
import { registerDurableHostSuite } from "./durable-agent-host.testkit.js";
import {
  type DurableHarness,
  registerConversationConformance,
  registerDurableStoreSuite,
  testPrefix,
} from "./durable-store-suite.testkit.js";
import { openPostgresStore } from "./postgres.js";

const DATABASE_URL = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
const CI = process.env.CI === "true";

// Imported here, not at the top: a worker that cannot load pg says why instead of a bare failure.
const pg = await import("pg").then(
  (module) => module.default,
  (error: unknown) => error,
);

async function unreachable(): Promise<string | null> {
  if (pg instanceof Error) return `pg cannot be loaded: ${pg.message}`;
  const client = new (pg as typeof import("pg").default).Client({
    connectionString: DATABASE_URL,
    connectionTimeoutMillis: 3_000,
  });
  try {
    await client.connect();
    await client.query("select 1");
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

const problem = await unreachable();
if (problem !== null && !CI) {
  console.warn(
    `\n!!! PostgreSQL durable store tests SKIPPED: cannot reach ${DATABASE_URL} (${problem}).\n` +
      "!!! Start PostgreSQL or set DATABASE_URL; under CI=true these tests fail instead.\n",
  );
}
describe.runIf(problem !== null && CI)("PostgreSQL availability", () => {
  it("is required under CI", () => {
    expect.fail(`PostgreSQL is unreachable at ${DATABASE_URL}: ${problem}`);
  });
});

/**
 * Tables under a prefix unique to the test (others share the database), dropped at the end; each
 * `open` is a pool of its own, as another instance's would be.
 */
async function postgresHarness(): Promise<DurableHarness> {
  const { Pool } = pg as typeof import("pg").default;
  const prefix = testPrefix();
  const pools: import("pg").Pool[] = [];
  const stores: { close(): Promise<void> }[] = [];
  return {
    prefix,
    async open(options = {}) {
      const pool = new Pool({ connectionString: DATABASE_URL, max: 4 });
      pools.push(pool);
      const store = await openPostgresStore(pool, { prefix, ...options });
      stores.push(store);
      return store;
    },
    async dispose() {
      // The tables first: a store that cannot close (a test that failed mid-turn) leaves none.
      const admin = new Pool({ connectionString: DATABASE_URL, max: 1 });
      const { rows } = await admin.query<{ tablename: string }>(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE $1",
        [`${prefix.replace(/_/g, "\\_")}%`],
      );
      for (const { tablename } of rows) await admin.query(`DROP TABLE IF EXISTS "${tablename}"`);
      await admin.end();
      for (const store of stores) await store.close().catch(() => {});
      for (const pool of pools) await pool.end().catch(() => {});
    },
  };
}

if (problem === null) {
  registerConversationConformance(
    "durable stores on PostgreSQL: the ConversationStore and ToolLedger contract",
    async () => {
      const harness = await postgresHarness();
      const store = await harness.open();
      return {
        conversations: store.conversations,
        ledger: (chatId) => store.ledger(chatId),
        dispose: () => harness.dispose(),
      };
    },
  );
  registerDurableStoreSuite("durable stores on PostgreSQL", postgresHarness);
  registerDurableHostSuite("DurableAgentHost on PostgreSQL", postgresHarness);
}
