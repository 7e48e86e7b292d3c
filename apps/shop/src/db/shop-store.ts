/**
 * The shop's storage, one interface over SQLite (the default) and PostgreSQL (several server
 * processes sharing one database). Business rules live in `domain/`; the store loads what
 * they need, runs them under the right lock and persists their results.
 */

import type {
  ConversationStore,
  Message,
  RoundJournal,
  StoredCall,
  ToolLedger,
  ToolOutcome,
} from "overlap-runtime";
import type {
  DurableStore,
  DurableWriteOptions,
  VersionedConversation,
} from "overlap-runtime/durable";
import type { Cart, CartRules } from "../domain/cart.js";
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
import type { Order, PriceChange } from "../domain/orders.js";
import type { RuleViolation } from "../domain/rule-violation.js";
import type { ProductQuery } from "../domain/search-products.js";
import type { TurnDisplay } from "./shop-conversations.js";

/** How long a token opens anything by default, from its creation: 30 days. */
export const DEFAULT_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** Who a session belongs to; merchant tools require a merchant session. */
export type SessionKind = "shopper" | "merchant";

/** A stored session. A shopper session is one chat of a shopper. */
export interface Session {
  readonly id: string;
  readonly kind: SessionKind;
  /** ISO 8601 timestamp. */
  readonly createdAt: string;
  /** The shopper a shopper session (chat) belongs to; absent for merchant sessions. */
  readonly shopperId?: string;
}

/** A session just created, with its bearer token. The token is shown once and stored hashed. */
export interface NewSession extends Session {
  readonly token: string;
  /**
   * ISO 8601: when the token stops opening anything. A chat's token never outlives its shopper's:
   * a chat made later with a shopper's or another chat's token expires with the shopper.
   */
  readonly expiresAt: string;
  /**
   * The token of the shopper, only when this session created the shopper (shown once, stored
   * hashed). It stands for the shopper: new chats, the list of chats, orders.
   */
  readonly shopperToken?: string;
}

/** A shopper: the owner of one cart, of orders and of any number of chats. */
export interface Shopper {
  readonly id: string;
  /** ISO 8601 timestamp. */
  readonly createdAt: string;
}

/** One chat of a shopper, as the list of chats shows it. */
export interface ChatSummary {
  /** The chat's session id. */
  readonly id: string;
  /** The first message the shopper sent in it (at most 120 characters); "" when none. */
  readonly title: string;
  /** ISO 8601: when a message was last stored. */
  readonly lastActivity: string;
  /** Messages stored (the shopper's, the assistant's and the tool results' messages). */
  readonly messageCount: number;
  /** ISO 8601. */
  readonly createdAt: string;
}

/** Options of {@link ShopStore.createSession}. */
export interface CreateSessionOptions {
  /**
   * For a shopper session: the existing shopper it is a new chat of. Without, a new shopper is
   * created with its own token (`shopperToken`).
   */
  shopperId?: string;
}

/**
 * What a {@link ShopStore.withCart} callback returns: a rule result whose `cart` is persisted
 * when `ok`. Callers may add fields (a message, the changed line...), they are passed through.
 */
export type CartChange = { readonly ok: true; readonly cart: Cart } | { readonly ok: false };

/** Read access to products inside a {@link ShopStore.withCart} transaction. */
export interface CartTransaction {
  /** The id `withCart` was called with (a chat's session id, usually). */
  readonly sessionId: string;
  /** The cart's owner: the session's shopper (or the id itself when it names no shopper session). */
  readonly shopperId: string;
  /** The store's cart limits, to pass to the domain's cart functions. */
  readonly rules: CartRules;
  /** A product with its current price and stock, read in the cart's transaction. */
  getProduct(productId: string): Promise<Product | undefined>;
  /** The session's cart as this transaction sees it (after its own writes). */
  getCart(): Promise<Cart>;
}

/**
 * A tool call's ledger record, written in the transaction of the effect it describes: the effect
 * and its record commit together or not at all (a crash between them cannot leave an effect the
 * conversation will never learn of). `outcome` is what the tool returns (`ctx.outcome(reply)`),
 * `call` its call (`ctx.call`); with a call, it is journaled in that transaction too.
 */
export interface CallRecord {
  readonly sessionId: string;
  readonly outcome: ToolOutcome;
  readonly call?: StoredCall;
  /** The call's idempotency key (`ctx.idempotencyKey`); default its call id. */
  readonly idempotencyKey?: string;
  /**
   * The turn whose lease the call's turn holds: the effect's transaction is rolled back (the tool
   * fails, nothing changed) when another instance took the chat over meanwhile.
   */
  readonly lease?: string;
}

/**
 * Option of the changing methods: builds the record from the result, inside the transaction,
 * after the change was written (also for a refused change: its answer is the call's outcome).
 * Not called when the transaction fails. `tx` reads inside the transaction (cart methods).
 */
export interface RecordOption<R, X = CartTransaction> {
  record?: (result: R, tx: X) => CallRecord | Promise<CallRecord>;
}

