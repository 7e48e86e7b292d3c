/**
 * Reads a request's JSON body against a zod schema: a body declared as another media type is 415,
 * malformed JSON and schema failures are 400 answers that say what is wrong (the size limit, 413,
 * is enforced before by `bodyLimit`). A body without a content type is read as JSON.
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
  const text = await c.req.text();
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
