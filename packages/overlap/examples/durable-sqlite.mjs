import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { defineTool } from "overlap-runtime";
import { DurableAgentHost } from "overlap-runtime/durable";
import { openSqliteStore } from "overlap-runtime/sqlite";
import { buildStreamEvents, fakeModel } from "overlap-runtime/testing";
import { z } from "zod";

// Your database, your driver: the store only creates its tables (prefix `overlap_`).
const db = new Database(join(mkdtempSync(join(tmpdir(), "overlap-")), "chats.db"));
db.pragma("journal_mode = WAL");
const store = await openSqliteStore(db);

const sendEmail = defineTool({
  name: "send_email",
  description: "Sends an email.",
  input: z.object({ to: z.string() }),
  // Its effect lives outside the database: after a crash its outcome is reported as unknown.
  effects: "external",
  // Pass the key to the mail API: a retry after a crash then sends nothing twice.
  run: ({ to }, ctx) => `sent to ${to} (key ${ctx.idempotencyKey.slice(0, 4)}…)`,
});

const model = fakeModel([
  buildStreamEvents([{ type: "tool_use", id: "call_0", name: "send_email", input: { to: "ada" } }]),
  buildStreamEvents([{ type: "text", text: "Sent." }]),
]);
const host = new DurableAgentHost({ store, model, tools: [sendEmail] });

// Claims the chat (a second message meanwhile gets TurnRunningError), restores what a crash
// left, runs the turn, stores every round under the conversation's version, releases the chat.
const { result } = await host.run({ chatId: "chat-1", message: "Email Ada." });
console.log(result?.stopReason);
// The turn's stored events, from any instance; a reader passes its Last-Event-ID to resume.
for await (const { event } of host.read("chat-1")) {
  if (event.type === "tool-result" || event.type === "done") console.log(event.type);
}
console.log((await store.conversations.load("chat-1")).length, "messages stored");
db.close();