/**
 * The session conversations, versioned: every write raises the version, and a write that names
 * the version it read (or the lease its turn holds) fails instead of replacing a newer writer's
 * messages. Writes may also clear the round journal in their transaction.
 */
export interface ShopConversationStore extends ConversationStore {
  /** The messages with the version they were read at. */
  loadVersioned(conversationId: string): Promise<VersionedConversation>;
  write(
    conversationId: string,
    from: number,
    messages: readonly Message[],
    options?: DurableWriteOptions,
  ): Promise<void>;
  /** Keeps what a turn showed besides its messages (its cards, approvals and round timings). */
  writeTurnDisplay(conversationId: string, seq: number, events: readonly unknown[]): Promise<void>;
  /** What every turn of the conversation showed besides its messages. */
  loadTurnDisplays(conversationId: string): Promise<TurnDisplay[]>;
  /** {@link write}, resolving to the conversation's new version. */
  writeVersioned(
    conversationId: string,
    from: number,
    messages: readonly Message[],
    options?: DurableWriteOptions,
  ): Promise<number>;
}

/**
 * An approval that binds a change: given, the change happens only if the state gives exactly the
 * approved effect; otherwise nothing happens and `EffectChangedError` (with the effect now) is
 * thrown, so that the user is asked again.
 */
export interface ApprovedOption {
  /** The approved effect (`ctx.approved`); an effect of `undefined` when none was approved. */
  approved?: { effect: unknown };
}

/** Options of {@link ShopStore.checkout}. */
export interface CheckoutOptions extends RecordOption<CheckoutResult>, ApprovedOption {
  /**
   * The order the shopper confirmed (`ctx.approved` of the checkout call, its effect a
   * `CheckoutEffect`; an effect of `undefined` when they confirmed none). Given, the order is
   * placed only if the cart at current prices gives exactly that effect; otherwise nothing
   * happens and `EffectChangedError` (with the effect now) is thrown, so that the shopper is
   * asked again. Absent, the cart is ordered as it is (a host with no approval step).
   */
  approved?: { effect: unknown };
}

/** The result of {@link ShopStore.checkout}. */
export type CheckoutResult =
  | {
      readonly ok: true;
      readonly order: Order;
      /** True when this call id had already placed the order: nothing was done again. */
      readonly replayed: boolean;
      /** Lines charged at a price other than the one captured in the cart (empty on replay). */
      readonly priceChanges: readonly PriceChange[];
    }
  | RuleViolation;

/** Filters of {@link ShopStore.listOrders}. */
export interface ListOrdersOptions {
  /** Only the orders placed in this chat (session). */
  sessionId?: string;
  /** Only this shopper's orders (from any of their chats). */
  shopperId?: string;
  /** At most this many, newest first (default 50). */
  limit?: number;
}

/** Persistent state of the shop. Every method is safe to call concurrently. */
export interface ShopStore {
  /** Which database backs the store. */
  readonly dialect: "sqlite" | "postgres";
  /** The cart limits the store enforces. */
  readonly cartRules: CartRules;

  /** Applies pending schema migrations and seeds the catalog once; idempotent. */
  migrate(): Promise<void>;
  /** Closes the database connection(s). */
  close(): Promise<void>;

  /**
   * Creates a session with a fresh random token (only its SHA-256 is stored). A shopper session
   * is a chat of `options.shopperId`, or of a new shopper (then `shopperToken` is set).
   * @throws RangeError when `shopperId` names no shopper.
   */
  createSession(kind: SessionKind, options?: CreateSessionOptions): Promise<NewSession>;
  /**
   * The session a bearer token belongs to, if any: never for a revoked token
   * ({@link revokeShopper}) or one older than the store's token lifetime (`tokenTtlMs`, from its
   * `createdAt`).
   */
  findSessionByToken(token: string): Promise<Session | undefined>;
  /** A session by id. */
  getSession(sessionId: string): Promise<Session | undefined>;
  /**
   * The shopper a shopper token belongs to, if any (session tokens are not shopper tokens); never
   * for a revoked or expired token, as {@link findSessionByToken}.
   */
  findShopperByToken(token: string): Promise<Shopper | undefined>;
  /**
   * Revokes the shopper's token and the token of every chat of theirs, in one transaction:
   * afterwards none of them opens anything ("Forget me on this device"). The chats, cart and
   * orders stay in the database, reachable by no token. Returns the ids of the chats whose tokens
   * it revoked (none when there were none, or all were revoked already).
   */
  revokeShopper(shopperId: string): Promise<{ sessionIds: string[] }>;
  /** A shopper's chats that hold at least one message, most recently active first (default 50). */
  listChats(shopperId: string, options?: { limit?: number }): Promise<ChatSummary[]>;

