/**
 * One turn per chat across every instance that shares the database: a turn claims its chat with
 * a lease row before it reads or writes anything, renews it while it runs and deletes it when it
 * ends. The claim is a read and a conditional write under the chat's lock, so of two claims at the
 * same moment on two instances exactly one wins. A row whose expiry passed belongs to an instance
 * that died: the next claim takes the chat over and says so.
 *
 * The lease row is also how other instances reach a running turn without any other channel: a
 * cancel (or a revocation) asked anywhere marks the row, and the turn's next renewal, which
 * returns the mark, stops the turn. And it fences a dead holder's late writes: every write that
 * names its turn checks, under the chat's lock and in its own transaction, that the lease is still
 * that turn's ({@link assertLeaseHeld}).
 */

import { holderIsGone } from "./durable-identity.js";
import type { DurableTables } from "./durable-schema.js";
import type { SqlDriver, SqlExecutor } from "./sql-driver.js";

/** Who claims a chat: the turn and the instance that runs it. */
export interface LeaseClaim {
  readonly turnId: string;
  /** The instance (process) that runs the turn, as lease rows name it. */
  readonly holder: string;
  /** How long the lease lasts without renewal, in ms. */
  readonly ttlMs: number;
  /** The turn id of a live-looking lease the claimer knows to be dead: taken over at once. */
  readonly presumedDead?: string;
}

/** A lease as stored. */
export interface TurnLease {
  readonly turnId: string;
  readonly holder: string;
  /** Epoch ms after which the lease no longer holds. */
  readonly expiresAt: number;
  /** Why another instance asked the turn to stop, once one did. */
  readonly cancelReason?: string;
}

/** The answer to {@link DurableTurnLeases.claim}. */
export type LeaseClaimResult =
  | { readonly ok: true; readonly tookOver?: TurnLease }
  | { readonly ok: false; readonly heldBy: TurnLease };

/** The answer to {@link DurableTurnLeases.renew}. */
export interface LeaseRenewal {
  /** False when the lease is no longer the turn's (taken over, or released). */
  readonly held: boolean;
  /** Set when an instance asked the turn to stop ({@link DurableTurnLeases.requestCancel}). */
  readonly cancelReason?: string;
}

/** Raised in a write whose turn no longer holds its chat's lease; the write is rolled back. */
export class TurnLeaseLostError extends Error {
  override readonly name = "TurnLeaseLostError";
  readonly chatId: string;
  readonly turnId: string;

  constructor(chatId: string, turnId: string) {
    super(`The turn ${turnId} no longer holds the lease of chat ${chatId}: another took it over.`);
    this.chatId = chatId;
    this.turnId = turnId;
  }
}

/** The lock every transaction of one chat takes (claims, writes, effects). */
export function chatLock(tables: DurableTables, chatId: string): string {
  return `${tables.leases}:${chatId}`;
}

/**
 * Inside a transaction that holds the chat's lock: throws {@link TurnLeaseLostError} unless
 * `turnId` holds the chat's lease.
 */
export async function assertLeaseHeld(
  tx: SqlExecutor,
  tables: DurableTables,
  chatId: string,
  turnId: string,
): Promise<void> {
  const { rows } = await tx.query<{ turn_id: string }>(
    `SELECT turn_id FROM ${tables.leases} WHERE conversation_id = ?`,
    [chatId],
  );
  if (rows[0]?.turn_id !== turnId) throw new TurnLeaseLostError(chatId, turnId);
}

/** The turn leases of every chat, in the `turn_leases` table of a prefix. */
export class DurableTurnLeases {
  readonly #driver: SqlDriver;
  readonly #tables: DurableTables;
  readonly #now: () => number;

  constructor(driver: SqlDriver, tables: DurableTables, now: () => number = Date.now) {
    this.#driver = driver;
    this.#tables = tables;
    this.#now = now;
  }

