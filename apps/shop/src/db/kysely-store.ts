/**
 * The one {@link ShopStore} implementation, over Kysely, shared by SQLite and PostgreSQL. What
 * differs (JSON column types, the in-transaction lock) comes in through a {@link StoreDialect}.
 *
 * The cart belongs to the shopper, so the cart lock is per shopper: every chat of a shopper
 * takes the same one. It has two halves: a {@link KeyedQueue} in the process, which runs a cart's
 * operations one at a time in call order, and the dialect's lock inside the transaction, which
 * makes other processes sharing the database wait (PostgreSQL advisory lock; SQLite's BEGIN
 * IMMEDIATE write lock).
 */

import { createHash, randomBytes } from "node:crypto";
import type { Kysely, Selectable, Transaction } from "kysely";
import type { RestoreRoundInput, RoundJournal, ToolLedger } from "overlap-runtime";
import {
  type Cart,
  type CartLine,
  type CartRules,
  DEFAULT_CART_RULES,
  EMPTY_CART,
  isWellFormedCart,
} from "../domain/cart.js";
import type { Product } from "../domain/catalog.js";
import { type DiscountPlan, listPriceOf, planDiscount, withDiscount } from "../domain/discounts.js";
import {
  changePrice,
  DEFAULT_LOW_STOCK_THRESHOLD,
  editProduct,
  lowStockReport,
  MAX_PRODUCTS_PER_CHANGE,
  type ProductChangeResult,
  type ProductEdit,
  type ProductEditResult,
  planRestock,
  type RestockPlan,
  type RestockRequest,
  restockProduct,
  type SalesSummary,
  summarizeSales,
} from "../domain/merchant.js";
import { checkout as draftOrder, type Order, type OrderLine } from "../domain/orders.js";
import { type RuleViolation, violation } from "../domain/rule-violation.js";
import { type ProductQuery, searchProducts } from "../domain/search-products.js";
import { KeyedQueue } from "./keyed-queue.js";
import { migrateToLatest } from "./migrations.js";
import { preparedQuery } from "./prepared-query.js";
import type { ProductsTable, ShopDatabase } from "./shop-database.js";
import type {
  CallRecord,
  CartChange,
  CartTransaction,
  ChatSummary,
  CheckoutResult,
  CreateSessionOptions,
  ListOrdersOptions,
  NewSession,
  RecordOption,
  Session,
  SessionKind,
  ShopConversationStore,
  Shopper,
  ShopStore,
} from "./shop-store.js";
import { DEFAULT_TOKEN_TTL_MS } from "./shop-store.js";
import { SqlConversationStore } from "./sql-conversation-store.js";
import { insertJournalRow, journaledCalls, SqlRoundJournal } from "./sql-round-journal.js";
import { insertLedgerRecord, recordsOf, SqlToolLedger } from "./sql-tool-ledger.js";
import { assertLeaseHeld, SqlTurnLeases, type TurnLeases } from "./sql-turn-leases.js";
import type { StoreDialect } from "./store-dialect.js";

type Db = Kysely<ShopDatabase> | Transaction<ShopDatabase>;

/** How a {@link KyselyShopStore} is built. */
export interface KyselyShopStoreOptions {
  db: Kysely<ShopDatabase>;
  dialect: StoreDialect;
  cartRules?: Partial<CartRules>;
  /**
   * Test only: how long a transaction that records a tool call waits between writing the effect
   * and writing its record (and committing), so a crash test can kill the process while a tool's
   * effect is written but not committed. Default 0.
   */
  recordDelayMs?: number;
  /**
   * How long a token opens anything, from its creation (`SESSION_TOKEN_TTL`); default
   * {@link DEFAULT_TOKEN_TTL_MS}, 30 days.
   */
  tokenTtlMs?: number;
  /** The time token lifetimes are measured at (epoch ms); default `Date.now`. For tests. */
  clock?: () => number;
}

