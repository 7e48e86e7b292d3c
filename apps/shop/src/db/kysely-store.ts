/**
 * The one {@link ShopStore} implementation, over Kysely, shared by SQLite and PostgreSQL. What
 * differs (JSON column types, the in-transaction lock) comes in through a {@link StoreDialect}.
 *
 * It only composes the store's parts, one per aggregate, each in its own file: sessions and
 * shoppers, the catalog's reads, the merchant's catalog changes, carts (under the cart lock),
 * orders (checkout under the same lock), and the tool calls' ledger and journal, which every
 * changing part writes a call's record through. The parts share one database, one dialect and
 * one source of timestamps.
 */

import type { Kysely } from "kysely";
import type { RoundJournal, ToolLedger } from "overlap-runtime";
import { DurableStore } from "overlap-runtime/durable";
import type { TurnEventTransport } from "overlap-runtime/redis";
import { type Cart, type CartRules, DEFAULT_CART_RULES } from "../domain/cart.js";
import type { Product } from "../domain/catalog.js";
import type { DiscountPlan } from "../domain/discounts.js";
import type {
  ProductChangeResult,
  ProductEdit,
  ProductEditResult,
  RestockPlan,
  RestockRequest,
  SalesSummary,
} from "../domain/merchant.js";
import type { Order } from "../domain/orders.js";
import type { RuleViolation } from "../domain/rule-violation.js";
import type { ProductQuery } from "../domain/search-products.js";
import { CartLock } from "./cart-lock.js";
import { CartsStore } from "./carts-store.js";
import { CatalogStore } from "./catalog-store.js";
import { kyselySqlDriver, type SqlWakeups } from "./kysely-sql-driver.js";
import { MerchantChangesStore } from "./merchant-changes-store.js";
import { DURABLE_PREFIX, migrateToLatest } from "./migrations.js";
import { monotonicTimestamps } from "./monotonic-timestamps.js";
import { OrdersStore } from "./orders-store.js";
import { SessionsStore } from "./sessions-store.js";
import { ShopConversations } from "./shop-conversations.js";
import type { ShopDatabase } from "./shop-database.js";
import type {
  ApprovedOption,
  CartChange,
  CartTransaction,
  ChatSummary,
  CheckoutOptions,
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
import type { StoreDialect } from "./store-dialect.js";
import { ToolCallsStore } from "./tool-calls-store.js";

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
  /** Wake-ups between processes for the durable stores (PostgreSQL's LISTEN/NOTIFY). */
  wakeups?: SqlWakeups;
  /** Where turn events are kept instead of the database (`REDIS_URL`: Redis Streams). */
  turnEvents?: TurnEventTransport;
  /**
   * How long a token opens anything, from its creation (`SESSION_TOKEN_TTL`); default
   * {@link DEFAULT_TOKEN_TTL_MS}, 30 days.
   */
  tokenTtlMs?: number;
  /**
   * The time token lifetimes are measured at and rows are stamped with (epoch ms); default
   * `Date.now`. For tests.
   */
  clock?: () => number;
}

/** How long an ended turn's event log is kept in the database, in ms. */
export const TURN_LOG_RETAIN_MS = 15 * 60_000;

