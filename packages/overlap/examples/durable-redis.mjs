import { Redis } from "ioredis";
import { defineTool } from "overlap-runtime";
import { DurableAgentHost } from "overlap-runtime/durable";
import { openPostgresStore } from "overlap-runtime/postgres";
import { redisTurnEvents } from "overlap-runtime/redis";
import { buildStreamEvents, fakeModel } from "overlap-runtime/testing";
import pg from "pg";
import { z } from "zod";

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
});
const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
// The turns' events go to Redis Streams, one per turn, kept 15 minutes after its last write;
// conversations, leases, the journal and the ledger stay in PostgreSQL.
const keyPrefix = process.env.KEY_PREFIX ?? "overlap:";
const store = await openPostgresStore(pool, {
  prefix: process.env.TABLE_PREFIX ?? "overlap_",
  events: { transport: redisTurnEvents(redis, { keyPrefix, retainMs: 15 * 60_000 }) },
});

const lookup = defineTool({
  name: "lookup",
  description: "Looks an order up.",
  input: z.object({ id: z.string() }),
  effects: "none",
  run: ({ id }) => `order ${id}: shipped`,
});
const model = fakeModel([
  buildStreamEvents([{ type: "tool_use", id: "call_0", name: "lookup", input: { id: "7" } }]),
  buildStreamEvents([{ type: "text", text: "It has shipped." }]),
]);

// Two instances over one database and one Redis: B follows the turn A runs.
const a = new DurableAgentHost({ store, model, tools: [lookup] });
const b = new DurableAgentHost({ store, model, tools: [lookup] });
const turn = await a.start({ chatId: "chat-7", message: "Where is order 7?" });
let lastEventId;
for await (const { id, event } of b.read("chat-7")) {
  lastEventId = id; // what a browser sends back as Last-Event-ID to resume
  if (event.type === "done") console.log("done:", event.stopReason);
}
await turn.done;
const stream = `${keyPrefix}turn-events:${turn.turnId}`;
console.log(
  "last event id is the stream's last entry:",
  lastEventId?.endsWith(`:${await redis.xlen(stream)}`),
);
const { rows } = await store.driver.query(`SELECT COUNT(*) AS n FROM ${store.tables.events}`);
console.log("events in the database:", Number(rows[0].n));
await store.close();
await pool.end();
redis.disconnect();
