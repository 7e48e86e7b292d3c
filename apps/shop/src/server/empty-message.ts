/**
 * Whether a message has nothing to say: only whitespace and invisible format characters (Unicode
 * category Cf: zero-width space, joiner and non-joiner, word joiner, BOM, soft hyphen, bidi marks
 * and isolates, tag characters...). Such a message would start a turn the model can only guess
 * at, so the API refuses it (400 `empty_message`). A format character between visible ones (an
 * emoji ZWJ sequence, a soft hyphen inside a word) is kept: the text around it counts.
 */

const NOTHING_VISIBLE = /^[\s\p{Cf}]*$/u;

/** True when `text` is empty once whitespace and format characters are left out. */
export function isEmptyMessage(text: string): boolean {
  return NOTHING_VISIBLE.test(text);
}
