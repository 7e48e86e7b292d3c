/**
 * The Hono environment of the shop's app: what the middleware puts on each request's context.
 */

import type { Logger } from "pino";
import type { Session } from "../db/shop-store.js";

/** Per-request variables. */
export interface AppVariables {
  /** This request's id (also the `x-request-id` response header and every log line's `reqId`). */
  requestId: string;
  /** The request's logger, carrying its id. */
  log: Logger;
  /**
   * The client's address (`TRUST_PROXY`: through the trusted proxies), set by the request log
   * first; read it with `clientAddress(c)`.
   */
  clientAddress: string;
  /** The authenticated session of a session route (set by `requireSession`). */
  session: Session;
}

/** The app's Hono environment. */
export interface AppEnv {
  Variables: AppVariables;
}
