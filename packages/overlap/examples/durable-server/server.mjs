/**
 * A small durable agent server: overlap-runtime's DurableAgentHost over PostgreSQL, any number of
 * instances on one database, no sticky sessions (see README.md). Configured by the environment:
 * PORT, HOST, DATABASE_URL, TABLE_PREFIX, EXTERNAL_URL, LEASE_TTL_MS, SHUTDOWN_GRACE_MS and the
 * model's (model.mjs).
 */

import { createServer } from "node:http";
import { DurableAgentHost } from "overlap-runtime/durable";
import { openPostgresStore } from "overlap-runtime/postgres";
import pg from "pg";
import { modelFromEnv } from "./model.mjs";
import { createHandler } from "./routes.mjs";
import { exampleTools, migrateNotes } from "./tools.mjs";

const env = process.env;
const prefix = env.TABLE_PREFIX ?? "example_";
const notesTable = `${prefix}notes`;
const graceMs = Number(env.SHUTDOWN_GRACE_MS ?? 10_000);

const pool = new pg.Pool({
  connectionString: env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
  max: 10,
});
// An idle connection the database dropped (a restart, a failover) is reported, not fatal: the
// pool opens a new one for the next query.
pool.on("error", (error) => console.error("idle database connection lost:", error.message));
// Every instance runs the migrations at its start: both take a lock, so that is safe.
const store = await openPostgresStore(pool, { prefix });
await migrateNotes(pool, notesTable);
const { model, label, close: closeModel } = await modelFromEnv(env);

const host = new DurableAgentHost({
  store,
  model,
  tools: exampleTools({ table: notesTable, externalUrl: env.EXTERNAL_URL }),
  context: (turn) => ({ chatId: turn.chatId, effects: turn.effects }),
  system: "You keep notes for the user (save_note) and send notifications (notify).",
  maxRounds: 8,
  ...(env.LEASE_TTL_MS ? { leaseTtlMs: Number(env.LEASE_TTL_MS) } : {}),
  onError: (error, chatId) => console.error(`chat ${chatId}:`, error),
});

/** The turns running here, so that a shutdown lets them finish. */
const turns = new Set();
let draining = false;
const { handle, streams } = createHandler({
  host,
  store,
  pool,
  notesTable,
  label,
  draining: () => draining,
  track: (turn) => {
    turns.add(turn.done);
    void turn.done.then(() => turns.delete(turn.done));
  },
});
const server = createServer((req, res) => void handle(req, res));
server.listen(Number(env.PORT ?? 3000), env.HOST ?? "127.0.0.1", () => {
  const { address, port } = server.address();
  console.log(`Durable agent server: http://${address}:${port} (model: ${label})`);
});

/**
 * SIGTERM or SIGINT: refuse new messages (503), let running turns finish for SHUTDOWN_GRACE_MS,
 * then cancel the rest (each ends its stream with `done`); then end the event streams (their
 * clients resume on another instance with Last-Event-ID) and give the connections back.
 */
async function shutdown(signal) {
  if (draining) return;
  draining = true;
  console.log(`${signal}: stopping (${turns.size} turn(s) running)`);
  server.close();
  server.closeIdleConnections?.();
  const grace = new Promise((resolve) => setTimeout(resolve, graceMs).unref());
  await Promise.race([Promise.all(turns), grace]);
  await host.close();
  for (const stream of streams) stream.end();
  server.closeAllConnections?.();
  await store.close();
  await pool.end();
  await closeModel?.();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
