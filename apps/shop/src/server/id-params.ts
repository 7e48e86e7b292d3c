/**
 * The one check of every id in a route's path (`:id`, `:callId`, `:productId`): a value that
 * cannot be an id (a NUL, a lone surrogate, longer than any id of its kind, empty) is the route's
 * 404, answered before any query. No id of ours holds such text, and PostgreSQL cannot even
 * compare a NUL (its driver fails, which would be a 500 with an error log); SQLite would find
 * nothing. Every route with a path parameter is a session route, so `requireSession` runs this
 * first.
 */

import type { Context } from "hono";
import { HttpError } from "./http-error.js";
import { isStorableText } from "./read-json.js";

/** What a path parameter may be: its longest value, and the 404 of a value that is no id. */
interface IdParam {
  readonly maxChars: number;
  readonly code: string;
  readonly message: string;
}

/** The 404 of a session id; also the answer for a session another caller owns. */
export const NO_SUCH_SESSION = "There is no such session.";

/** The id parameters the routes use, by name. */
const ID_PARAMS: Readonly<Record<string, IdParam>> = {
  // Session ids are `s-` and 16 hex digits.
  id: { maxChars: 64, code: "not_found", message: NO_SUCH_SESSION },
  // Providers' call ids are some 30 to 60 characters.
  callId: {
    maxChars: 200,
    code: "approval_not_found",
    message:
      "Nothing in this conversation is waiting for approval under that id (the reply may have ended).",
  },
  // Catalog ids are `p-0001` style.
  productId: {
    maxChars: 64,
    code: "unknown_product",
    message: "That product is not in the catalog.",
  },
};

/** A parameter of another name: bounded as the longest above. */
const OTHER: IdParam = { maxChars: 200, code: "not_found", message: "Nothing has that id." };

/** True when `value` may be an id of at most `maxChars` characters. */
export function isPossibleId(value: string, maxChars: number): boolean {
  return value.length >= 1 && value.length <= maxChars && isStorableText(value);
}

/**
 * Checks every path parameter of the route `c` matched.
 * @throws HttpError 404 (the parameter's own code) for a value that cannot be an id.
 */
export function checkIdParams(c: Context): void {
  const params: Record<string, string> = c.req.param();
  for (const [name, value] of Object.entries(params)) {
    const param = ID_PARAMS[name] ?? OTHER;
    if (!isPossibleId(value, param.maxChars)) {
      throw new HttpError(404, param.code, param.message);
    }
  }
}
