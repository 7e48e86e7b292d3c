/**
 * Reads a request's JSON body against a zod schema: malformed JSON and schema failures become
 * 400 answers that say what is wrong (the size limit, 413, is enforced before by `bodyLimit`).
 */

import type { Context } from "hono";
import type { z } from "zod";
import { HttpError } from "./http-error.js";

/** The body, parsed and validated. @throws HttpError 400 otherwise. */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
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
