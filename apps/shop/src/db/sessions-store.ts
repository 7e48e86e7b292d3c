/**
 * Shoppers and their sessions: creating them with bearer tokens (only a token's SHA-256 is
 * stored), finding them by token within the tokens' lifetime, revoking a shopper with every chat
 * of theirs, and the list of a shopper's chats.
 *
 * Using a token never extends a lifetime: a new chat is made with the shopper's token or another
 * chat's, so its token expires no later than the token that made it, which is no later than the
 * shopper's. A chat's token therefore opens only while its shopper is within the lifetime too
 * (the earliest expiry of the chain is the shopper's), however recently the chat was made.
 */

import { createHash, randomBytes } from "node:crypto";
import type { Kysely, Selectable } from "kysely";
import { chatTitle } from "./chat-title.js";
import { preparedQuery } from "./prepared-query.js";
import type { ShopDatabase } from "./shop-database.js";
import type {
  ChatSummary,
  CreateSessionOptions,
  NewSession,
  Session,
  SessionKind,
  Shopper,
} from "./shop-store.js";

/** How a {@link SessionsStore} is built. */
export interface SessionsStoreOptions {
  db: Kysely<ShopDatabase>;
  dialect: "sqlite" | "postgres";
  /** How long a token opens anything, from its creation. */
  tokenTtlMs: number;
  /** The time token lifetimes are measured at (epoch ms). */
  clock: () => number;
  /** The store's creation timestamps (shared with its other parts). */
  timestamp: () => string;
}

/** The sessions and shoppers part of the store (see `ShopStore` for each method). */
export class SessionsStore {
  readonly #db: Kysely<ShopDatabase>;
  readonly #dialect: "sqlite" | "postgres";
  readonly #tokenTtlMs: number;
  readonly #clock: () => number;
  readonly #now: () => string;

  constructor(options: SessionsStoreOptions) {
    this.#db = options.db;
    this.#dialect = options.dialect;
    this.#tokenTtlMs = options.tokenTtlMs;
    this.#clock = options.clock;
    this.#now = options.timestamp;
  }

  async createSession(kind: SessionKind, options: CreateSessionOptions = {}): Promise<NewSession> {
    const id = `s-${randomBytes(8).toString("hex")}`;
    const createdAt = this.#now();
    const token = newToken();
    const expiry = (from: string) => new Date(Date.parse(from) + this.#tokenTtlMs).toISOString();
    if (kind !== "shopper") {
      await this.#db
        .insertInto("sessions")
        .values({
          id,
          kind,
          token_hash: hashToken(token),
          created_at: createdAt,
          shopper_id: null,
          last_active_at: createdAt,
        })
        .execute();
      return { id, kind, createdAt, token, expiresAt: expiry(createdAt) };
    }
    return this.#db.transaction().execute(async (trx) => {
      let shopperId = options.shopperId;
      let shopperToken: string | undefined;
      // The new chat's token lives as long as its shopper's, never longer.
      let expiresAt = expiry(createdAt);
      if (shopperId === undefined) {
        shopperId = `u-${randomBytes(8).toString("hex")}`;
        shopperToken = newToken();
        await trx
          .insertInto("shoppers")
          .values({ id: shopperId, token_hash: hashToken(shopperToken), created_at: createdAt })
          .execute();
      } else {
        // A revoked shopper gets no new chat. The row lock (PostgreSQL; SQLite's transactions
        // take the write lock at BEGIN) orders this against `revokeShopper`: a chat made first is
        // revoked with the others, one asked for after finds the shopper revoked.
        const shopper = await trx
          .selectFrom("shoppers")
          .select(["id", "created_at"])
          .where("id", "=", shopperId)
          .where("revoked_at", "is", null)
          .$if(this.#dialect === "postgres", (q) => q.forUpdate())
          .executeTakeFirst();
        if (!shopper) throw new RangeError(`There is no shopper ${shopperId} (or it was revoked).`);
        expiresAt = expiry(shopper.created_at);
      }
      await trx
        .insertInto("sessions")
        .values({
          id,
          kind,
          token_hash: hashToken(token),
          created_at: createdAt,
          shopper_id: shopperId,
          last_active_at: createdAt,
        })
        .execute();
      return {
        id,
        kind,
        createdAt,
        shopperId,
        token,
        expiresAt,
        ...(shopperToken === undefined ? {} : { shopperToken }),
      };
    });
  }