/** Thrown inside a checkout transaction to roll it back when stock vanished under it. */
class StockTaken extends Error {
  constructor(readonly productName: string) {
    super(`Stock of ${productName} was taken by another checkout.`);
  }
}

/** A {@link ShopStore} over any Kysely dialect. */
export class KyselyShopStore implements ShopStore {
  readonly dialect: "sqlite" | "postgres";
  readonly cartRules: CartRules;
  readonly conversations: ShopConversationStore;
  readonly leases: TurnLeases;
  readonly #db: Kysely<ShopDatabase>;
  readonly #dialect: StoreDialect;
  readonly #recordDelayMs: number;
  readonly #tokenTtlMs: number;
  readonly #clock: () => number;
  readonly #queue = new KeyedQueue();
  /**
   * The cart owner of each id given to the cart methods, as a promise made at the first call:
   * calls with one id find their owner in call order, so they queue in call order. A session's
   * shopper never changes, so entries never go stale; the oldest go beyond {@link MAX_OWNERS}.
   */
  readonly #owners = new Map<string, Promise<string>>();
  #lastTimestamp = 0;

  /** Creates a store and migrates it; on failure the connection is closed, not leaked. */
  static async open(options: KyselyShopStoreOptions): Promise<KyselyShopStore> {
    const store = new KyselyShopStore(options);
    try {
      await store.migrate();
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  constructor(options: KyselyShopStoreOptions) {
    this.#db = options.db;
    this.#dialect = options.dialect;
    this.dialect = options.dialect.name;
    this.cartRules = Object.freeze({ ...DEFAULT_CART_RULES, ...options.cartRules });
    this.conversations = new SqlConversationStore(options.db, options.dialect);
    this.leases = new SqlTurnLeases(options.db, options.dialect);
    this.#recordDelayMs = Math.max(0, options.recordDelayMs ?? 0);
    this.#tokenTtlMs = options.tokenTtlMs ?? DEFAULT_TOKEN_TTL_MS;
    this.#clock = options.clock ?? Date.now;
  }

  async migrate(): Promise<void> {
    await migrateToLatest(this.#db, this.#dialect);
  }

  async close(): Promise<void> {
    await this.#db.destroy();
  }

  // --- sessions -------------------------------------------------------------------------------

  async createSession(kind: SessionKind, options: CreateSessionOptions = {}): Promise<NewSession> {
    const id = `s-${randomBytes(8).toString("hex")}`;
    const createdAt = this.#now();
    const token = newToken();
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
      return { id, kind, createdAt, token };
    }
    return this.#db.transaction().execute(async (trx) => {
      let shopperId = options.shopperId;
      let shopperToken: string | undefined;
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
          .select("id")
          .where("id", "=", shopperId)
          .where("revoked_at", "is", null)
          .$if(this.#dialect.name === "postgres", (q) => q.forUpdate())
          .executeTakeFirst();
        if (!shopper) throw new RangeError(`There is no shopper ${shopperId} (or it was revoked).`);
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

  /** Tokens created at or before this instant (ISO 8601, which sorts as time) have expired. */
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
          .selectFrom("messages as m")
          .select((e) => e.fn.countAll().as("n"))
          .whereRef("m.session_id", "=", "s.id")
          .as("message_count"),
        eb
          .selectFrom("messages as m")
          .select("m.content")
          .whereRef("m.session_id", "=", "s.id")
          .where("m.seq", "=", 0)
          .as("first_content"),
      ])
      .where("s.shopper_id", "=", shopperId)
      .where("s.kind", "=", "shopper")
      .where((eb) =>
        eb.exists(
          eb.selectFrom("messages as m").select("m.seq").whereRef("m.session_id", "=", "s.id"),
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

  ledger(sessionId = ""): ToolLedger {
    return new SqlToolLedger(this.#db, sessionId);
  }

  roundJournal(sessionId: string): RoundJournal {
    return new SqlRoundJournal(this.#db, sessionId);
  }

  async lostCalls(sessionId: string, present: ReadonlySet<string>): Promise<RestoreRoundInput> {
    const journaled = (await journaledCalls(this.#db, sessionId)).filter(
      (call) => !present.has(call.block.id),
    );
    return { journaled, recorded: await recordsOf(this.#db, sessionId, journaled) };
  }

  // --- products -------------------------------------------------------------------------------

  async listProducts(): Promise<Product[]> {
    const rows = await this.#db.selectFrom("products").selectAll().orderBy("id").execute();
    return rows.map(toProduct);
  }

  async getProduct(productId: string): Promise<Product | undefined> {
    return readProduct(this.#db, productId);
  }

  async searchProducts(query: ProductQuery): Promise<Product[]> {
    // A few hundred rows: ranking in memory keeps one search implementation for both dialects.
    return searchProducts(await this.listProducts(), query);
  }

  async restock(
    productId: string,
    quantity: number,
    options: RecordOption<ProductChangeResult, undefined> = {},
  ): Promise<ProductChangeResult> {
    return this.#db.transaction().execute(async (trx) => {
      const change = async (): Promise<ProductChangeResult> => {
        const result = restockProduct(await readProduct(trx, productId), quantity);
        if (!result.ok) return result;
        // Relative update: a checkout committing meanwhile in another process is not overwritten.
        await trx
          .updateTable("products")
          .set((eb) => ({ stock: eb("stock", "+", quantity) }))
          .where("id", "=", productId)
          .execute();
        return { ok: true, product: (await readProduct(trx, productId)) ?? result.product };
      };
      const result = await change();
      if (options.record) await this.#record(trx, await options.record(result, undefined));
      return result;
    });
  }

  async setPrice(
    productId: string,
    priceCents: number,
    options: RecordOption<ProductChangeResult, undefined> = {},
  ): Promise<ProductChangeResult> {
    return this.#db.transaction().execute(async (trx) => {
      const change = async (): Promise<ProductChangeResult> => {
        const result = changePrice(await readProduct(trx, productId), priceCents);
        if (!result.ok) return result;
        await trx
          .updateTable("products")
          .set({ price_cents: priceCents })
          .where("id", "=", productId)
          .execute();
        return { ok: true, product: (await readProduct(trx, productId)) ?? result.product };
      };
      const result = await change();
      if (options.record) await this.#record(trx, await options.record(result, undefined));
      return result;
    });
  }

  async editProduct(
    productId: string,
    edit: ProductEdit,
    options: RecordOption<ProductEditResult, undefined> = {},
  ): Promise<ProductEditResult> {
    return this.#db.transaction().execute(async (trx) => {
      const others = await trx
        .selectFrom("products")
        .select("name")
        .where("id", "!=", productId)
        .execute();
      const result = editProduct(
        await readProduct(trx, productId),
        edit,
        others.map((r) => r.name),
      );
      if (result.ok) {
        await trx
          .updateTable("products")
          .set({
            name: result.product.name,
            description: result.product.description,
            price_cents: listPriceOf(result.product),
          })
          .where("id", "=", productId)
          .execute();
      }
      const final: ProductEditResult = result.ok
        ? { ...result, product: (await readProduct(trx, productId)) ?? result.product }
        : result;
      if (options.record) await this.#record(trx, await options.record(final, undefined));
      return final;
    });
  }

  async restockProducts(
    productIds: readonly string[],
    request: RestockRequest,
    options: RecordOption<RestockPlan | RuleViolation, undefined> = {},
  ): Promise<RestockPlan | RuleViolation> {
    return this.#db.transaction().execute(async (trx) => {
      const ids = [...new Set(productIds)].sort();
      // Locked in id order, as checkout takes its rows: no deadlock between the two.
      const rows =
        ids.length === 0 || ids.length > MAX_PRODUCTS_PER_CHANGE
          ? []
          : await trx
              .selectFrom("products")
              .selectAll()
              .where("id", "in", ids)
              .orderBy("id")
              .$if(this.#dialect.name === "postgres", (q) => q.forUpdate())
              .execute();
      const plan = planRestock(productIds, new Map(rows.map((r) => [r.id, toProduct(r)])), request);
      let result: RestockPlan | RuleViolation = plan;
      if (plan.ok) {
        const added = new Map(plan.items.map((i) => [i.productId, i.quantity]));
        for (const [id, quantity] of [...added].sort(([x], [y]) => (x < y ? -1 : 1))) {
          // Relative: a checkout committing meanwhile in another process is not overwritten.
          await trx
            .updateTable("products")
            .set((eb) => ({ stock: eb("stock", "+", quantity) }))
            .where("id", "=", id)
            .execute();
        }
        const after = await trx
          .selectFrom("products")
          .select(["id", "stock"])
          .where("id", "in", ids)
          .execute();
        const stock = new Map(after.map((r) => [r.id, Number(r.stock)]));
        result = {
          ...plan,
          rows: plan.rows.map((row) => {
            const now = stock.get(row.productId) ?? row.after;
            return { ...row, before: now - (added.get(row.productId) ?? 0), after: now };
          }),
        };
      }
      if (options.record) await this.#record(trx, await options.record(result, undefined));
      return result;
    });
  }

  async setDiscount(
    category: string,
    percent: number | undefined,
    options: RecordOption<DiscountPlan | RuleViolation, undefined> = {},
  ): Promise<DiscountPlan | RuleViolation> {
    return this.#db.transaction().execute(async (trx) => {
      const products = (await trx.selectFrom("products").selectAll().execute()).map(toProduct);
      const plan = planDiscount(products, category, percent);
      if (plan.ok) {
        await trx
          .updateTable("products")
          .set({ discount_percent: plan.percent ?? null })
          .where("category", "=", plan.category)
          .execute();
      }
      if (options.record) await this.#record(trx, await options.record(plan, undefined));
      return plan;
    });
  }

  async lowStock(threshold = DEFAULT_LOW_STOCK_THRESHOLD): Promise<Product[]> {
    const rows = await this.#db
      .selectFrom("products")
      .selectAll()
      .where("stock", "<=", threshold)
      .execute();
    return lowStockReport(rows.map(toProduct), threshold);
  }

  // --- carts and orders -----------------------------------------------------------------------

  withCart<R extends CartChange>(
    sessionId: string,
    fn: (cart: Cart, tx: CartTransaction) => R | Promise<R>,
    options: RecordOption<R> = {},
  ): Promise<R> {
    return this.#locked(sessionId, async (trx, owner) => {
      const cart = await readCart(trx, owner);
      const tx = this.#cartTransaction(trx, sessionId, owner);
      const result = await fn(cart, tx);
      const change: CartChange = result;
      if (change.ok && change.cart !== cart) {
        if (!isWellFormedCart(change.cart)) {
          throw new TypeError("withCart: the callback returned a malformed cart; nothing stored.");
        }
        await writeCart(trx, owner, change.cart, this.#now());
      }
      if (options.record) await this.#record(trx, await options.record(result, tx));
      return result;
    });
  }

