/**
 * The SQL schema as Kysely table types, shared by SQLite and PostgreSQL. JSON columns hold text
 * in SQLite and json/jsonb in PostgreSQL; both drivers are set up to hand them back as strings, so
 * the store always parses JSON itself. Timestamps are ISO 8601 text (they sort as time).
 */

import type { Kysely, Transaction } from "kysely";

/** Applied schema migrations. */
export interface SchemaVersionTable {
  version: number;
  applied_at: string;
}

/**
 * Shoppers: the owner of a cart, of orders and of any number of chats (shopper sessions). Only the
 * token's SHA-256 is stored; shoppers made from sessions of older versions have no token.
 */
export interface ShoppersTable {
  id: string;
  token_hash: string | null;
  created_at: string;
  /** When the shopper's token was revoked (ISO 8601); null while it is valid. */
  revoked_at: string | null;
}

/**
 * Shopper sessions (chats) and merchant sessions; only the token's SHA-256 is stored. A shopper
 * session belongs to a shopper (`shopper_id`); a merchant session to none.
 */
export interface SessionsTable {
  id: string;
  kind: string;
  token_hash: string;
  created_at: string;
  shopper_id: string | null;
  /** When a message was last stored (ISO 8601); the creation time until then. */
  last_active_at: string | null;
  /** When the token was revoked (ISO 8601); null while it is valid. */
  revoked_at: string | null;
}

/**
 * overlap's durable messages table (`overlap-runtime/durable`, written by its conversation
 * store): one row per message, `seq` from 0. The shop reads it for the list of chats.
 */
export interface DurableMessagesTable {
  conversation_id: string;
  seq: number;
  role: string;
  /** JSON of the message's `content` (a string or an array of blocks). */
  content: string;
}

/** The catalog with live price and stock; `price_cents` is the list price (before a discount). */
export interface ProductsTable {
  id: string;
  sku: string;
  name: string;
  brand: string;
  category: string;
  /** JSON array of strings. */
  tags: string;
  price_cents: number;
  /** JSON array of strings. */
  sizes: string;
  /** JSON array of strings. */
  colors: string;
  stock: number;
  rating: number;
  description: string;
  /** The whole percentage off `price_cents` (the list price) while a discount applies; else null. */
  discount_percent: number | null;
}

/** One cart per shopper (or per bare key: see `ShopStore.withCart`). */
export interface CartsTable {
  shopper_id: string;
  /** JSON array of cart lines. */
  lines: string;
  updated_at: string;
}

/**
 * Placed orders; (session_id, call_id) is unique, which makes checkout idempotent. `session_id` is
 * the chat that placed the order, `shopper_id` whose order it is.
 */
export interface OrdersTable {
  id: string;
  session_id: string;
  shopper_id: string | null;
  call_id: string;
  total_cents: number;
  item_count: number;
  created_at: string;
}

/** The lines of an order, in cart order. */
export interface OrderLinesTable {
  order_id: string;
  position: number;
  product_id: string;
  name: string;
  quantity: number;
  unit_price_cents: number;
  /** The size and colour ordered; null when none was chosen (and for older orders). */
  size: string | null;
  color: string | null;
}

/**
 * What a turn showed besides its messages (its `ui`, approval and `round-end` events), so a
 * reload draws its cards and timeline again. `seq` is the position of the message that started
 * the turn (the shopper's) in `messages`.
 */
export interface TurnDisplayTable {
  session_id: string;
  seq: number;
  /** JSON array of the kept AgentEvents, in the order they were sent. */
  events: string;
  /** ISO 8601. */
  updated_at: string;
}

/** Every table of the shop. */
export interface ShopDatabase {
  schema_version: SchemaVersionTable;
  shoppers: ShoppersTable;
  sessions: SessionsTable;
  overlap_messages: DurableMessagesTable;
  products: ProductsTable;
  carts: CartsTable;
  orders: OrdersTable;
  order_lines: OrderLinesTable;
  turn_display: TurnDisplayTable;
}

/** What the store's queries run on: its Kysely, or one of its transactions. */
export type ShopDb = Kysely<ShopDatabase> | Transaction<ShopDatabase>;