  /** Conversations keyed by session id; every message is stored, so a restart loses nothing. */
  readonly conversations: ShopConversationStore;
  /**
   * overlap's durable stores on the shop's database (tables `overlap_*`): which turn holds each
   * chat (one turn per chat across every instance sharing the database, and a cancel asked on any
   * of them), and every turn's event log, readable from any instance.
   */
  readonly durable: DurableStore;
  /**
   * The tool-execution ledger of one session: outcomes keyed by call id, so a retried or
   * resumed round reuses a finished side effect's outcome. The first outcome recorded for a call
   * id is kept, with its call. Without `sessionId`, a ledger shared by callers that have no
   * session.
   */
  ledger(sessionId?: string): ToolLedger;
  /**
   * The round journal of one session's turn: each valid call of the round in flight, written at
   * its block stop with its idempotency key; cleared by a conversation write with
   * `clearJournal`.
   */
  roundJournal(sessionId: string, turnId: string): RoundJournal;

  /** Every product, by id. */
  listProducts(): Promise<Product[]>;
  /** One product with its current price and stock. */
  getProduct(productId: string): Promise<Product | undefined>;
  /** Products matching a query, best first (see `searchProducts` in the domain). */
  searchProducts(query: ProductQuery): Promise<Product[]>;
  /** Adds stock to a product (merchant). `record`: see {@link RecordOption}. */
  restock(
    productId: string,
    quantity: number,
    options?: RecordOption<ProductChangeResult, undefined>,
  ): Promise<ProductChangeResult>;
  /** Changes a product's price in cents (merchant). Carts keep the price they captured. */
  setPrice(
    productId: string,
    priceCents: number,
    options?: RecordOption<ProductChangeResult, undefined>,
  ): Promise<ProductChangeResult>;
  /**
   * Changes a product's name, description and (list) price at once (merchant); see the domain's
   * `editProduct`. Orders keep the name they were placed under; carts show the new one.
   */
  editProduct(
    productId: string,
    edit: ProductEdit,
    options?: RecordOption<ProductEditResult, undefined>,
  ): Promise<ProductEditResult>;
  /**
   * Restocks several products in one transaction (merchant): the same units each, or each up to a
   * level from its stock as the transaction reads it. The rows say each product's stock before and
   * after. Refused whole (nothing changed) when any part is wrong.
   */
  restockProducts(
    productIds: readonly string[],
    request: RestockRequest,
    options?: RecordOption<RestockPlan | RuleViolation, undefined> & ApprovedOption,
  ): Promise<RestockPlan | RuleViolation>;
  /**
   * Sets `percent`% off every product of a category, or ends its discount (`undefined`), in one
   * transaction (merchant). From then on every read of those products (search, cards, a cart
   * add, checkout) has the price after the discount; lines already in carts keep the price they
   * captured until checkout, which charges the current one.
   */
  setDiscount(
    category: string,
    percent: number | undefined,
    options?: RecordOption<DiscountPlan | RuleViolation, undefined> & ApprovedOption,
  ): Promise<DiscountPlan | RuleViolation>;
  /** Products at or below the stock threshold, emptiest first (merchant). */
  lowStock(threshold?: number): Promise<Product[]>;

  /**
   * Runs read cart → check rules → write cart as one unit, so two changes at once cannot both pass a limit. The cart is the shopper's:
   * `sessionId` names a chat, whose shopper owns the cart (an id that names no shopper session,
   * e.g. a shopper id, is its own cart's key). Runs under the per-cart lock (FIFO within the
   * process, a database lock across processes), so two chats of one shopper changing the cart at
   * once are serialised, and in one transaction. `fn` receives the current cart and returns a
   * {@link CartChange}; the cart is written only when the change is `ok` (and differs). Calls with
   * one id apply in the order `withCart` was called. Use `tx` (not the store) for reads inside `fn`: the store's own methods
   * may wait for the very transaction `fn` runs in. With `record`, the call's ledger record is
   * written in the same transaction, after the cart.
   */
  withCart<R extends CartChange>(
    sessionId: string,
    fn: (cart: Cart, tx: CartTransaction) => R | Promise<R>,
    options?: RecordOption<R>,
  ): Promise<R>;
  /** The cart of the session's shopper, read in turn with the cart changes queued before it. */
  getCart(sessionId: string): Promise<Cart>;
  /**
   * Turns the shopper's cart into an order at current prices, takes the stock and empties the
   * cart, all in one transaction under the cart's lock; the order belongs to the shopper and
   * records the chat (`sessionId`) that placed it. Idempotent per chat and `callId`: calling
   * again with the same ids returns the same order (`replayed: true`) and changes nothing. With `record`, the call's
   * ledger record is written in the same transaction; a checkout refused because another one took
   * the stock meanwhile is rolled back whole and not recorded here (nothing happened).
   */
  checkout(sessionId: string, callId: string, options?: CheckoutOptions): Promise<CheckoutResult>;
  /** Orders, newest first. */
  listOrders(options?: ListOrdersOptions): Promise<Order[]>;
  /** Totals and best sellers over every order (merchant). */
  salesSummary(options?: { top?: number }): Promise<SalesSummary>;
}
