/**
 * Schema migrations, run at start and idempotent: a `schema_version` table records what was
 * applied, and the whole run happens in one transaction under the dialect's lock, so two server
 * processes starting together on one PostgreSQL apply each migration exactly once.
 */

import { type Kysely, sql, type Transaction } from "kysely";
import { durableTables } from "overlap-runtime/durable";
import { generateCatalog, type Product } from "../domain/catalog.js";
import type { ShopDatabase } from "./shop-database.js";
import type { StoreDialect } from "./store-dialect.js";

/** One schema change. Versions are applied in increasing order and never edited once shipped. */
interface Migration {
  readonly version: number;
  readonly description: string;
  up(trx: Transaction<ShopDatabase>, dialect: StoreDialect): Promise<void>;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "sessions, messages, products, carts, orders, tool ledger; seed the catalog",
    async up(trx, { jsonType, exactJsonType }) {
      const schema = trx.schema;
      await schema
        .createTable("sessions")
        .ifNotExists()
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("token_hash", "text", (c) => c.notNull().unique())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await schema
        .createTable("messages")
        .ifNotExists()
        .addColumn("session_id", "text", (c) => c.notNull())
        .addColumn("seq", "integer", (c) => c.notNull())
        .addColumn("role", "text", (c) => c.notNull())
        .addColumn("content", exactJsonType, (c) => c.notNull())
        .addPrimaryKeyConstraint("messages_pk", ["session_id", "seq"])
        .execute();
      await schema
        .createTable("products")
        .ifNotExists()
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("sku", "text", (c) => c.notNull().unique())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("brand", "text", (c) => c.notNull())
        .addColumn("category", "text", (c) => c.notNull())
        .addColumn("tags", jsonType, (c) => c.notNull())
        .addColumn("price_cents", "integer", (c) => c.notNull().check(nonNegative("price_cents")))
        .addColumn("sizes", jsonType, (c) => c.notNull())
        .addColumn("colors", jsonType, (c) => c.notNull())
        // The CHECK is the last line of defence: no interleaving can ever sell stock twice.
        .addColumn("stock", "integer", (c) => c.notNull().check(nonNegative("stock")))
        .addColumn("rating", "double precision", (c) => c.notNull())
        .addColumn("description", "text", (c) => c.notNull())
        .execute();
      await schema
        .createTable("carts")
        .ifNotExists()
        .addColumn("session_id", "text", (c) => c.primaryKey())
        .addColumn("lines", jsonType, (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      await schema
        .createTable("orders")
        .ifNotExists()
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("session_id", "text", (c) => c.notNull())
        .addColumn("call_id", "text", (c) => c.notNull())
        .addColumn("total_cents", "integer", (c) => c.notNull())
        .addColumn("item_count", "integer", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addUniqueConstraint("orders_session_call_unique", ["session_id", "call_id"])
        .execute();
      await schema
        .createIndex("orders_created_at_idx")
        .ifNotExists()
        .on("orders")
        .column("created_at")
        .execute();
      await schema
        .createTable("order_lines")
        .ifNotExists()
        .addColumn("order_id", "text", (c) => c.notNull().references("orders.id"))
        .addColumn("position", "integer", (c) => c.notNull())
        .addColumn("product_id", "text", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("quantity", "integer", (c) => c.notNull())
        .addColumn("unit_price_cents", "integer", (c) => c.notNull())
        .addPrimaryKeyConstraint("order_lines_pk", ["order_id", "position"])
        .execute();
      await schema
        .createTable("tool_ledger")
        .ifNotExists()
        .addColumn("session_id", "text", (c) => c.notNull())
        .addColumn("call_id", "text", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("outcome", jsonType, (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("tool_ledger_pk", ["session_id", "call_id"])
        .execute();
      await seedProducts(trx, generateCatalog());
    },
  },
  {
    version: 2,
    description: "the call of each ledger record; the round journal",
    async up(trx, { exactJsonType }) {
      // The call (tool_use block, round, index) a record belongs to: a restart can put a call that
      // ran back into the conversation even when its journal row never landed. Exact JSON: the
      // block is sent back to the model as it was.
      await trx.schema.alterTable("tool_ledger").addColumn("entry", exactJsonType).execute();
      await trx.schema
        .createTable("round_journal")
        .ifNotExists()
        .addColumn("session_id", "text", (c) => c.notNull())
        .addColumn("call_id", "text", (c) => c.notNull())
        .addColumn("round", "integer", (c) => c.notNull())
        .addColumn("call_index", "integer", (c) => c.notNull())
        .addColumn("entry", exactJsonType, (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("round_journal_pk", ["session_id", "call_id"])
        .execute();
    },
  },
  {
    version: 3,
    description:
      "shoppers: every shopper session (chat) belongs to one; carts and orders belong to the shopper; chat activity; order line variants",
    async up(trx) {
      const schema = trx.schema;
      // A shopper's token is optional: the shoppers made from older sessions have none (any of
      // their chats' tokens stands for them). UNIQUE allows many NULLs in both databases.
      await schema
        .createTable("shoppers")
        .ifNotExists()
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("token_hash", "text", (c) => c.unique())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      // Added nullable (SQLite cannot add a NOT NULL column without a default), then filled.
      await schema.alterTable("sessions").addColumn("shopper_id", "text").execute();
      await schema.alterTable("sessions").addColumn("last_active_at", "text").execute();
      await schema
        .createIndex("sessions_shopper_idx")
        .ifNotExists()
        .on("sessions")
        .columns(["shopper_id", "last_active_at"])
        .execute();
      // Each existing shopper session becomes its own shopper, with the session's id as the
      // shopper's id: its cart and orders, keyed by that id, then stay where they are.
      await sql`insert into shoppers (id, token_hash, created_at)
        select id, null, created_at from sessions where kind = 'shopper'`.execute(trx);
      await sql`update sessions set shopper_id = id where kind = 'shopper'`.execute(trx);
      await sql`update sessions set last_active_at = created_at`.execute(trx);
      // The cart is the shopper's: one per shopper (old rows: the session id is the shopper id).
      await schema.alterTable("carts").renameColumn("session_id", "shopper_id").execute();
      // Orders keep the chat that placed them (and the call: checkout stays idempotent per call)
      // and gain the shopper they belong to.
      await schema.alterTable("orders").addColumn("shopper_id", "text").execute();
      await sql`update orders set shopper_id = session_id`.execute(trx);
      await schema
        .createIndex("orders_shopper_idx")
        .ifNotExists()
        .on("orders")
        .columns(["shopper_id", "created_at"])
        .execute();
      // The variant ordered (older orders had none recorded).
      await schema.alterTable("order_lines").addColumn("size", "text").execute();
      await schema.alterTable("order_lines").addColumn("color", "text").execute();
    },
  },
  {
    version: 4,
    description:
      "turn leases (one turn per chat across instances); a conversation version; token revocation",
    async up(trx) {
      const schema = trx.schema;
      // One row per chat whose turn is claimed: who holds it (the instance and the turn) and until
      // when (epoch ms, renewed while the turn runs). Claimed by a conditional upsert, released by
      // deleting the holder's own row; a row whose time passed belongs to a dead instance.
      await schema
        .createTable("turn_leases")
        .ifNotExists()
        .addColumn("session_id", "text", (c) => c.primaryKey())
        .addColumn("turn_id", "text", (c) => c.notNull())
        .addColumn("holder", "text", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .addColumn("claimed_at", "text", (c) => c.notNull())
        .execute();
      // Every conversation write checks and raises it: a writer that read an older version lost.
      await schema
        .alterTable("sessions")
        .addColumn("conversation_version", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      // A revoked token opens nothing any more ("Forget me on this device").
      await schema.alterTable("sessions").addColumn("revoked_at", "text").execute();
      await schema.alterTable("shoppers").addColumn("revoked_at", "text").execute();
    },
  },
  {
    version: 5,
    description:
      "cart lines need their variant: lines of one-colour products get that colour; lines missing a size stay",
    async up(trx) {
      // From now on a sized (or many-coloured) product enters a cart only with its size (and
      // colour), and a one-colour product with its colour. Older lines keep what they have:
      // a line without its size stays (the cart view marks it, checkout asks for the size);
      // only the colour a one-colour product can have is filled in. Orders are left as they are.
      const products = await trx.selectFrom("products").select(["id", "colors"]).execute();
      const onlyColor = new Map<string, string>();
      for (const row of products) {
        const colors = parseJson(row.colors) as string[];
        if (colors.length === 1) onlyColor.set(row.id, colors[0]!);
      }
      const carts = await trx.selectFrom("carts").select(["shopper_id", "lines"]).execute();
      for (const cart of carts) {
        const lines = parseJson(cart.lines) as { productId: string; color?: string }[];
        let changed = false;
        const next = lines.map((line) => {
          const color = onlyColor.get(line.productId);
          if (line.color !== undefined || color === undefined) return line;
          changed = true;
          return { ...line, color };
        });
        if (!changed) continue;
        await trx
          .updateTable("carts")
          .set({ lines: JSON.stringify(next) })
          .where("shopper_id", "=", cart.shopper_id)
          .execute();
      }
    },
  },
  {
    version: 6,
    description: "what each turn showed besides its messages: cards, approvals and round timings",
    async up(trx, { jsonType }) {
      // A reload renders earlier turns from their messages; the cards, approval cards and the
      // timeline's figures are not in the messages, so each turn keeps those events here, keyed
      // by the position of the shopper's message that started it.
      await trx.schema
        .createTable("turn_display")
        .ifNotExists()
        .addColumn("session_id", "text", (c) => c.notNull())
        .addColumn("seq", "integer", (c) => c.notNull())
        .addColumn("events", jsonType, (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("turn_display_pk", ["session_id", "seq"])
        .execute();
    },
  },
  {
    version: 7,
    description: "discounts: the percentage off each product's list price (set by category)",
    async up(trx) {
      // `price_cents` stays the list price; a product with a percentage here sells for less, and
      // the store hands out the price after it (domain/discounts.ts). Null: no discount. Existing
      // products have none.
      await trx.schema
        .alterTable("products")
        .addColumn("discount_percent", "integer", (c) =>
          c.check(sql`discount_percent >= 1 and discount_percent <= 90`),
        )
        .execute();
    },
  },
  {
    version: 8,
    description:
      "tool calls and turn leases in overlap's durable tables: the ledger and the round journal copied there; the shop's own tables dropped",
    async up(trx, dialect) {
      // The durable tables exist already: the store migrates them first (`KyselyShopStore`).
      const t = durableTables(DURABLE_PREFIX);
      const ms = (column: string) =>
        dialect.name === "postgres"
          ? `(extract(epoch from ${column}::timestamptz) * 1000)::bigint`
          : `CAST((julianday(${column}) - 2440587.5) * 86400000 AS INTEGER)`;
      const text = (column: string) => (dialect.name === "postgres" ? `${column}::text` : column);
      // `WHERE true`: SQLite reads an upsert after a bare SELECT as a join's ON.
      // Every finished call keeps its outcome: a resumed round reuses it, a restore finds it.
      await sql
        .raw(
          `INSERT INTO ${t.ledger}
             (conversation_id, call_id, name, status, outcome, entry, idempotency_key, created_at)
           SELECT session_id, call_id, name, status, ${text("outcome")}, ${text("entry")}, NULL,
             ${ms("created_at")}
           FROM tool_ledger WHERE true
           ON CONFLICT (conversation_id, call_id) DO NOTHING`,
        )
        .execute(trx);
      // A round a crash cut off before the upgrade is restored by the chat's next turn. Its
      // calls were made before turns had ids: their keys are their call ids.
      await sql
        .raw(
          `INSERT INTO ${t.journal}
             (conversation_id, call_id, turn_id, round, call_index, idempotency_key, entry, created_at)
           SELECT session_id, call_id, '', round, call_index, call_id, ${text("entry")},
             ${ms("created_at")}
           FROM round_journal WHERE true
           ON CONFLICT (conversation_id, call_id) DO NOTHING`,
        )
        .execute(trx);
      // A lease lives as long as a turn: none outlives the restart that upgrades.
      for (const table of ["tool_ledger", "round_journal", "turn_leases"]) {
        await trx.schema.dropTable(table).ifExists().execute();
      }
    },
  },
  {
    version: 9,
    description:
      "conversations in overlap's durable tables: every message and each chat's version copied there; the shop's own messages table dropped",
    async up(trx, dialect) {
      const t = durableTables(DURABLE_PREFIX);
      // Content as stored, byte for byte (PostgreSQL's `json` keeps its text).
      const content = dialect.name === "postgres" ? "content::text" : "content";
      const lastActive =
        dialect.name === "postgres"
          ? "(extract(epoch from coalesce(s.last_active_at, s.created_at)::timestamptz) * 1000)::bigint"
          : "CAST((julianday(coalesce(s.last_active_at, s.created_at)) - 2440587.5) * 86400000 AS INTEGER)";
      await sql
        .raw(
          `INSERT INTO ${t.messages} (conversation_id, seq, role, content)
           SELECT session_id, seq, role, ${content} FROM messages WHERE true
           ON CONFLICT (conversation_id, seq) DO NOTHING`,
        )
        .execute(trx);
      // The version goes on from where it was: a writer that read before the upgrade conflicts.
      await sql
        .raw(
          `INSERT INTO ${t.conversations} (id, version, updated_at)
           SELECT s.id, s.conversation_version, ${lastActive} FROM sessions s
           WHERE s.conversation_version > 0
             OR EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id)
           ON CONFLICT (id) DO NOTHING`,
        )
        .execute(trx);
      await trx.schema.dropTable("messages").execute();
      await trx.schema.alterTable("sessions").dropColumn("conversation_version").execute();
    },
  },
];

/** The prefix of overlap's durable tables (`overlap-runtime/durable`) in the shop's database. */
export const DURABLE_PREFIX = "overlap_";

/** The schema version this code expects. */
export const LATEST_SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

/**
 * Applies every pending migration up to `target` (default: the latest); returns the versions
 * applied (empty when up to date). A lower `target` is for tests that build an older database.
 */
export async function migrateToLatest(
  db: Kysely<ShopDatabase>,
  dialect: StoreDialect,
  target = LATEST_SCHEMA_VERSION,
): Promise<number[]> {
  return db.transaction().execute(async (trx) => {
    await dialect.lock(trx, "overlap-shop:migrations");
    await trx.schema
      .createTable("schema_version")
      .ifNotExists()
      .addColumn("version", "integer", (c) => c.primaryKey())
      .addColumn("applied_at", "text", (c) => c.notNull())
      .execute();
    const row = await trx
      .selectFrom("schema_version")
      .select((eb) => eb.fn.max("version").as("version"))
      .executeTakeFirst();
    const current = Number(row?.version ?? 0);
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version <= current || migration.version > target) continue;
      await migration.up(trx, dialect);
      await trx
        .insertInto("schema_version")
        .values({ version: migration.version, applied_at: new Date().toISOString() })
        .execute();
      applied.push(migration.version);
    }
    return applied;
  });
}

/** Inserts products in batches (SQLite and PostgreSQL both cap the parameters of a statement). */
async function seedProducts(trx: Transaction<ShopDatabase>, products: readonly Product[]) {
  const batchSize = 50;
  for (let i = 0; i < products.length; i += batchSize) {
    await trx
      .insertInto("products")
      .values(
        products.slice(i, i + batchSize).map((p) => ({
          id: p.id,
          sku: p.sku,
          name: p.name,
          brand: p.brand,
          category: p.category,
          tags: JSON.stringify(p.tags),
          price_cents: p.priceCents,
          sizes: JSON.stringify(p.sizes),
          colors: JSON.stringify(p.colors),
          stock: p.stock,
          rating: p.rating,
          description: p.description,
        })),
      )
      .execute();
  }
}

/** A JSON column's value: text in SQLite (and as the store reads jsonb), parsed otherwise. */
function parseJson(value: unknown): unknown {
  return typeof value === "string" ? JSON.parse(value) : value;
}

function nonNegative(column: string) {
  return sql`${sql.ref(column)} >= 0`;
}
