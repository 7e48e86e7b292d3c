/**
 * Per-request logging: a request id (taken from a sane `x-request-id`, else generated) is put
 * on the context, echoed in the response header and carried by every log line of the request.
 * Only the method, the path (never the query string), the client's address and the outcome are
 * logged: headers are not, so bearer tokens never reach a log. The client's address is resolved
 * here once per request (through the trusted proxies with `TRUST_PROXY`) and put on the context
 * for the rate limits (`clientAddress(c)`).
 */

import { randomUUID } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import type { AppEnv } from "./app-env.js";
import { resolveClientAddress } from "./rate-limit.js";
import type { TrustProxy } from "./trust-proxy.js";

const CALLER_ID = /^[\w.:-]{1,64}$/;

/** Options of {@link requestLogging}. */
export interface RequestLoggingOptions {
  /** The proxies whose `X-Forwarded-For` entries to follow (`TRUST_PROXY`); default none. */
  trustProxy?: TrustProxy | undefined;
}

/** The middleware; `logger` is the app's root logger. */
export function requestLogging(
  logger: Logger,
  options: RequestLoggingOptions = {},
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const client = resolveClientAddress(c, options.trustProxy);
    c.set("clientAddress", client);
    const offered = c.req.header("x-request-id");
    const requestId = offered && CALLER_ID.test(offered) ? offered : randomUUID();
    const log = logger.child({ reqId: requestId });
    c.set("requestId", requestId);
    c.set("log", log);
    const started = performance.now();
    await next();
    c.header("x-request-id", requestId);
    const status = c.res.status;
    const line = {
      method: c.req.method,
      path: c.req.path,
      client,
      status,
      ms: Math.round(performance.now() - started),
    };
    // Client errors are the caller's business: info; server errors: error (logged in full before).
    if (status >= 500) log.error(line, "request");
    else log.info(line, "request");
  };
}
