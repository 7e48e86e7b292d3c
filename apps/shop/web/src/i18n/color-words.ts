/**
 * The catalog's colour names as the page writes them: as they are in English, in Chinese words
 * (the words the shopper would use, 荧光绿 for Volt) so a Chinese page shows no English colour.
 * Product names, brands and sizes stay as the catalog has them.
 */

import { CHINESE_COLOR_WORDS } from "../../../src/views/chinese-color-words";
import type { Lang } from "./lang";

/** `color` in `lang`: the catalog's name in English, its Chinese word in Chinese (when known). */
export function colorName(color: string, lang: Lang): string {
  return lang === "zh" ? (CHINESE_COLOR_WORDS[color] ?? color) : color;
}
