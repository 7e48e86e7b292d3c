/**
 * The example's two tools. `save_note` writes a row of the example's own table in the same
 * transaction as its ledger record (`effects: "ledger"`): a note exists exactly when the ledger
 * says the call ran. `notify` calls an external HTTP service with the call's idempotency key
 * (`effects: "external"`): after a crash its outcome is unknown, and the answer says so, with the
 * key to check it by.
 */

import { defineTool } from "overlap-runtime";
import { z } from "zod";

/** Creates the notes table (every instance may run this at its start: one lock serializes them). */
export async function migrateNotes(pool, table) {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [table]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${table} (
         id BIGSERIAL PRIMARY KEY,
         chat_id TEXT NOT NULL,
         idempotency_key TEXT NOT NULL,
         text TEXT NOT NULL,
         created_at TIMESTAMPTZ NOT NULL DEFAULT now()
       )`,
    );
    await client.query(`CREATE INDEX IF NOT EXISTS ${table}_by_chat ON ${table} (chat_id, id)`);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * The tools, over the notes table `table` and the external service at `externalUrl`. Their
 * context (`ctx.context`) is the host's: `{ chatId, effects }`.
 */
export function exampleTools({ table, externalUrl, timeoutMs = 10_000 }) {
  const saveNote = defineTool({
    name: "save_note",
    description: "Saves a note for the user.",
    input: z.object({ text: z.string().min(1).max(2000) }),
    effects: "ledger",
    timeoutMs,
    run: ({ text }, ctx) =>
      // The row and the call's ledger record commit together, or neither does.
      ctx.context.effects.record(ctx, async (tx) => {
        const { rows } = await tx.query(
          `INSERT INTO ${table} (chat_id, idempotency_key, text) VALUES (?, ?, ?) RETURNING id`,
          [ctx.context.chatId, ctx.idempotencyKey, text],
        );
        return `Saved note ${rows[0].id} (idempotency key ${ctx.idempotencyKey}).`;
      }),
  });

  const notify = defineTool({
    name: "notify",
    description: "Sends the user a notification through the notification service.",
    input: z.object({ message: z.string().min(1).max(2000) }),
    effects: "external",
    timeoutMs,
    run: async ({ message }, ctx) => {
      if (!externalUrl) throw new Error("No notification service is configured (EXTERNAL_URL).");
      // The service does nothing twice for one key: a retried request is safe.
      const response = await fetch(new URL("/notifications", externalUrl), {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": ctx.idempotencyKey },
        body: JSON.stringify({ chatId: ctx.context.chatId, message }),
        signal: ctx.signal,
      });
      if (!response.ok) throw new Error(`The notification service answered ${response.status}.`);
      const { id } = await response.json();
      return `Notification ${id} sent (idempotency key ${ctx.idempotencyKey}).`;
    },
  });

  return [saveNote, notify];
}
