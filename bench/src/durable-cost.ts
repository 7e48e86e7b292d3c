/**
 * What durability costs a turn: CPU and wall time per turn and per tool call with the in-memory
 * stores, with SQLite (better-sqlite3, a temp file) and with PostgreSQL, side by side, for two
 * workloads: the demo request (two cart adds and a cart total in one round, then the answer) and
 * a turn of eight calls in one round, then the answer.
 *
 * The model is replayed from memory (`buildStreamEvents` + `fakeModel`, no pacing, no network):
 * what is measured is the store's price, not the model's. Each turn is a new chat, run to its
 * end before the next starts (latency, not throughput).
 * - **memory**: `runAgentTurn` with `InMemoryConversationStore` (the user's message and every
 *   round written through `onMessages`), `InMemoryRoundJournal` and `InMemoryToolLedger`: what a
 *   single process that survives nothing runs.
 * - **sqlite** / **postgres**: `DurableAgentHost.run` over `openSqliteStore` /
 *   `openPostgresStore`: the chat's lease claimed and released, the conversation written under
 *   its version, each call journaled and its outcome recorded, every event logged for resumable
 *   reads. This is the whole durable path a host runs, so its price includes the lease and the
 *   event log that the in-memory column has no counterpart for.
 * CPU is this process's (`process.cpuUsage()`): PostgreSQL's own server CPU is not in it (its
 * price shows in the wall time).
 *
 * Run: `npm run durable-cost --workspace bench` (from the repository root), or
 * `node --conditions=overlap-source --import tsx bench/src/durable-cost.ts --turns 200`.
 * `--turns N` measured turns per cell (default 100), `--warmup N` unmeasured turns first
 * (default 20), `--stores memory,postgres` some of the columns only. PostgreSQL at `DATABASE_URL` (default postgres://postgres@127.0.0.1:5432/test),
 * tables under a unique prefix, dropped at the end; skipped with a loud line when unreachable.
 * Prints a table, then one JSON line `{"bench":"durable-cost",...}`.
 */

import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  appendUserText,
  defineTool,
  InMemoryConversationStore,
  InMemoryRoundJournal,
  InMemoryToolLedger,
  type ModelClient,
  runAgentTurn,
  ToolExecutor,
} from "overlap-runtime";
import { DurableAgentHost, type DurableStore } from "overlap-runtime/durable";
import { openPostgresStore, type PgNotification, type PgPoolLike } from "overlap-runtime/postgres";
import { openSqliteStore } from "overlap-runtime/sqlite";
import {
  buildStreamEvents,
  type FakeModel,
  fakeModel,
  type ScriptBlock,
} from "overlap-runtime/testing";
import { z } from "zod";
import {
  type CellFigures,
  cellOf,
  formatTable,
  type TurnSample,
  withRatios,
} from "./durable-cost-table.js";

const { values: flags } = parseArgs({
  options: {
    turns: { type: "string", default: process.env.DURABLE_TURNS ?? "100" },
    warmup: { type: "string", default: "20" },
    stores: { type: "string", default: "memory,sqlite,sqlite-normal,postgres,postgres-async" },
  },
});
const TURNS = Math.max(1, Number(flags.turns) || 100);
const WARMUP = Math.max(0, Number(flags.warmup) || 0);
const STORES = new Set(flags.stores.split(","));
const DATABASE_URL = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";

// The shop's demo tools, in memory: what is measured is the store around them.
const carts = new Map<string, Map<string, number>>();
const tools = [
  defineTool({
    name: "add_to_cart",
    description: "Adds a product to the cart.",
    input: z.object({ sku: z.string(), quantity: z.number() }),
    dispatch: "eager",
    effects: "external",
    run: async ({ sku, quantity }, ctx) => {
      const cart = carts.get(ctx.idempotencyKey) ?? new Map<string, number>();
      cart.set(sku, (cart.get(sku) ?? 0) + quantity);
      carts.set(ctx.idempotencyKey, cart);
      return { text: `Added ${quantity} x ${sku}.` };
    },
  }),
  defineTool({
    name: "cart_total",
    description: "The cart's total.",
    input: z.object({}),
    dispatch: "eager",
    effects: "none",
    run: async () => ({ text: "Total: 42.50 EUR" }),
  }),
];

interface Workload {
  name: string;
  prompt: string;
  calls: (turn: number) => ScriptBlock[];
}