  async getCart(sessionId: string): Promise<Cart> {
    const result = await this.withCart(sessionId, (cart) => ({ ok: true, cart }) as const);
    return result.cart;
  }

  async checkout(
    sessionId: string,
    callId: string,
    options: RecordOption<CheckoutResult> = {},
  ): Promise<CheckoutResult> {
    const record = options.record;
    try {
      return await this.#locked(sessionId, async (trx, owner) => {
        const result = await this.#checkout(trx, sessionId, owner, callId);
        if (record) {
          const tx = this.#cartTransaction(trx, sessionId, owner);
          await this.#record(trx, await record(result, tx));
        }
        return result;
      });
    } catch (error) {
      if (!(error instanceof StockTaken)) throw error;
      return violation(
        "insufficient_stock",
        `${error.productName} sold out while checking out; nothing was charged. Please review the cart.`,
      );
    }
  }

  async #checkout(
    trx: Transaction<ShopDatabase>,
    sessionId: string,
    owner: string,
    callId: string,
  ): Promise<CheckoutResult> {
    const placed = await readOrders(trx, { sessionId, callId });
    if (placed[0]) return { ok: true, order: placed[0], replayed: true, priceChanges: [] };
    const cart = await readCart(trx, owner);
    const products = new Map<string, Product>();
    for (const line of cart.lines) {
      const product = await readProduct(trx, line.productId);
      if (product) products.set(product.id, product);
    }
    const result = draftOrder(cart, products, this.cartRules);
    if (!result.ok) return result;
    const { draft } = result;
    // Rows are locked in id order: two checkouts of the same products in different cart
    // orders would otherwise deadlock in PostgreSQL.
    const decrements = [...draft.stockDecrements].sort((a, b) =>
      a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0,
    );
    for (const { productId, quantity } of decrements) {
      // Carts do not reserve stock, so another session's checkout (in this or another
      // process) may have taken it since the read: the conditional update is the arbiter.
      const update = await trx
        .updateTable("products")
        .set((eb) => ({ stock: eb("stock", "-", quantity) }))
        .where("id", "=", productId)
        .where("stock", ">=", quantity)
        .executeTakeFirst();
      if (Number(update.numUpdatedRows) !== 1) {
        throw new StockTaken(products.get(productId)?.name ?? productId);
      }
    }
    const order: Order = {
      id: `o-${randomBytes(6).toString("hex")}`,
      sessionId,
      shopperId: owner,
      callId,
      lines: draft.lines,
      totalCents: draft.totalCents,
      itemCount: draft.itemCount,
      createdAt: this.#now(),
    };
    await insertOrder(trx, order);
    await trx.deleteFrom("carts").where("shopper_id", "=", owner).execute();
    return { ok: true, order, replayed: false, priceChanges: draft.priceChanges };
  }

  async listOrders(options: ListOrdersOptions = {}): Promise<Order[]> {
    return readOrders(this.#db, { ...options, limit: options.limit ?? 50 });
  }

  async salesSummary(options: { top?: number } = {}): Promise<SalesSummary> {
    return summarizeSales(await readOrders(this.#db, {}), options.top);
  }

  /** Reads inside a cart transaction. */
  #cartTransaction(
    trx: Transaction<ShopDatabase>,
    sessionId: string,
    owner: string,
  ): CartTransaction {
    return {
      sessionId,
      shopperId: owner,
      rules: this.cartRules,
      getProduct: (productId) => readProduct(trx, productId),
      getCart: () => readCart(trx, owner),
    };
  }

  /**
   * Writes a call's ledger record in the transaction of its effect (test delay first), and
   * journals the call there if its block-stop journal write has not landed: a call with an effect
   * is always journaled, and so restored, until a conversation write stores its round.
   */
  async #record(trx: Transaction<ShopDatabase>, record: CallRecord): Promise<void> {
    if (this.#recordDelayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, this.#recordDelayMs));
    }
    // After the delay: a takeover during it must find this effect rolled back.
    if (record.lease !== undefined) {
      await assertLeaseHeld(trx, this.#dialect, record.sessionId, record.lease);
    }
    await insertLedgerRecord(trx, record.sessionId, record.outcome, record.call);
    if (record.call) await insertJournalRow(trx, record.sessionId, record.call);
  }

  /**
   * Runs `fn` in a transaction holding the lock of the cart `sessionId` uses (its shopper's),
   * after the cart's earlier calls from any chat.
   */
  async #locked<T>(
    sessionId: string,
    fn: (trx: Transaction<ShopDatabase>, owner: string) => Promise<T>,
  ): Promise<T> {
    const owner = await this.#cartOwner(sessionId);
    return this.#queue.run(owner, () =>
      this.#db.transaction().execute(async (trx) => {
        await this.#dialect.lock(trx, `cart:${owner}`);
        return fn(trx, owner);
      }),
    );
  }

  /** The key of the cart `id` uses: its session's shopper, else `id` itself. */
  #cartOwner(id: string): Promise<string> {
    const known = this.#owners.get(id);
    if (known) return known;
    const owner = shopperOf(this.#db, id).then((result) => result.rows[0]?.shopper_id ?? id);
    this.#owners.set(id, owner);
    // A failed lookup is not remembered; the map stays bounded (oldest first out).
    owner.catch(() => {
      if (this.#owners.get(id) === owner) this.#owners.delete(id);
    });
    if (this.#owners.size > MAX_OWNERS) {
      const oldest = this.#owners.keys().next().value;
      if (oldest !== undefined) this.#owners.delete(oldest);
    }
    return owner;
  }

  /** ISO timestamps that never repeat or go back within this store, so "newest first" is exact. */
  #now(): string {
    this.#lastTimestamp = Math.max(Date.now(), this.#lastTimestamp + 1);
    return new Date(this.#lastTimestamp).toISOString();
  }
}

