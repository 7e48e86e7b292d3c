/**
 * The ToolLedger over SQL: finished outcomes keyed by (chat, call id). The chat is part of the key
 * because call ids are only unique within a conversation (some OpenAI-compatible servers number
 * calls `call_0`, `call_1`... in every chat), and one chat must never replay another's outcome.
 * Each record keeps its call and its idempotency key. The first record of a call wins: a tool that
 * records its effect in the effect's own transaction (`DurableEffects`) writes it first, and the
 * runtime's later `record` of the same call changes nothing.
 */

import type { RecordedCall, StoredCall } from "../agent/restore-round.js";
import type { ToolLedger } from "../dispatch/tool-ledger.js";
import type { ToolCall } from "../stream/tool-call.js";
import type { ToolOutcome } from "../tools/tool-outcome.js";
import type { DurableTables } from "./durable-schema.js";
import type { SqlDriver, SqlExecutor } from "./sql-driver.js";
import { WriteBatcher } from "./write-batcher.js";

/** The ledger of one chat. */
export class DurableToolLedger implements ToolLedger {
  readonly #driver: SqlDriver;
  readonly #tables: DurableTables;
  readonly #chatId: string;
  readonly #keyOf: ((call: ToolCall) => string) | undefined;
  /** Outcomes of one round come close together: their records go out grouped. */
  readonly #records = new WriteBatcher<LedgerRow>((rows) =>
    insertLedgerRecords(this.#driver, this.#tables, this.#chatId, rows),
  );

  constructor(
    driver: SqlDriver,
    tables: DurableTables,
    chatId: string,
    keyOf?: (call: ToolCall) => string,
  ) {
    this.#driver = driver;
    this.#tables = tables;
    this.#chatId = chatId;
    this.#keyOf = keyOf;
  }

  async lookup(callId: string): Promise<ToolOutcome | undefined> {
    const { rows } = await this.#driver.query<{ outcome: string }>(
      `SELECT outcome FROM ${this.#tables.ledger} WHERE conversation_id = ? AND call_id = ?`,
      [this.#chatId, callId],
    );
    return rows[0] ? (JSON.parse(rows[0].outcome) as ToolOutcome) : undefined;
  }

  async record(outcome: ToolOutcome, call?: ToolCall): Promise<void> {
    const key = call && this.#keyOf ? this.#keyOf(call) : undefined;
    await this.#records.add({ outcome, call, idempotencyKey: key });
  }

  /** The records of the given calls (e.g. the journaled ones), with their calls. */
  records(calls: readonly StoredCall[]): Promise<RecordedCall[]> {
    return ledgerRecords(this.#driver, this.#tables, this.#chatId, calls);
  }
}

/**
 * Inserts a ledger record unless the call has one already (the first record is the effect that
 * happened; a late duplicate must not rewrite history). Pass a transaction to commit the record
 * with the effect it describes.
 */
export function insertLedgerRecord(
  db: SqlExecutor,
  t: DurableTables,
  chatId: string,
  outcome: ToolOutcome,
  call: StoredCall | undefined,
  idempotencyKey: string | undefined,
): Promise<void> {
  return insertLedgerRecords(db, t, chatId, [{ outcome, call, idempotencyKey }]);
}

/** A ledger record to insert. */
export interface LedgerRow {
  outcome: ToolOutcome;
  call: StoredCall | undefined;
  idempotencyKey: string | undefined;
}

/** Inserts records of calls that have none yet, in one statement. */
export async function insertLedgerRecords(
  db: SqlExecutor,
  t: DurableTables,
  chatId: string,
  records: readonly LedgerRow[],
): Promise<void> {
  if (records.length === 0) return;
  const now = Date.now();
  await db.query(
    `INSERT INTO ${t.ledger}
       (conversation_id, call_id, name, status, outcome, entry, idempotency_key, created_at)
     VALUES ${records.map(() => "(?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}
     ON CONFLICT (conversation_id, call_id) DO NOTHING`,
    records.flatMap(({ outcome, call, idempotencyKey }) => {
      // `replayed` describes one delivery, not the call: it is never stored.
      const stored: ToolOutcome = { ...outcome };
      delete stored.replayed;
      return [
        chatId,
        outcome.callId,
        outcome.name,
        outcome.status,
        JSON.stringify(stored),
        call ? JSON.stringify({ round: call.round, index: call.index, block: call.block }) : null,
        idempotencyKey ?? null,
        now,
      ];
    }),
  );
}

/** The records of some of a chat's calls, with their calls. */
export async function ledgerRecords(
  db: SqlExecutor,
  t: DurableTables,
  chatId: string,
  calls: readonly StoredCall[],
): Promise<RecordedCall[]> {
  const byId = new Map(calls.map((call) => [call.block.id, call]));
  const ids = [...byId.keys()];
  const out: RecordedCall[] = [];
  // Chunked: both databases cap the number of parameters in one statement.
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const { rows } = await db.query<{ call_id: string; outcome: string }>(
      `SELECT call_id, outcome FROM ${t.ledger}
       WHERE conversation_id = ? AND call_id IN (${chunk.map(() => "?").join(", ")})`,
      [chatId, ...chunk],
    );
    for (const row of rows) {
      const call = byId.get(row.call_id);
      if (call) out.push({ call, outcome: JSON.parse(row.outcome) as ToolOutcome });
    }
  }
  return out;
}
