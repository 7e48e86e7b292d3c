/**
 * One turn per chat across every instance that shares the database: a turn claims its chat with a
 * lease row before it reads or writes anything, renews it while it runs and deletes it when it
 * ends. The claim is a read and a conditional write under the chat's lease lock (PostgreSQL: an
 * advisory lock held by the transaction; SQLite: BEGIN IMMEDIATE's write lock), so of two claims
 * at the same moment on two instances exactly one wins. A row whose expiry passed belongs to an
 * instance that died (kill -9, lost network): the next claim takes the chat over and says so, and
 * the new turn repairs the conversation from the round journal before it starts.
 *
 * An instance also knows a lease dead before it expires when its holder was a process of this
 * machine that is gone (a restart after a crash): see {@link holderIsGone}.
 *
 * The same lock fences the dead holder's late writes: a conversation write or a tool effect that
 * names its lease checks, under that lock and in its own transaction, that the lease is still its
 * own (see {@link assertLeaseHeld}), so a holder that lost its lease can change nothing after the
 * new one took over.
 */

import type { Kysely, Transaction } from "kysely";
import { preparedQuery } from "./prepared-query.js";
import type { ShopDatabase } from "./shop-database.js";
import type { StoreDialect } from "./store-dialect.js";

/** Who claims a chat: the turn and the instance that runs it. */
export interface LeaseClaim {
  readonly turnId: string;
  /** The instance (process) that runs the turn. */
  readonly holder: string;
  /** How long the lease lasts without renewal, in ms. */
  readonly ttlMs: number;
  /**
   * The turn id of a live-looking lease the claimer knows to be dead (its process is gone): taken
   * over like an expired one, and only while that turn still holds it.
   */
  readonly presumedDead?: string;
}

/** A lease as stored. */
export interface TurnLease {
  readonly turnId: string;
  readonly holder: string;
  /** Epoch ms after which the lease no longer holds. */
  readonly expiresAt: number;
}

/** The answer to {@link TurnLeases.claim}. */
export type ClaimResult =
  | {
      readonly ok: true;
      /** The lease of a holder that died, taken over by this claim; absent for a free chat. */
      readonly tookOver?: TurnLease;
    }
  | {
      readonly ok: false;
      /** The live lease that holds the chat. */
      readonly heldBy: TurnLease;
    };

/** The turn leases of every chat. */
export interface TurnLeases {
  /** Claims the chat for a turn unless a live lease holds it. */
  claim(sessionId: string, claim: LeaseClaim): Promise<ClaimResult>;
  /** Extends the turn's lease by `ttlMs` from now; false when the lease is no longer the turn's. */
  renew(sessionId: string, turnId: string, ttlMs: number): Promise<boolean>;
  /** Ends the turn's lease (nothing when it is no longer the turn's). */
  release(sessionId: string, turnId: string): Promise<void>;
  /** The chat's lease, live or expired; `undefined` when the chat is free. */
  current(sessionId: string): Promise<TurnLease | undefined>;
}

/** Raised in a write whose turn no longer holds its chat's lease; the write is rolled back. */
export class TurnLeaseLost extends Error {
  override readonly name = "TurnLeaseLost";
  readonly sessionId: string;
  readonly turnId: string;

  constructor(sessionId: string, turnId: string) {
    super(
      `The turn ${turnId} no longer holds the lease of ${sessionId}: another instance took the chat over.`,
    );
    this.sessionId = sessionId;
    this.turnId = turnId;
  }
}

/** True for a {@link TurnLeaseLost}, also when a tool's failure wraps it as its cause. */
export function isTurnLeaseLost(err: unknown): err is TurnLeaseLost {
  return err instanceof TurnLeaseLost;
}

/** The lease lock's key of a chat. */
function leaseLockKey(sessionId: string): string {
  return `lease:${sessionId}`;
}

/**
 * Inside a transaction: takes the chat's lease lock and checks that `turnId` still holds the
 * lease, else throws {@link TurnLeaseLost} (rolling the transaction back). Held until the
 * transaction ends, so a takeover waits for this write and then sees it.
 */
