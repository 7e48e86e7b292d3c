/**
 * Hono's `bodyLimit`, without its cost on the requests that do not need it. Hono's middleware
 * first asks for `c.req.raw.body`, and on the Node server that one property makes the whole
 * web-standard Request of every request (its headers, its abort signal, and for a POST a web
 * stream over the socket's body), which the routes never need: they read the body straight from
 * Node's request (`c.req.text()`), and a GET has none. So: a GET or HEAD passes; a body with a
 * `content-length` (and no `transfer-encoding`) is judged by that header, as Hono's middleware
 * judges it; any other body (chunked) goes through Hono's middleware, which counts its bytes.
 */

import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";

/** Options of {@link bodySizeLimit}: Hono's `bodyLimit` options. */
export type BodySizeLimitOptions = Parameters<typeof bodyLimit>[0];

/** The middleware refusing a body over `maxSize` bytes with `onError`'s answer. */
export function bodySizeLimit(options: BodySizeLimitOptions): MiddlewareHandler {
  const counted = bodyLimit(options);
  return async (c, next) => {
    const method = c.req.method;
    if (method === "GET" || method === "HEAD") return next();
    const length = c.req.header("content-length");
    if (length !== undefined && c.req.header("transfer-encoding") === undefined) {
      if (Number.parseInt(length || "0", 10) > options.maxSize) {
        return options.onError ? options.onError(c) : counted(c, next);
      }
      return next();
    }
    return counted(c, next);
  };
}
