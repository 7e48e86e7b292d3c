/**
 * Strict execution parse. Only a complete buffer, parsed by `JSON.parse`, whose value is a
 * JSON object, becomes a {@link ToolInput}. Nothing tolerant ever produces one, so the type system
 * keeps previews away from anything with side effects.
 */

declare const toolInputBrand: unique symbol;

/**
 * Tool arguments that passed the strict parse. The brand cannot be forged by a plain object
 * literal or by a preview snapshot: the only way to obtain one is {@link parseToolInput}.
 */
export type ToolInput = Readonly<Record<string, unknown>> & { readonly [toolInputBrand]: true };

/** Result of {@link parseToolInput}: a value, never an exception (bad input is expected). */
export type ParseToolInputResult =
  | { readonly ok: true; readonly value: ToolInput }
  | { readonly ok: false; readonly error: string; readonly raw: string };

const MAX_RAW_IN_ERROR = 2_000;

/**
 * Parses the complete argument buffer of a tool call. An empty (or all-whitespace) buffer means
 * `{}`: providers send no delta at all for a tool without parameters. The error text is written
 * for the model, which reads it in the next round and can retry.
 */
export function parseToolInput(text: string): ParseToolInputResult {
  if (text.trim() === "") return { ok: true, value: {} as ToolInput };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      raw: text,
      error: `The tool arguments are not valid JSON (${reason}). Received: ${clip(text)}. Send the call again with one complete JSON object.`,
    };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    return {
      ok: false,
      raw: text,
      error: `The tool arguments must be a JSON object, but they were ${kind}: ${clip(text)}. Send the call again with a JSON object.`,
    };
  }
  return { ok: true, value: value as ToolInput };
}

function clip(text: string): string {
  return text.length <= MAX_RAW_IN_ERROR
    ? JSON.stringify(text)
    : `${JSON.stringify(text.slice(0, MAX_RAW_IN_ERROR))} (${text.length - MAX_RAW_IN_ERROR} more characters)`;
}
