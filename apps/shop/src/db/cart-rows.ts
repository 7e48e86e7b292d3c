/**
 * A shopper's cart as stored: one `carts` row per shopper whose `lines` are the cart's lines as
 * JSON. Read and written by every cart change and by checkout, so both queries are prepared.
 */

import { type Cart, type CartLine, EMPTY_CART } from "../domain/cart.js";
import { preparedQuery } from "./prepared-query.js";
import type { ShopDb } from "./shop-database.js";

/** The cart of `owner` (a shopper id, or an id that is its own cart's key); empty when none. */
export async function readCart(db: ShopDb, owner: string): Promise<Cart> {
  const row = (await cartLinesOf(db, owner)).rows[0];
  if (!row) return EMPTY_CART;
  // Rebuilt field by field: jsonb does not keep key order, and the cart should look the same
  // whichever database stored it.
  const lines = (JSON.parse(row.lines) as CartLine[]).map(cartLineFields);
  return { lines };
}

/** Stores `cart` as the cart of `owner`, replacing the one it had. */
export async function writeCart(db: ShopDb, owner: string, cart: Cart, now: string): Promise<void> {
  await upsertCart(db, owner, JSON.stringify(cart.lines.map(cartLineFields)), now);
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

const cartLinesOf = preparedQuery((db, owner: string) =>
  db.selectFrom("carts").select("lines").where("shopper_id", "=", owner),
);
const upsertCart = preparedQuery((db, owner: string, lines: string, now: string) =>
  db
    .insertInto("carts")
    .values({ shopper_id: owner, lines, updated_at: now })
    .onConflict((oc) => oc.column("shopper_id").doUpdateSet({ lines, updated_at: now })),
);
