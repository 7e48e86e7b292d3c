/**
 * A schema failure as data: zod's issues turned into {@link InputIssue}s (codes, paths and bounds,
 * no prose), so a front end can say what was wrong in its own words and language.
 */

import type { z } from "zod";
import type { InputIssue } from "../protocol/tool-problem.js";

/** At most this many issues travel in one problem (the text for the model lists the same ones). */
const MAX_ISSUES = 10;

/** The issues of a failed parse of `input`, at most ten. */
export function inputIssues(error: z.ZodError, input: unknown): InputIssue[] {
  return error.issues.slice(0, MAX_ISSUES).map((issue) => issueOf(issue, input));
}

function issueOf(issue: z.core.$ZodIssue, input: unknown): InputIssue {
  const path = issue.path.filter(
    (key): key is string | number => typeof key === "string" || typeof key === "number",
  );
  const out: { -readonly [K in keyof InputIssue]: InputIssue[K] } = { code: issue.code, path };
  switch (issue.code) {
    case "too_big":
      out.origin = issue.origin;
      out.maximum = Number(issue.maximum);
      out.inclusive = issue.inclusive !== false;
      break;
    case "too_small":
      out.origin = issue.origin;
      out.minimum = Number(issue.minimum);
      out.inclusive = issue.inclusive !== false;
      break;
    case "invalid_type":
      out.expected = issue.expected;
      if (valueAt(input, path) === undefined) out.missing = true;
      break;
    case "unrecognized_keys":
      out.keys = issue.keys;
      break;
    case "invalid_value":
      out.values = issue.values.map((v) => (typeof v === "bigint" ? String(v) : v));
      break;
    case "invalid_format":
      out.format = issue.format;
      break;
    case "not_multiple_of":
      out.divisor = Number(issue.divisor);
      break;
    default:
      break;
  }
  return out;
}

/** The value at `path` inside `input`, or `undefined` when any step is missing. */
function valueAt(input: unknown, path: readonly (string | number)[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}
