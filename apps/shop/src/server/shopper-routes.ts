/**
 * The shopper's own routes, across their chats. `POST /api/sessions` starts a chat: with the
 * shopper's token (or the token of any of their chats) a new chat of that shopper, which shares
 * the shopper's cart and orders; without a token a new shopper, whose token comes back once as
 * `shopperToken`. `GET /api/shopper/chats` lists the chats to reopen (each one's transcript is
 * `GET /api/sessions/:id` with the same token), `GET /api/shopper/orders` the orders with their
 * lines (size and colour included). `POST /api/shopper/forget` revokes the shopper's token and
 * every chat token of theirs ("Forget me on this device"): afterwards each answers 401 as an
 * unknown token would, and the chats' running turns are cancelled.
 */

import type { Context, Hono, MiddlewareHandler } from "hono";
import type { ShopStore } from "../db/shop-store.js";
import { formatCents } from "../domain/money.js";
import type { Order } from "../domain/orders.js";
import { priceLineView } from "../views/cart-view.js";
import type { AppEnv } from "./app-env.js";
import { bearerToken } from "./bearer-token.js";
import { HttpError } from "./http-error.js";
import { invalidToken, requireBearer, tokenOwner } from "./require-session.js";

/** Chats or orders one request lists at most. */
const MAX_LIST = 100;

/** An order as `GET /api/shopper/orders` shows it. */
export interface OrderView {
  id: string;
  /** The chat that placed it. */
  chatId: string;
  /** Orders are placed and paid at once; shipping is not tracked by this shop. */
  status: "placed";
  /** ISO 8601. */
  createdAt: string;
  itemCount: number;
  totalCents: number;
  /** The total as text, e.g. `$103.50`. */
  total: string;
  lines: {
    productId: string;
    name: string;
    quantity: number;
    size?: string;
    color?: string;
    unitPriceCents: number;
    unitPrice: string;
    lineTotalCents: number;
    lineTotal: string;
  }[];
}

/** Options of {@link registerShopperRoutes}. */
export interface ShopperRouteOptions {
  /** Told the chats whose tokens `POST /api/shopper/forget` revoked (to cancel their turns). */
  onForget?: (sessionIds: readonly string[]) => Promise<void>;
}

/** Registers `POST /api/sessions` (behind `limit`) and the `/api/shopper/*` routes. */
export function registerShopperRoutes(
  app: Hono<AppEnv>,
  store: ShopStore,
  limit: MiddlewareHandler<AppEnv>,
  options: ShopperRouteOptions = {},
): void {
  app.post("/api/sessions", limit, async (c) => {
    // A request without a token starts a new shopper; one with a token must be a shopper's.
    const token = bearerToken(c.req.header("authorization"));
    if (token === undefined && c.req.header("authorization") !== undefined) {
      throw new HttpError(
        401,
        "unauthorized",
        "To start a new chat of a shopper, send the shopper's (or one of their chats') token as Authorization: Bearer <token>; send no Authorization header to start as a new shopper.",
      );
    }
    if (token === undefined) return c.json(await store.createSession("shopper"), 201);
    const shopperId = await shopperOf(c, store, token);
    try {
      return c.json(await store.createSession("shopper", { shopperId }), 201);
    } catch (error) {
      // The shopper was forgotten between the token check and the new chat.
      if (error instanceof RangeError) throw invalidToken(c);
      throw error;
    }
  });

  app.post("/api/shopper/forget", async (c) => {
    const shopperId = await shopperOf(c, store, requireBearer(c, "the shopper's token"));
    const { sessionIds } = await store.revokeShopper(shopperId);
    await options.onForget?.(sessionIds);
    return c.json({ forgotten: true, revokedChats: sessionIds.length });
  });

  app.get("/api/shopper/chats", async (c) => {
    const shopperId = await shopperOf(c, store, requireBearer(c, "the shopper's token"));
    const chats = await store.listChats(shopperId, { limit: limitParam(c) });
    return c.json({ chats });
  });

  app.get("/api/shopper/orders", async (c) => {
    const shopperId = await shopperOf(c, store, requireBearer(c, "the shopper's token"));
    const orders = await store.listOrders({ shopperId, limit: limitParam(c) });
    return c.json({ orders: orders.map(orderView) });
  });
}

/** The shopper a token stands for. @throws HttpError 401 (not valid), 403 (a merchant's). */
async function shopperOf(c: Context<AppEnv>, store: ShopStore, token: string): Promise<string> {
  const owner = await tokenOwner(c, store, token);
  if (owner.kind !== "shopper") {
    throw new HttpError(403, "forbidden", "This route needs a shopper's token.");
  }
  return owner.shopperId;
}

/** `?limit=` (1 to 100, default 50). @throws HttpError 400 otherwise. */
function limitParam(c: Context<AppEnv>): number {
  const raw = c.req.query("limit");
  if (raw === undefined) return 50;
  const n = Number(raw);
  if (!/^\d{1,3}$/.test(raw) || n < 1 || n > MAX_LIST) {
    throw new HttpError(
      400,
      "invalid_request",
      `limit must be a whole number from 1 to ${MAX_LIST}.`,
    );
  }
  return n;
}

/** An order for the shopper's screen. */
export function orderView(order: Order): OrderView {
  return {
    id: order.id,
    chatId: order.sessionId,
    status: "placed",
    createdAt: order.createdAt,
    itemCount: order.itemCount,
    totalCents: order.totalCents,
    total: formatCents(order.totalCents),
    lines: order.lines.map(priceLineView),
  };
}
