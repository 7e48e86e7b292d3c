/**
 * Session authentication: every session route needs `Authorization: Bearer <token>` of the
 * route's kind. A merchant session's routes take that session's own token. A shopper session is
 * one chat of a shopper, and the shopper owns all of their chats: its routes take the chat's own
 * token, the token of any other chat of the same shopper, or the shopper's token. Any other
 * valid token answers 404 (the session is not there for that caller: no data, and no hint whether
 * the id exists); a merchant token on a shopper route, or the reverse, answers 403.
 */

import type { Context, MiddlewareHandler } from "hono";
import type { SessionKind, ShopStore } from "../db/shop-store.js";
import type { AppEnv } from "./app-env.js";
import { bearerToken } from "./bearer-token.js";
import { HttpError } from "./http-error.js";
import { checkIdParams, NO_SUCH_SESSION } from "./id-params.js";

/** Who a bearer token stands for. */
export type TokenOwner =
  | { readonly kind: "merchant"; readonly sessionId: string }
  | {
      readonly kind: "shopper";
      readonly shopperId: string;
      /** The chat whose token it is; absent for the shopper's own token. */
      readonly sessionId?: string;
    };

/**
 * The request's bearer token, or a 401 (with `WWW-Authenticate`) when there is none.
 * @throws HttpError 401.
 */
export function requireBearer(c: Context<AppEnv>, what: string): string {
  const token = bearerToken(c.req.header("authorization"));
  if (token !== undefined) return token;
  c.header("www-authenticate", 'Bearer realm="shop"');
  throw new HttpError(401, "unauthorized", `Send ${what} as Authorization: Bearer <token>.`);
}

/**
 * Who `token` stands for: a session's token (a chat's stands for its shopper too) or a shopper's
 * token. A 401 when it is neither, or revoked, or older than the token lifetime.
 * @throws HttpError 401.
 */
export async function tokenOwner(
  c: Context<AppEnv>,
  store: ShopStore,
  token: string,
): Promise<TokenOwner> {
  const session = await store.findSessionByToken(token);
  if (session?.kind === "merchant") return { kind: "merchant", sessionId: session.id };
  if (session) {
    // A shopper session made by this code always has a shopper; the fallback keeps a session
    // without one (none should exist) its own owner.
    return { kind: "shopper", shopperId: session.shopperId ?? session.id, sessionId: session.id };
  }
  const shopper = await store.findShopperByToken(token);
  if (shopper) return { kind: "shopper", shopperId: shopper.id };
  throw invalidToken(c);
}

/**
 * The 401 of a token that opens nothing: unknown, revoked or expired alike (no hint which), with
 * `WWW-Authenticate`.
 */
export function invalidToken(c: Context<AppEnv>): HttpError {
  c.header("www-authenticate", 'Bearer realm="shop", error="invalid_token"');
  return new HttpError(401, "unauthorized", "The token is not valid.");
}

/**
 * The middleware for routes under `.../sessions/:id` of one kind. The route's path ids are
 * checked first (`id-params.ts`): one that cannot be an id is a 404 before any query.
 */
export function requireSession(store: ShopStore, kind: SessionKind): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    checkIdParams(c);
    const token = requireBearer(c, "the session's token");
    const owner = await tokenOwner(c, store, token);
    if (owner.kind !== kind) {
      throw new HttpError(403, "forbidden", `This route needs a ${kind} session's token.`);
    }
    const id = c.req.param("id") ?? "";
    const session =
      owner.sessionId === id || owner.kind === "shopper" ? await store.getSession(id) : undefined;
    const allowed =
      session !== undefined &&
      session.kind === kind &&
      (session.id === owner.sessionId ||
        (owner.kind === "shopper" && session.shopperId === owner.shopperId));
    if (!session || !allowed) {
      throw new HttpError(404, "not_found", NO_SUCH_SESSION);
    }
    c.set("session", session);
    await next();
  };
}