const workloads: Workload[] = [
  {
    name: "demo",
    prompt: "Add two cans of tomatoes and a bag of pasta, then tell me the total.",
    calls: (turn) => [
      { type: "text", text: "Adding both, then the total." },
      {
        type: "tool_use",
        id: `t${turn}_0`,
        name: "add_to_cart",
        input: { sku: "tomatoes-400g", quantity: 2 },
      },
      {
        type: "tool_use",
        id: `t${turn}_1`,
        name: "add_to_cart",
        input: { sku: "penne-500g", quantity: 1 },
      },
      { type: "tool_use", id: `t${turn}_2`, name: "cart_total", input: {} },
    ],
  },
  {
    name: "8-call",
    prompt: "Add these eight products.",
    calls: (turn) =>
      Array.from({ length: 8 }, (_, i) => ({
        type: "tool_use" as const,
        id: `t${turn}_${i}`,
        name: "add_to_cart",
        input: { sku: `sku-${i}`, quantity: i + 1 },
      })),
  },
];
const callsOf = (w: Workload) => w.calls(0).filter((b) => b.type === "tool_use").length;

/** The turn's model, built before the clock starts: its two responses as events. */
function modelFor(w: Workload, turn: number): FakeModel {
  return fakeModel([
    buildStreamEvents(w.calls(turn), { stopReason: "tool_use" }),
    buildStreamEvents([{ type: "text", text: "Done: your cart holds them, 42.50 EUR in all." }]),
  ]);
}

/** One turn of a chat, run to its end. */
type RunTurn = (chatId: string, model: ModelClient, prompt: string) => Promise<void>;

function memoryRunner(): RunTurn {
  const conversations = new InMemoryConversationStore();
  const executor = new ToolExecutor(tools);
  return async (chatId, model, prompt) => {
    const stored = await conversations.load(chatId);
    const appended = appendUserText(stored, prompt);
    await conversations.write(chatId, appended.from, appended.messages.slice(appended.from));
    const events: unknown[] = [];
    const result = await runAgentTurn({
      model,
      executor,
      messages: appended.messages,
      sink: (event) => events.push(event),
      journal: new InMemoryRoundJournal(),
      ledger: new InMemoryToolLedger(),
      onMessages: (update) => conversations.write(chatId, update.from, update.messages),
    });
    if (result.error) throw new Error(`${result.error.code}: ${result.error.message}`);
  };
}

function hostRunner(store: DurableStore): { run: RunTurn; close: () => Promise<void> } {
  let current: ModelClient | undefined;
  const model: ModelClient = {
    label: "scripted-fake",
    stream: (request, options) => current!.stream(request, options),
  };
  const host = new DurableAgentHost({ store, model, tools });
  return {
    run: async (chatId, turnModel, prompt) => {
      current = turnModel;
      const done = await host.run({ chatId, message: prompt });
      if (done.error)
        throw done.error instanceof Error ? done.error : new Error(String(done.error));
    },
    close: () => host.close(),
  };
}

async function measure(store: string, w: Workload, run: RunTurn): Promise<CellFigures> {
  const chat = `bench-${store}-${w.name}-${randomUUID().slice(0, 8)}`;
  for (let i = 0; i < WARMUP; i++) await run(`${chat}-w${i}`, modelFor(w, i), w.prompt);
  const samples: TurnSample[] = [];
  for (let i = 0; i < TURNS; i++) {
    const model = modelFor(w, i);
    const cpu = process.cpuUsage();
    const start = performance.now();
    await run(`${chat}-${i}`, model, w.prompt);
    const wallMs = performance.now() - start;
    const used = process.cpuUsage(cpu);
    samples.push({ cpuMs: (used.user + used.system) / 1000, wallMs });
  }
  return cellOf(store, w.name, callsOf(w), samples);
}

const cells: CellFigures[] = [];
const skipped: Record<string, string> = {};

if (STORES.has("memory")) {
  const memory = memoryRunner();
  for (const w of workloads) cells.push(await measure("memory", w, memory));
}

