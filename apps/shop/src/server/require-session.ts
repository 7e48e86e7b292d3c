/**
 * Session authentication (B12): every session route needs `Authorization: Bearer <token>`, and
 * the token must belong to the very session in the path and be of the route's kind. Another
 * session's token answers 404 (the session is not there for that caller: no data, and no hint
 * whether the id exists); a merchant token on a shopper route, or the reverse, answers 403.
 */

import type { MiddlewareHandler } from "hono";
import type { SessionKind, ShopStore } from "../db/shop-store.js";
import type { AppEnv } from "./app-env.js";
import { bearerToken } from "./bearer-token.js";
import { HttpError } from "./http-error.js";

/** The middleware for routes under `.../sessions/:id` of one kind. */
export function requireSession(store: ShopStore, kind: SessionKind): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = bearerToken(c.req.header("authorization"));
    if (token === undefined) {
      c.header("www-authenticate", 'Bearer realm="shop"');
      throw new HttpError(
        401,
        "unauthorized",
        "Send the session's token as Authorization: Bearer <token>.",
      );
    }
    const session = await store.findSessionByToken(token);
    if (!session) {
      c.header("www-authenticate", 'Bearer realm="shop", error="invalid_token"');
      throw new HttpError(401, "unauthorized", "The token is not valid.");
    }
    if (session.kind !== kind) {
      throw new HttpError(403, "forbidden", `This route needs a ${kind} session's token.`);
    }
    if (session.id !== c.req.param("id")) {
      throw new HttpError(404, "not_found", "There is no such session.");
    }
    c.set("session", session);
    await next();
  };
}
