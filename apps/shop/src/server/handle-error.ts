/**
 * The app's last line: every failure becomes `{ error: { code, message } }`. Expected ones
 * ({@link HttpError}) keep their message; anything else is logged in full with the request's id
 * and answered with a generic sentence, so no stack, SQL or provider detail reaches a browser.
 * A request whose body never arrived in full (the client left, or the request timed out) is not
 * a failure of ours: logged at info and answered with its own code (see `read-json.ts`).
 */

import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "./app-env.js";
import { errorBody, HttpError } from "./http-error.js";
import { bodyNotReceived } from "./read-json.js";

/** What a browser reads for any unexpected failure. */
export const GENERIC_ERROR_MESSAGE = "Something went wrong on our side. Please try again.";

/** Hono `onError` handler. */
export function handleError(err: unknown, c: Context<AppEnv>): Response {
  if (err instanceof HttpError) {
    return c.json(errorBody(err.code, err.message), err.status);
  }
  if (err instanceof HTTPException && err.status < 500) {
    // Raised by Hono itself (e.g. a malformed request line); its own text is not ours to show.
    return c.json(
      errorBody("invalid_request", "The request could not be processed."),
      err.status as ContentfulStatusCode,
    );
  }
  const log = c.get("log");
  // A body the client stopped sending (read by `bodyLimit` when chunked): the client's doing.
  const notReceived = bodyNotReceived(c, err);
  if (notReceived) {
    log?.info({ code: notReceived.code }, "request body did not arrive in full");
    return c.json(errorBody(notReceived.code, notReceived.message), notReceived.status);
  }
  log?.error({ err }, "request failed");
  return c.json(errorBody("internal", GENERIC_ERROR_MESSAGE), 500);
}

/** Hono `notFound` handler: unknown routes answer JSON too. */
export function handleNotFound(c: Context<AppEnv>): Response {
  return c.json(errorBody("not_found", `There is no route ${c.req.method} ${c.req.path}.`), 404);
}
