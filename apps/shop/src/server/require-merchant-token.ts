/**
 * The merchant credential: creating a merchant session needs
 * `Authorization: Bearer $MERCHANT_TOKEN`. Compared in constant time (digests of equal length),
 * so the answer time says nothing about how much of a guess was right.
 */

import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./app-env.js";
import { bearerToken } from "./bearer-token.js";
import { HttpError } from "./http-error.js";

/** The middleware guarding merchant session creation. */
export function requireMerchantToken(merchantToken: string): MiddlewareHandler<AppEnv> {
  const expected = digest(merchantToken);
  return async (c, next) => {
    const token = bearerToken(c.req.header("authorization"));
    if (token === undefined) {
      c.header("www-authenticate", 'Bearer realm="merchant"');
      throw new HttpError(
        401,
        "unauthorized",
        "Send the merchant token as Authorization: Bearer <token>.",
      );
    }
    if (!timingSafeEqual(digest(token), expected)) {
      throw new HttpError(403, "forbidden", "This route needs the merchant token.");
    }
    await next();
  };
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}
