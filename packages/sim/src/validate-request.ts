/**
 * Request validation shared by both APIs: the JSON body. The structural rules of each API are in
 * `validate-anthropic-request.ts` and `validate-openai-request.ts`.
 */

/** The outcome of {@link parseJsonBody}. */
export type JsonBodyResult =
  | { ok: true; value: unknown }
  | { ok: false; line: number; column: number; char: number; reason: string };

/**
 * Parses a request body, locating a syntax error as line, column (1-based) and character offset,
 * which both APIs' messages refer to.
 */
export function parseJsonBody(text: string): JsonBodyResult {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(message);
    const char = position?.[1] === undefined ? text.length : Number(position[1]);
    const before = text.slice(0, char);
    const line = before.split("\n").length;
    const column = char - (before.lastIndexOf("\n") + 1) + 1;
    // Only the shape of the reason follows the API (a Python-style parser); the wording is ours.
    const reason = text.trim() === "" || char >= text.length ? "Expecting value" : "Invalid syntax";
    return { ok: false, line, column, char, reason };
  }
}

/** True for a plain JSON object. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
