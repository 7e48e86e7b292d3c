/**
 * Reads a request's JSON body against a zod schema: a body declared as another media type is 415,
 * malformed JSON and schema failures are 400 answers that say what is wrong (the size limit, 413,
 * is enforced before by `bodyLimit`). A body without a content type is read as JSON.
 *
 * A body that never arrives in full is the client's doing, not a server failure: the client went
 * away mid-upload (400 `client_aborted`, which nobody reads) or the request outlived the server's
 * `requestTimeout` (408 `request_timeout`, already answered on the socket by the HTTP server).
 * Both are logged at info, without a stack, and counted under their own code.
 */

import type { Context } from "hono";
import type { z } from "zod";
import { HttpError } from "./http-error.js";

/** The body, parsed and validated. @throws HttpError 400 otherwise. */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const type = c.req.header("content-type");
  if (type !== undefined && !isJsonMediaType(type)) {
    throw new HttpError(
      415,
      "unsupported_media_type",
      "Send the request body as JSON (Content-Type: application/json).",
    );
  }
  let text: string;
  try {
    text = await c.req.text();
  } catch (error) {
    const refusal = bodyNotReceived(c, error);
    if (!refusal) throw error;
    c.get("log")?.info({ code: refusal.code }, "request body did not arrive in full");
    throw refusal;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, "invalid_json", "The request body is not valid JSON.");
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) =>
      issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message,
    );
    throw new HttpError(400, "invalid_request", `Invalid request body: ${problems.join("; ")}.`);
  }
  return parsed.data;
}

/** Sockets whose request the HTTP server cut for taking too long (see `start-http-server.ts`). */
const timedOutSockets = new WeakSet<object>();

/** Records that the request on `socket` was cut by the server's request timeout. */
export function markRequestTimedOut(socket: object): void {
  timedOutSockets.add(socket);
}

interface NodeIncoming {
  destroyed?: boolean;
  readableEnded?: boolean;
  socket?: object | null;
}

/**
 * The answer for a body whose reading failed because the connection is gone (the client left,
 * or the server's request timeout cut it), or undefined for any other failure (e.g. the body
 * limit's own error, which `bodyLimit` answers 413). Used by {@link readJson} and, for a body
 * read before the route (`bodyLimit` reads a chunked one), by the app's error handler.
 */
export function bodyNotReceived(c: Context, error: unknown): HttpError | undefined {
  const incoming = (c.env as { incoming?: NodeIncoming } | undefined)?.incoming;
  if (incoming?.socket && timedOutSockets.has(incoming.socket)) {
    return new HttpError(408, "request_timeout", "The request took too long to arrive.");
  }
  const code = (error as { code?: unknown } | null)?.code;
  const gone =
    (incoming?.destroyed === true && incoming.readableEnded !== true) ||
    code === "ECONNRESET" ||
    code === "ERR_STREAM_PREMATURE_CLOSE" ||
    (error instanceof Error && error.name === "AbortError");
  if (!gone) return undefined;
  return new HttpError(
    400,
    "client_aborted",
    "The request body did not arrive in full: the connection closed first.",
  );
}

/** `application/json`, or any `+json` type, with or without parameters (`; charset=utf-8`). */
export function isJsonMediaType(header: string): boolean {
  const essence = header.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  return essence === "application/json" || /^application\/[\w.-]+\+json$/.test(essence);
}

/** With the `u` flag a surrogate pair is one code point: the class matches only lone halves. */
const LONE_SURROGATE_OR_NUL = /[\uD800-\uDFFF\0]/u;

/**
 * True for text that every peer can carry: well-formed Unicode (a lone surrogate has no UTF-8
 * encoding, so a model API refuses or mangles it) and no NUL (nobody types one, and PostgreSQL
 * text cannot hold one: a lookup by such an id fails in the driver).
 */
export function isStorableText(text: string): boolean {
  return !LONE_SURROGATE_OR_NUL.test(text);
}
