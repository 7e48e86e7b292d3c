/**
 * What the shop's multi-process tests share: whether PostgreSQL answers, and every call of a
 * conversation with every result (all of them, so a call answered twice or not at all shows).
 */

import type { Message, ToolResultBlock, ToolUseBlock } from "overlap-runtime";
import pg from "pg";
import { withDefaultUser } from "../db/postgres-store.js";

/** The database the tests use: `DATABASE_URL`, else the local `test` database. */
export const TEST_DATABASE_URL = withDefaultUser(
  process.env.DATABASE_URL || "postgres://127.0.0.1:5432/test",
);

/** Null when PostgreSQL answers at `url`, else why not. */
export async function postgresProblem(url = TEST_DATABASE_URL): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Every call of a conversation and every result, in order. */
export function callsOf(messages: readonly Message[]): {
  uses: ToolUseBlock[];
  results: ToolResultBlock[];
} {
  const uses: ToolUseBlock[] = [];
  const results: ToolResultBlock[] = [];
  for (const message of messages) {
    if (message.role === "assistant") {
      for (const block of message.content) if (block.type === "tool_use") uses.push(block);
    } else if (Array.isArray(message.content)) {
      for (const block of message.content) if (block.type === "tool_result") results.push(block);
    }
  }
  return { uses, results };
}
