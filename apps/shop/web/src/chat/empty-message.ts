/**
 * Whether a message has nothing visible in it: only whitespace and invisible format characters
 * (Unicode category Cf: zero-width space and joiners, BOM, soft hyphen, bidi marks...). The
 * server refuses such a message (400 `empty_message`, `apps/shop/src/server/empty-message.ts`,
 * the same test), so the message box does not offer to send it.
 */

const NOTHING_VISIBLE = /^[\s\p{Cf}]*$/u;

/** True when `text` is empty once whitespace and format characters are left out. */
export function isEmptyMessage(text: string): boolean {
  return NOTHING_VISIBLE.test(text);
}