  async findSessionByToken(token: string): Promise<Session | undefined> {
    // Tokens are 43 characters; anything far longer is not worth hashing.
    if (typeof token !== "string" || token.length === 0 || token.length > 256) return undefined;
    const row = (await liveSessionByHash(this.#db, hashToken(token), this.#tokenCutoff())).rows[0];
    return row && toSession(row);
  }

  async getSession(sessionId: string): Promise<Session | undefined> {
    const row = (await sessionById(this.#db, sessionId)).rows[0];
    return row && toSession(row);
  }

  async findShopperByToken(token: string): Promise<Shopper | undefined> {
    if (typeof token !== "string" || token.length === 0 || token.length > 256) return undefined;
    const row = await this.#db
      .selectFrom("shoppers")
      .select(["id", "created_at"])
      .where("token_hash", "=", hashToken(token))
      .where("revoked_at", "is", null)
      .where("created_at", ">", this.#tokenCutoff())
      .executeTakeFirst();
    return row && { id: row.id, createdAt: row.created_at };
  }

  async revokeShopper(shopperId: string): Promise<{ sessionIds: string[] }> {
    const revokedAt = this.#now();
    return this.#db.transaction().execute(async (trx) => {
      await trx
        .updateTable("shoppers")
        .set({ revoked_at: revokedAt })
        .where("id", "=", shopperId)
        .where("revoked_at", "is", null)
        .execute();
      const rows = await trx
        .updateTable("sessions")
        .set({ revoked_at: revokedAt })
        .where("shopper_id", "=", shopperId)
        .where("kind", "=", "shopper")
        .where("revoked_at", "is", null)
        .returning("id")
        .execute();
      return { sessionIds: rows.map((r) => r.id) };
    });
  }

  /**
   * Tokens created at or before this instant (ISO 8601, which sorts as time) have expired; so have
   * the chat tokens of a shopper created at or before it.
   */
  #tokenCutoff(): string {
    return new Date(this.#clock() - this.#tokenTtlMs).toISOString();
  }

  async listChats(shopperId: string, options: { limit?: number } = {}): Promise<ChatSummary[]> {
    const limit = Math.max(0, Math.min(200, Math.floor(options.limit ?? 50)));
    const rows = await this.#db
      .selectFrom("sessions as s")
      .select((eb) => [
        "s.id",
        "s.created_at",
        "s.last_active_at",
        eb
          .selectFrom("overlap_messages as m")
          .select((e) => e.fn.countAll().as("n"))
          .whereRef("m.conversation_id", "=", "s.id")
          .as("message_count"),
        eb
          .selectFrom("overlap_messages as m")
          .select("m.content")
          .whereRef("m.conversation_id", "=", "s.id")
          .where("m.seq", "=", 0)
          .as("first_content"),
      ])
      .where("s.shopper_id", "=", shopperId)
      .where("s.kind", "=", "shopper")
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom("overlap_messages as m")
            .select("m.seq")
            .whereRef("m.conversation_id", "=", "s.id"),
        ),
      )
      .orderBy("s.last_active_at", "desc")
      .orderBy("s.id", "desc")
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      id: row.id,
      title: chatTitle(row.first_content),
      lastActivity: row.last_active_at ?? row.created_at,
      messageCount: Number(row.message_count ?? 0),
      createdAt: row.created_at,
    }));
  }
}

function newToken(): string {
  return randomBytes(32).toString("base64url");
}

function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

function toSession(row: Selectable<ShopDatabase["sessions"]>): Session {
  return {
    id: row.id,
    kind: row.kind as SessionKind,
    createdAt: row.created_at,
    ...(row.shopper_id ? { shopperId: row.shopper_id } : {}),
  };
}

// Every request finds its session by token: compiled once per database. A chat's token is live
// while its shopper's lifetime lasts too (merchant sessions have no shopper).
const liveSessionByHash = preparedQuery((db, tokenHash: string, createdAfter: string) =>
  db
    .selectFrom("sessions")
    .leftJoin("shoppers", "shoppers.id", "sessions.shopper_id")
    .selectAll("sessions")
    .where("sessions.token_hash", "=", tokenHash)
    .where("sessions.revoked_at", "is", null)
    .where("sessions.created_at", ">", createdAfter)
    .where((eb) =>
      eb.or([eb("sessions.shopper_id", "is", null), eb("shoppers.created_at", ">", createdAfter)]),
    ),
);
const sessionById = preparedQuery((db, sessionId: string) =>
  db.selectFrom("sessions").selectAll().where("id", "=", sessionId),
);