export async function assertLeaseHeld(
  trx: Transaction<ShopDatabase>,
  dialect: StoreDialect,
  sessionId: string,
  turnId: string,
): Promise<void> {
  await dialect.lock(trx, leaseLockKey(sessionId));
  const row = (await leaseTurnOf(trx, sessionId)).rows[0];
  if (row?.turn_id !== turnId) throw new TurnLeaseLost(sessionId, turnId);
}

// The queries every turn runs, compiled once per database.
const leaseTurnOf = preparedQuery((db, sessionId: string) =>
  db.selectFrom("turn_leases").select("turn_id").where("session_id", "=", sessionId),
);
const leaseOf = preparedQuery((db, sessionId: string) =>
  db
    .selectFrom("turn_leases")
    .select(["turn_id", "holder", "expires_at"])
    .where("session_id", "=", sessionId),
);
const upsertLease = preparedQuery(
  (db, sessionId: string, turnId: string, holder: string, expiresAt: number, claimedAt: string) => {
    const row = { turn_id: turnId, holder, expires_at: expiresAt, claimed_at: claimedAt };
    return db
      .insertInto("turn_leases")
      .values({ session_id: sessionId, ...row })
      .onConflict((oc) => oc.column("session_id").doUpdateSet(row));
  },
);
const renewLease = preparedQuery((db, sessionId: string, turnId: string, expiresAt: number) =>
  db
    .updateTable("turn_leases")
    .set({ expires_at: expiresAt })
    .where("session_id", "=", sessionId)
    .where("turn_id", "=", turnId),
);
const deleteLease = preparedQuery((db, sessionId: string, turnId: string) =>
  db.deleteFrom("turn_leases").where("session_id", "=", sessionId).where("turn_id", "=", turnId),
);

/** {@link TurnLeases} in the `turn_leases` table. */
export class SqlTurnLeases implements TurnLeases {
  readonly #db: Kysely<ShopDatabase>;
  readonly #dialect: StoreDialect;
  readonly #now: () => number;

  constructor(db: Kysely<ShopDatabase>, dialect: StoreDialect, now: () => number = Date.now) {
    this.#db = db;
    this.#dialect = dialect;
    this.#now = now;
  }

  claim(sessionId: string, claim: LeaseClaim): Promise<ClaimResult> {
    return this.#db.transaction().execute(async (trx) => {
      await this.#dialect.lock(trx, leaseLockKey(sessionId));
      const found = await readLease(trx, sessionId);
      const now = this.#now();
      const dead = found !== undefined && found.turnId === claim.presumedDead;
      if (found && found.expiresAt > now && !dead) return { ok: false, heldBy: found };
      await upsertLease(
        trx,
        sessionId,
        claim.turnId,
        claim.holder,
        now + claim.ttlMs,
        new Date(now).toISOString(),
      );
      return found ? { ok: true, tookOver: found } : { ok: true };
    });
  }

  async renew(sessionId: string, turnId: string, ttlMs: number): Promise<boolean> {
    const result = await renewLease(this.#db, sessionId, turnId, this.#now() + ttlMs);
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  async release(sessionId: string, turnId: string): Promise<void> {
    await deleteLease(this.#db, sessionId, turnId);
  }

  current(sessionId: string): Promise<TurnLease | undefined> {
    return readLease(this.#db, sessionId);
  }
}

async function readLease(
  db: Kysely<ShopDatabase> | Transaction<ShopDatabase>,
  sessionId: string,
): Promise<TurnLease | undefined> {
  const row = (await leaseOf(db, sessionId)).rows[0];
  // PostgreSQL's bigint comes back as a string from pg.
  return row && { turnId: row.turn_id, holder: row.holder, expiresAt: Number(row.expires_at) };
}

/** This process as a lease holder, and whether a holder's process is gone: the library's own. */
export { durableHolderId as leaseHolderId, holderIsGone } from "overlap-runtime/durable";
