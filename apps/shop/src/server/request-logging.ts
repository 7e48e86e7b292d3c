/**
 * Per-request logging: a request id (taken from a sane `x-request-id`, else generated) is put
 * on the context, echoed in the response header and carried by every log line of the request.
 * Only the method, the path (never the query string), the client's address and the outcome are
 * logged: headers are not, so bearer tokens never reach a log. The client's address is resolved
 * here once per request (through the trusted proxies with `TRUST_PROXY`) and put on the context
 * for the rate limits (`clientAddress(c)`).
 */

import { randomUUID } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
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
    setAnswerHeader(c, "x-request-id", requestId);
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

/**
 * Sets a header of the answer the handler gave, in that answer's own headers. Hono's `c.header`
 * after the handler copies the answer into a new one to set it, which on the Node server turns
 * its light response into a full web Response, twice (a good part of a small request's cost).
 * An answer whose headers cannot change (a fetched response) is copied as `c.header` does.
 */
function setAnswerHeader(c: Context<AppEnv>, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    c.header(name, value);
  }
}