/** SQLite in a temp file, WAL, with the given `synchronous` pragma (FULL is better-sqlite3's default). */
async function measureSqlite(store: string, synchronous: "FULL" | "NORMAL"): Promise<void> {
  const Database = (await import("better-sqlite3")).default;
  const dir = mkdtempSync(join(tmpdir(), "overlap-durable-cost-"));
  const db = new Database(join(dir, "bench.db"));
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${synchronous}`);
  try {
    const durable = await openSqliteStore(db, { prefix: "bench_" });
    const host = hostRunner(durable);
    for (const w of workloads) cells.push(await measure(store, w, host.run));
    await host.close();
    await durable.close();
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Per turn on PostgreSQL: statements sent, and commits (a transaction's, or a lone statement's). */
const statements: Record<string, { statements: number; commits: number }> = {};

/** The pool, counting the statements sent through it and the commits they make. */
function countingPool(pool: import("pg").Pool): {
  pool: PgPoolLike;
  counts: { statements: number; commits: number };
} {
  const counts = { statements: 0, commits: 0 };
  const count = (sql: string, inTransaction: boolean) => {
    counts.statements++;
    if (sql === "COMMIT" || !inTransaction) counts.commits++;
  };
  const wrapped = {
    query: (text: string, values?: unknown[]) => {
      count(text, false);
      return pool.query(text, values);
    },
    connect: async () => {
      const client = await pool.connect();
      let open = false;
      // A wrapper, not the pooled client changed: the pool hands the same client out again.
      return {
        query: (text: string, values?: unknown[]) => {
          if (text === "BEGIN") open = true;
          // A listening connection's LISTEN is no part of a turn.
          if (!text.startsWith("LISTEN") && !text.startsWith("UNLISTEN")) count(text, open);
          if (text === "COMMIT" || text === "ROLLBACK") open = false;
          return client.query(text, values);
        },
        on: (event: "notification", listener: (message: PgNotification) => void) =>
          client.on(event, listener),
        removeListener: (event: "notification", listener: (message: PgNotification) => void) =>
          client.removeListener(event, listener),
        release: (destroy?: boolean | Error) => client.release(destroy),
      };
    },
  };
  return { pool: wrapped, counts };
}

/**
 * PostgreSQL under a unique table prefix, dropped afterwards; `synchronousCommit: "off"` sets it
 * for the pool's sessions. False when the server is unreachable (said loudly once).
 */
async function measurePostgres(store: string, synchronousCommit: "on" | "off"): Promise<boolean> {
  const { Pool } = (await import("pg")).default;
  const pool = new Pool({
    connectionString: DATABASE_URL,
    max: 4,
    connectionTimeoutMillis: 3_000,
    options: `-c synchronous_commit=${synchronousCommit}`,
  });
  try {
    await pool.query("select 1");
  } catch (error) {
    const problem = error instanceof Error ? error.message : String(error);
    skipped.postgres = problem;
    console.warn(
      `\n!!! PostgreSQL SKIPPED: cannot reach ${DATABASE_URL} (${problem}).\n` +
        "!!! Start PostgreSQL or set DATABASE_URL to measure its columns.\n",
    );
    await pool.end().catch(() => {});
    return false;
  }
  // Counted (not timed apart): what a turn asks of the server.
  const counted = countingPool(pool);
  const prefix = `bench_dc_${randomUUID().replace(/-/g, "").slice(0, 10)}_`;
  try {
    const durable = await openPostgresStore(counted.pool, { prefix });
    const host = hostRunner(durable);
    try {
      for (const w of workloads) {
        const before = { ...counted.counts };
        cells.push(await measure(store, w, host.run));
        const per = (n: number) => Math.round((n / (WARMUP + TURNS)) * 10) / 10;
        statements[`${store}/${w.name}`] = {
          statements: per(counted.counts.statements - before.statements),
          commits: per(counted.counts.commits - before.commits),
        };
      }
    } finally {
      await host.close();
      await durable.close();
    }
  } finally {
    const { rows } = await pool.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE $1",
      [`${prefix.replace(/_/g, "\\_")}%`],
    );
    for (const { tablename } of rows) await pool.query(`DROP TABLE IF EXISTS "${tablename}"`);
    await pool.end();
  }
  return true;
}

if (STORES.has("sqlite")) await measureSqlite("sqlite", "FULL");
if (STORES.has("sqlite-normal")) await measureSqlite("sqlite-normal", "NORMAL");
const reachable = !STORES.has("postgres") || (await measurePostgres("postgres", "on"));
if (reachable && STORES.has("postgres-async")) await measurePostgres("postgres-async", "off");

/** The cell with its numbers to three decimals (the JSON line). */
function rounded(cell: CellFigures): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(cell).map(([k, v]) => [
      k,
      typeof v === "number" ? Math.round(v * 1000) / 1000 : v,
    ]),
  );
}

const order = ["memory", "sqlite", "sqlite-normal", "postgres", "postgres-async"];
const figures = withRatios(cells, "memory").sort(
  (a, b) =>
    workloads.findIndex((w) => w.name === a.workload) -
      workloads.findIndex((w) => w.name === b.workload) ||
    order.indexOf(a.store) - order.indexOf(b.store),
);
console.log(
  `durable-cost: ${TURNS} measured turns per cell after ${WARMUP} warm-up turns, medians; a new chat per turn, the model replayed from memory`,
);
console.log(formatTable(figures));
for (const [cell, n] of Object.entries(statements)) {
  console.log(`${cell}: ${n.statements} statements per turn, ${n.commits} commits`);
}
console.log(
  JSON.stringify({
    bench: "durable-cost",
    turns: TURNS,
    warmup: WARMUP,
    skipped,
    postgresPerTurn: statements,
    cells: figures.map(rounded),
  }),
);
