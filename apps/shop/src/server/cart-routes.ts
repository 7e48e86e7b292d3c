/**
 * The cart over REST. Changes go through exactly what the tools use: `store.withCart` (the
 * per-session lock and transaction) around the domain's pure rules, so a shopper clicking and
 * the assistant adding at the same moment can never overshoot a limit together. A broken rule
 * answers 409 with the rule's own sentence (these are user-facing rules); a product id that is not
 * in the catalog answers 404.
 */

import type { Hono } from "hono";
import { z } from "zod";
import type { ShopStore } from "../db/shop-store.js";
import { addToCart, type CartResult, removeLine, updateQuantity } from "../domain/cart.js";
import { unknownProduct } from "../domain/rule-violation.js";
import { cartView } from "../views/cart-view.js";
import type { AppEnv } from "./app-env.js";
import { HttpError } from "./http-error.js";
import { isStorableText, readJson } from "./read-json.js";
import { requireSession } from "./require-session.js";

/** The longest product id accepted (catalog ids are `p-0001` style). */
const MAX_PRODUCT_ID_CHARS = 64;

const ProductId = z
  .string()
  .trim()
  .min(1)
  .max(MAX_PRODUCT_ID_CHARS)
  .refine(isStorableText, "must be well-formed text (no lone surrogate, no NUL character)");
const AddItemBody = z.object({ productId: ProductId, quantity: z.int() });
const SetQuantityBody = z.object({ quantity: z.int() });

/** Registers `GET /api/sessions/:id/cart` and the cart item routes. */
export function registerCartRoutes(app: Hono<AppEnv>, store: ShopStore): void {
  const auth = requireSession(store, "shopper");
  const base = "/api/sessions/:id/cart";

  app.get(base, auth, async (c) => {
    const cart = await store.getCart(c.get("session").id);
    return c.json({ cart: await cartView(store, cart) });
  });

  app.post(`${base}/items`, auth, async (c) => {
    const body = await readJson(c, AddItemBody);
    const result = await store.withCart(c.get("session").id, async (cart, tx) =>
      addToCart(cart, await tx.getProduct(body.productId), body.quantity, tx.rules),
    );
    return c.json({ cart: await cartView(store, changed(result)) });
  });

  app.patch(`${base}/items/:productId`, auth, async (c) => {
    const id = productIdParam(c.req.param("productId"));
    const body = await readJson(c, SetQuantityBody);
    const result = await store.withCart(c.get("session").id, async (cart, tx) =>
      updateQuantity(cart, await tx.getProduct(id), body.quantity, tx.rules),
    );
    return c.json({ cart: await cartView(store, changed(result)) });
  });

  app.delete(`${base}/items/:productId`, auth, async (c) => {
    const id = productIdParam(c.req.param("productId"));
    const result = await store.withCart(c.get("session").id, async (cart, tx) => {
      const removed = removeLine(cart, id);
      // A line whose product left the catalog can still be removed; an id never seen is a 404.
      if (!removed.ok && !(await tx.getProduct(id))) return unknownProduct(id);
      return removed;
    });
    return c.json({ cart: await cartView(store, changed(result)) });
  });
}

/** The product id of an item path, checked like a body's. @throws HttpError 400 otherwise. */
function productIdParam(value: string): string {
  const parsed = ProductId.safeParse(value);
  if (!parsed.success) {
    throw new HttpError(
      400,
      "invalid_request",
      `The product id in the path must be 1 to ${MAX_PRODUCT_ID_CHARS} characters of well-formed text, without NUL.`,
    );
  }
  return parsed.data;
}

/** The new cart, or the broken rule as an error answer. */
function changed(result: CartResult) {
  if (result.ok) return result.cart;
  throw new HttpError(result.code === "unknown_product" ? 404 : 409, result.code, result.message);
}
