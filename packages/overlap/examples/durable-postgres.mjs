import { defineTool } from "overlap-runtime";
import { DurableAgentHost, TurnRunningError } from "overlap-runtime/durable";
import { openPostgresStore } from "overlap-runtime/postgres";
import { buildStreamEvents, fakeModel } from "overlap-runtime/testing";
import pg from "pg";
import { z } from "zod";

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
});
// Every instance runs this at start: the migrations take an advisory lock, so that is safe.
const store = await openPostgresStore(pool, { prefix: process.env.TABLE_PREFIX ?? "overlap_" });

const lookup = defineTool({
  name: "lookup",
  description: "Looks an order up.",
  input: z.object({ id: z.string() }),
  effects: "none", // changes nothing: a call a crash cut off is answered "not run"
  run: async ({ id }) => {
    await new Promise((resolve) => setTimeout(resolve, 200));
    return `order ${id}: shipped`;
  },
});
const model = fakeModel([
  buildStreamEvents([{ type: "tool_use", id: "call_0", name: "lookup", input: { id: "42" } }]),
  buildStreamEvents([{ type: "text", text: "It has shipped." }]),
]);

// Two instances behind a load balancer: two hosts over one database.
const a = new DurableAgentHost({ store, model, tools: [lookup] });
const b = new DurableAgentHost({ store, model, tools: [lookup] });
const turn = await a.start({ chatId: "chat-42", message: "Where is order 42?" });
try {
  await b.start({ chatId: "chat-42", message: "Hello?" });
} catch (error) {
  if (error instanceof TurnRunningError) console.log("409, retry after", error.retryAfterMs > 0);
}
// Instance B streams the turn A runs (resumable with Last-Event-ID), woken by NOTIFY.
for await (const { event } of b.read("chat-42")) {
  if (event.type === "done") console.log("done:", event.stopReason);
}
await turn.done;
console.log(JSON.stringify((await store.conversations.load("chat-42")).at(-1)?.content));
await store.close();
await pool.end();