  /** Claims the chat for a turn unless a live lease holds it. */
  claim(chatId: string, claim: LeaseClaim): Promise<LeaseClaimResult> {
    const t = this.#tables;
    return this.#driver.transaction(
      async (tx) => {
        const found = await readLease(tx, t, chatId);
        const now = this.#now();
        const dead = found !== undefined && found.turnId === claim.presumedDead;
        if (found && found.expiresAt > now && !dead) return { ok: false, heldBy: found };
        await tx.query(
          `INSERT INTO ${t.leases} (conversation_id, turn_id, holder, expires_at, cancel_reason, claimed_at)
         VALUES (?, ?, ?, ?, NULL, ?)
         ON CONFLICT (conversation_id) DO UPDATE SET turn_id = excluded.turn_id,
           holder = excluded.holder, expires_at = excluded.expires_at, cancel_reason = NULL,
           claimed_at = excluded.claimed_at`,
          [chatId, claim.turnId, claim.holder, now + claim.ttlMs, now],
        );
        return found ? { ok: true, tookOver: found } : { ok: true };
      },
      chatLock(t, chatId),
    );
  }

  /** Extends the turn's lease by `ttlMs` from now, and says whether a cancel was asked. */
  async renew(chatId: string, turnId: string, ttlMs: number): Promise<LeaseRenewal> {
    const { rows } = await this.#driver.query<{ cancel_reason: string | null }>(
      `UPDATE ${this.#tables.leases} SET expires_at = ?
       WHERE conversation_id = ? AND turn_id = ? RETURNING cancel_reason`,
      [this.#now() + ttlMs, chatId, turnId],
    );
    const row = rows[0];
    if (!row) return { held: false };
    return row.cancel_reason === null
      ? { held: true }
      : { held: true, cancelReason: row.cancel_reason };
  }

  /** Ends the turn's lease (nothing when it is no longer the turn's). */
  async release(chatId: string, turnId: string): Promise<void> {
    await this.#driver.query(
      `DELETE FROM ${this.#tables.leases} WHERE conversation_id = ? AND turn_id = ?`,
      [chatId, turnId],
    );
  }

  /** The chat's lease, live or expired; `undefined` when the chat is free. */
  current(chatId: string): Promise<TurnLease | undefined> {
    return readLease(this.#driver, this.#tables, chatId);
  }

  /**
   * Asks the turn that holds the chat to stop (from any instance): its next renewal sees
   * `reason`. With `turnId`, only that turn. True when a lease was marked.
   */
  async requestCancel(chatId: string, reason: string, turnId?: string): Promise<boolean> {
    const t = this.#tables;
    const result =
      turnId === undefined
        ? await this.#driver.query(
            `UPDATE ${t.leases} SET cancel_reason = ? WHERE conversation_id = ?`,
            [reason, chatId],
          )
        : await this.#driver.query(
            `UPDATE ${t.leases} SET cancel_reason = ? WHERE conversation_id = ? AND turn_id = ?`,
            [reason, chatId, turnId],
          );
    return result.changes > 0;
  }
}

/** The chat's lease row, if any. */
export async function readLease(
  db: SqlExecutor,
  tables: DurableTables,
  chatId: string,
): Promise<TurnLease | undefined> {
  const { rows } = await db.query<{
    turn_id: string;
    holder: string;
    expires_at: number | string;
    cancel_reason: string | null;
  }>(
    `SELECT turn_id, holder, expires_at, cancel_reason FROM ${tables.leases} WHERE conversation_id = ?`,
    [chatId],
  );
  const row = rows[0];
  if (!row) return undefined;
  // PostgreSQL's BIGINT comes back from pg as a string.
  const lease = { turnId: row.turn_id, holder: row.holder, expiresAt: Number(row.expires_at) };
  return row.cancel_reason === null ? lease : { ...lease, cancelReason: row.cancel_reason };
}

/**
 * True while a lease holds: not expired, and not of a process of this machine known to be gone
 * (a restart after a crash: its turn's readers need not wait out the lease).
 */
export function leaseLives(lease: TurnLease, now: number): boolean {
  return lease.expiresAt > now && !holderIsGone(lease.holder);
}
