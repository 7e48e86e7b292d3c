/** How a line's variant (size and colour) reads, in the cart and in the orders. */

import type { CartLine } from "../api/types";
import { type Lang, pick } from "../i18n/lang";

/** "Size US 10 · Volt" (尺码 US 10 · Volt) for a line with a variant, else `undefined`. */
export function variantOf(
  line: Pick<CartLine, "size" | "color">,
  lang: Lang = "en",
): string | undefined {
  const parts = [
    ...(line.size ? [pick(lang, `Size ${line.size}`, `尺码 ${line.size}`)] : []),
    ...(line.color ? [line.color] : []),
  ];
  return parts.length > 0 ? parts.join(" · ") : undefined;
}
