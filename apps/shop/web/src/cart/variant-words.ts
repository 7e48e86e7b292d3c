/** How a line's variant (size and colour) reads, in the cart and in the orders. */

import { colorName } from "../i18n/color-words";
import { type Lang, pick } from "../i18n/lang";

/** "Size US 10 · Volt" (尺码 US 10 · 荧光绿) for a line with a variant, else `undefined`. */
export function variantOf(
  line: { size?: string | null | undefined; color?: string | null | undefined },
  lang: Lang = "en",
): string | undefined {
  const parts = [
    ...(line.size ? [pick(lang, `Size ${line.size}`, `尺码 ${line.size}`)] : []),
    ...(line.color ? [colorName(line.color, lang)] : []),
  ];
  return parts.length > 0 ? parts.join(" · ") : undefined;
}