/** A {@link ShopStore} over any Kysely dialect. */
export class KyselyShopStore implements ShopStore {
  readonly dialect: "sqlite" | "postgres";
  readonly cartRules: CartRules;
  readonly conversations: ShopConversationStore;
  readonly durable: DurableStore;
  readonly #db: Kysely<ShopDatabase>;
  readonly #dialect: StoreDialect;
  readonly #sessions: SessionsStore;
  readonly #calls: ToolCallsStore;
  readonly #catalog: CatalogStore;
  readonly #changes: MerchantChangesStore;
  readonly #carts: CartsStore;
  readonly #orders: OrdersStore;

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
    const { db, dialect } = options;
    this.#db = db;
    this.#dialect = dialect;
    this.dialect = dialect.name;
    this.cartRules = Object.freeze({ ...DEFAULT_CART_RULES, ...options.cartRules });
    this.durable = new DurableStore(kyselySqlDriver(db, dialect, options.wakeups), {
      prefix: DURABLE_PREFIX,
      events: {
        // As long as the instance that ran a turn keeps its log in memory (`TurnRegistry`): a
        // reload on any instance shows the chat's last turn for as long, then the stored
        // conversation alone. A turn's end deletes the older logs now and then.
        retainEndedMs: TURN_LOG_RETAIN_MS,
        ...(options.turnEvents ? { transport: options.turnEvents } : {}),
      },
    });
    // One source for every part: sessions, carts and orders never share a timestamp.
    // The clock token lifetimes are measured at also stamps the rows, so a token's creation and
    // its expiry are read on one clock.
    const clock = options.clock ?? Date.now;
    const timestamp = monotonicTimestamps(clock);
    this.conversations = new ShopConversations(db, this.durable, timestamp);
    this.#sessions = new SessionsStore({
      db,
      dialect: dialect.name,
      tokenTtlMs: options.tokenTtlMs ?? DEFAULT_TOKEN_TTL_MS,
      clock,
      timestamp,
    });
    this.#calls = new ToolCallsStore(
      this.durable,
      dialect,
      Math.max(0, options.recordDelayMs ?? 0),
    );
    this.#catalog = new CatalogStore(db);
    this.#changes = new MerchantChangesStore(db, dialect.name, this.#calls);
    const rules = this.cartRules;
    this.#carts = new CartsStore({
      lock: new CartLock(db, dialect),
      rules,
      calls: this.#calls,
      timestamp,
    });
    this.#orders = new OrdersStore({
      db,
      carts: this.#carts,
      rules,
      calls: this.#calls,
      timestamp,
    });
  }

  async migrate(): Promise<void> {
    // The durable tables first: the shop's migrations copy older rows into them.
    await this.durable.migrate();
    await migrateToLatest(this.#db, this.#dialect);
  }

  async close(): Promise<void> {
    await this.durable.close().catch(() => {});
    await this.#db.destroy();
  }

  // --- sessions -------------------------------------------------------------------------------

  createSession(kind: SessionKind, options?: CreateSessionOptions): Promise<NewSession> {
    return this.#sessions.createSession(kind, options);
  }

  findSessionByToken(token: string): Promise<Session | undefined> {
    return this.#sessions.findSessionByToken(token);
  }

  getSession(sessionId: string): Promise<Session | undefined> {
    return this.#sessions.getSession(sessionId);
  }

  findShopperByToken(token: string): Promise<Shopper | undefined> {
    return this.#sessions.findShopperByToken(token);
  }

  revokeShopper(shopperId: string): Promise<{ sessionIds: string[] }> {
    return this.#sessions.revokeShopper(shopperId);
  }

  listChats(shopperId: string, options?: { limit?: number }): Promise<ChatSummary[]> {
    return this.#sessions.listChats(shopperId, options);
  }

  // --- tool calls -----------------------------------------------------------------------------

  ledger(sessionId?: string): ToolLedger {
    return this.#calls.ledger(sessionId);
  }

  roundJournal(sessionId: string, turnId: string): RoundJournal {
    return this.#calls.roundJournal(sessionId, turnId);
  }

  // --- catalog --------------------------------------------------------------------------------

  listProducts(): Promise<Product[]> {
    return this.#catalog.listProducts();
  }

  getProduct(productId: string): Promise<Product | undefined> {
    return this.#catalog.getProduct(productId);
  }

  searchProducts(query: ProductQuery): Promise<Product[]> {
    return this.#catalog.searchProducts(query);
  }

  lowStock(threshold?: number): Promise<Product[]> {
    return this.#catalog.lowStock(threshold);
  }

  // --- the merchant's changes -----------------------------------------------------------------

  restock(
    productId: string,
    quantity: number,
    options?: RecordOption<ProductChangeResult, undefined>,
  ): Promise<ProductChangeResult> {
    return this.#changes.restock(productId, quantity, options);
  }

  setPrice(
    productId: string,
    priceCents: number,
    options?: RecordOption<ProductChangeResult, undefined>,
  ): Promise<ProductChangeResult> {
    return this.#changes.setPrice(productId, priceCents, options);
  }

  editProduct(
    productId: string,
    edit: ProductEdit,
    options?: RecordOption<ProductEditResult, undefined>,
  ): Promise<ProductEditResult> {
    return this.#changes.editProduct(productId, edit, options);
  }

  restockProducts(
    productIds: readonly string[],
    request: RestockRequest,
    options?: RecordOption<RestockPlan | RuleViolation, undefined> & ApprovedOption,
  ): Promise<RestockPlan | RuleViolation> {
    return this.#changes.restockProducts(productIds, request, options);
  }

  setDiscount(
    category: string,
    percent: number | undefined,
    options?: RecordOption<DiscountPlan | RuleViolation, undefined> & ApprovedOption,
  ): Promise<DiscountPlan | RuleViolation> {
    return this.#changes.setDiscount(category, percent, options);
  }

  // --- carts and orders -----------------------------------------------------------------------

  withCart<R extends CartChange>(
    sessionId: string,
    fn: (cart: Cart, tx: CartTransaction) => R | Promise<R>,
    options?: RecordOption<R>,
  ): Promise<R> {
    return this.#carts.withCart(sessionId, fn, options);
  }

  getCart(sessionId: string): Promise<Cart> {
    return this.#carts.getCart(sessionId);
  }

  checkout(sessionId: string, callId: string, options?: CheckoutOptions): Promise<CheckoutResult> {
    return this.#orders.checkout(sessionId, callId, options);
  }

  listOrders(options?: ListOrdersOptions): Promise<Order[]> {
    return this.#orders.listOrders(options);
  }

  salesSummary(options?: { top?: number }): Promise<SalesSummary> {
    return this.#orders.salesSummary(options);
  }
}
