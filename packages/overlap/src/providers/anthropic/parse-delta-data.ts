/**
 * The data of a Messages API `content_block_delta` frame read without `JSON.parse` when it has the
 * exact shape the API sends: on a fine-grained stream nearly every frame is one, carrying a few
 * characters of text or arguments, and parsing each as a whole JSON document (two objects, four
 * properties) was the largest single cost of reading such a stream.
 */

import type { StreamEvent } from "../../stream/stream-event.js";

const HEAD = '{"type":"content_block_delta","index":';
/** What follows the index for each delta kind read here, up to its string's opening quote. */
const KINDS = [
  ['"delta":{"type":"input_json_delta","partial_json":"', "input_json_delta"],
  ['"delta":{"type":"text_delta","text":"', "text_delta"],
  ['"delta":{"type":"thinking_delta","thinking":"', "thinking_delta"],
] as const;
const TAIL = '"}}';
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The event of `data` when it is, byte for byte, `{"type":"content_block_delta","index":N,
 * "delta":{"type":K,F:"..."}}` for a text, argument or thinking delta (no spaces, the API's key
 * order); undefined for anything else, which the caller parses in full. What it returns equals
 * `JSON.parse(data)`; it never returns an event for data `JSON.parse` refuses.
 */
export function parseDeltaData(data: string): StreamEvent | undefined {
  if (!data.startsWith(HEAD) || !data.endsWith(TAIL)) return undefined;
  // The index: a JSON integer without sign or leading zero, then a comma.
  let at = HEAD.length;
  const first = data.charCodeAt(at);
  if (first < 0x30 || first > 0x39) return undefined;
  let index = first - 0x30;
  at++;
  if (first !== 0x30) {
    for (let digits = 1; ; digits++) {
      const code = data.charCodeAt(at);
      if (code < 0x30 || code > 0x39) break;
      if (digits >= 9) return undefined; // beyond any block index; JSON.parse decides
      index = index * 10 + (code - 0x30);
      at++;
    }
  }
  if (data.charCodeAt(at) !== 0x2c) return undefined;
  at++;
  for (const [prefix, kind] of KINDS) {
    if (!data.startsWith(prefix, at)) continue;
    const text = stringBody(data, at + prefix.length - 1, data.length - TAIL.length + 1);
    if (text === undefined) return undefined;
    switch (kind) {
      case "input_json_delta":
        return { type: "content_block_delta", index, delta: { type: kind, partial_json: text } };
      case "text_delta":
        return { type: "content_block_delta", index, delta: { type: kind, text } };
      default:
        return { type: "content_block_delta", index, delta: { type: kind, thinking: text } };
    }
  }
  return undefined;
}

/**
 * The value of the JSON string literal `data[from, to)` (quotes included), or undefined when it
 * is not exactly one valid string literal. Without escapes the characters are the value; with
 * them, `JSON.parse` of the literal alone decodes them (and refuses an unescaped quote inside,
 * which would make the literal end early).
 */
function stringBody(data: string, from: number, to: number): string | undefined {
  if (to - from < 2 || data.charCodeAt(from) !== QUOTE || data.charCodeAt(to - 1) !== QUOTE) {
    return undefined;
  }
  for (let i = from + 1; i < to - 1; i++) {
    const code = data.charCodeAt(i);
    if (code === BACKSLASH || code === QUOTE || code < 0x20) {
      try {
        const value: unknown = JSON.parse(data.slice(from, to));
        return typeof value === "string" ? value : undefined;
      } catch {
        return undefined;
      }
    }
  }
  return data.slice(from + 1, to - 1);
}