/** How many ids' cart owners a store remembers. */
const MAX_OWNERS = 10_000;

function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** A chat's title: the shopper's first words (a stored message's JSON content). */
function chatTitle(content: string | null | undefined): string {
  if (!content) return "";
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return "";
  }
  const text =
    typeof value === "string"
      ? value
      : Array.isArray(value)
        ? value
            .flatMap((b: unknown) =>
              typeof b === "object" &&
              b !== null &&
              (b as { type?: unknown }).type === "text" &&
              typeof (b as { text?: unknown }).text === "string"
                ? [(b as { text: string }).text]
                : [],
            )
            .join(" ")
        : "";
  const line = text.replace(/\s+/g, " ").trim();
  const chars = [...line];
  return chars.length > 120 ? `${chars.slice(0, 119).join("")}…` : line;
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

function toProduct(row: Selectable<ProductsTable>): Product {
  const product: Product = {
    id: row.id,
    sku: row.sku,
    name: row.name,
    brand: row.brand,
    category: row.category,
    tags: JSON.parse(row.tags) as string[],
    priceCents: Number(row.price_cents),
    sizes: JSON.parse(row.sizes) as string[],
    colors: JSON.parse(row.colors) as string[],
    stock: Number(row.stock),
    rating: Number(row.rating),
    description: row.description,
  };
  // The price a shopper sees and pays: the list price less the category's discount.
  const percent = row.discount_percent;
  return percent === null || percent === undefined
    ? product
    : withDiscount(product, Number(percent));
}

// The queries every request or cart change runs, compiled once per database.
const liveSessionByHash = preparedQuery((db, tokenHash: string, createdAfter: string) =>
  db
    .selectFrom("sessions")
    .selectAll()
    .where("token_hash", "=", tokenHash)
    .where("revoked_at", "is", null)
    .where("created_at", ">", createdAfter),
);
const sessionById = preparedQuery((db, sessionId: string) =>
  db.selectFrom("sessions").selectAll().where("id", "=", sessionId),
);
const shopperOf = preparedQuery((db, sessionId: string) =>
  db.selectFrom("sessions").select("shopper_id").where("id", "=", sessionId),
);
const productById = preparedQuery((db, productId: string) =>
  db.selectFrom("products").selectAll().where("id", "=", productId),
);
const cartLinesOf = preparedQuery((db, owner: string) =>
  db.selectFrom("carts").select("lines").where("shopper_id", "=", owner),
);
const upsertCart = preparedQuery((db, owner: string, lines: string, now: string) =>
  db
    .insertInto("carts")
    .values({ shopper_id: owner, lines, updated_at: now })
    .onConflict((oc) => oc.column("shopper_id").doUpdateSet({ lines, updated_at: now })),
);

async function readProduct(db: Db, productId: string): Promise<Product | undefined> {
  const row = (await productById(db, productId)).rows[0];
  return row && toProduct(row);
}

async function readCart(db: Db, owner: string): Promise<Cart> {
  const row = (await cartLinesOf(db, owner)).rows[0];
  if (!row) return EMPTY_CART;
  // Rebuilt field by field: jsonb does not keep key order, and the cart should look the same
  // whichever database stored it.
  const lines = (JSON.parse(row.lines) as CartLine[]).map(cartLineFields);
  return { lines };
}

/** A cart line's fields in a fixed order; the variant only when one was chosen. */
function cartLineFields({ productId, quantity, unitPriceCents, size, color }: CartLine): CartLine {
  return {
    productId,
    quantity,
    unitPriceCents,
    ...(size !== undefined ? { size } : {}),
    ...(color !== undefined ? { color } : {}),
  };
}

async function writeCart(db: Db, owner: string, cart: Cart, now: string): Promise<void> {
  await upsertCart(db, owner, JSON.stringify(cart.lines.map(cartLineFields)), now);
}

async function insertOrder(db: Db, order: Order): Promise<void> {
  await db
    .insertInto("orders")
    .values({
      id: order.id,
      session_id: order.sessionId,
      shopper_id: order.shopperId,
      call_id: order.callId,
      total_cents: order.totalCents,
      item_count: order.itemCount,
      created_at: order.createdAt,
    })
    .execute();
  await db
    .insertInto("order_lines")
    .values(
      order.lines.map((line, position) => ({
        order_id: order.id,
        position,
        product_id: line.productId,
        name: line.name,
        quantity: line.quantity,
        unit_price_cents: line.unitPriceCents,
        size: line.size ?? null,
        color: line.color ?? null,
      })),
    )
    .execute();
}

async function readOrders(
  db: Db,
  filter: { sessionId?: string; shopperId?: string; callId?: string; limit?: number },
): Promise<Order[]> {
  let query = db.selectFrom("orders").selectAll().orderBy("created_at", "desc").orderBy("id");
  if (filter.sessionId !== undefined) query = query.where("session_id", "=", filter.sessionId);
  if (filter.shopperId !== undefined) query = query.where("shopper_id", "=", filter.shopperId);
  if (filter.callId !== undefined) query = query.where("call_id", "=", filter.callId);
  if (filter.limit !== undefined) query = query.limit(Math.max(0, Math.floor(filter.limit)));
  const rows = await query.execute();
  if (rows.length === 0) return [];
  const lineRows = [];
  // Chunked: both databases cap the number of parameters in one statement.
  for (let i = 0; i < rows.length; i += 500) {
    const ids = rows.slice(i, i + 500).map((row) => row.id);
    lineRows.push(
      ...(await db
        .selectFrom("order_lines")
        .selectAll()
        .where("order_id", "in", ids)
        .orderBy("order_id")
        .orderBy("position")
        .execute()),
    );
  }
  const linesByOrder = new Map<string, OrderLine[]>();
  for (const row of lineRows) {
    const quantity = Number(row.quantity);
    const unitPriceCents = Number(row.unit_price_cents);
    const lines = linesByOrder.get(row.order_id) ?? [];
    lines.push({
      productId: row.product_id,
      name: row.name,
      quantity,
      unitPriceCents,
      lineTotalCents: quantity * unitPriceCents,
      ...(row.size !== null && row.size !== undefined ? { size: row.size } : {}),
      ...(row.color !== null && row.color !== undefined ? { color: row.color } : {}),
    });
    linesByOrder.set(row.order_id, lines);
  }
  return rows.map((row) => ({
    id: row.id,
    sessionId: row.session_id,
    shopperId: row.shopper_id ?? row.session_id,
    callId: row.call_id,
    lines: linesByOrder.get(row.id) ?? [],
    totalCents: Number(row.total_cents),
    itemCount: Number(row.item_count),
    createdAt: row.created_at,
  }));
}
