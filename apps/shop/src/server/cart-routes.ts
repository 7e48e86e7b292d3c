/**
 * The cart over REST. Changes go through exactly what the tools use: `store.withCart` (the
 * per-session lock and transaction) around the domain's pure rules, so a shopper clicking and
 * the assistant adding at the same moment can never overshoot a limit together. A broken rule
 * answers 409 with the rule's own sentence (these are user-facing rules) and, when the rule has
 * them, its params (`variant_required`: the lines and their sizes and colours, for a picker); a
 * product id that is not in the catalog answers 404.
 */

import type { Context, Hono } from "hono";
import { z } from "zod";
import type { ShopStore } from "../db/shop-store.js";
import { addToCart, type CartResult, removeLine, updateQuantity } from "../domain/cart.js";
import { unknownProduct } from "../domain/rule-violation.js";
import { cartView } from "../views/cart-view.js";
import type { AppEnv } from "./app-env.js";
import { errorBody, HttpError } from "./http-error.js";
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
const VariantName = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .refine(isStorableText, "must be well-formed text (no lone surrogate, no NUL character)");
const Variant = { size: VariantName.optional(), color: VariantName.optional() };
const AddItemBody = z.object({ productId: ProductId, quantity: z.int(), ...Variant });
/** A quantity and/or a new size or colour; `line` names the line among several of the product. */
const SetItemBody = z
  .object({ quantity: z.int().optional(), ...Variant, line: z.object(Variant).optional() })
  .refine(
    (b) => b.quantity !== undefined || b.size !== undefined || b.color !== undefined,
    "give a quantity, a size or a colour",
  );

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
      addToCart(cart, await tx.getProduct(body.productId), body.quantity, tx.rules, {
        size: body.size,
        color: body.color,
      }),
    );
    return answer(c, store, result);
  });

  app.patch(`${base}/items/:productId`, auth, async (c) => {
    const id = productIdParam(c.req.param("productId"));
    const body = await readJson(c, SetItemBody);
    const result = await store.withCart(c.get("session").id, async (cart, tx) =>
      updateQuantity(
        cart,
        await tx.getProduct(id),
        body.quantity,
        tx.rules,
        { size: body.size, color: body.color },
        body.line,
      ),
    );
    return answer(c, store, result);
  });

  app.delete(`${base}/items/:productId`, auth, async (c) => {
    const id = productIdParam(c.req.param("productId"));
    // `?size=US 10&color=Volt`: only that line of the product; without them, every line.
    const line = { size: c.req.query("size"), color: c.req.query("color") };
    const result = await store.withCart(c.get("session").id, async (cart, tx) => {
      const removed = removeLine(cart, id, line);
      // A line whose product left the catalog can still be removed; an id never seen is a 404.
      if (!removed.ok && !(await tx.getProduct(id))) return unknownProduct(id);
      return removed;
    });
    return answer(c, store, result);
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

/** The new cart's view, or the broken rule as an error answer (with its params, if any). */
async function answer(c: Context<AppEnv>, store: ShopStore, result: CartResult) {
  if (result.ok) return c.json({ cart: await cartView(store, result.cart) });
  const body = errorBody(result.code, result.message);
  return c.json(
    result.params === undefined ? body : { error: { ...body.error, params: result.params } },
    result.code === "unknown_product" ? 404 : 409,
  );
}
