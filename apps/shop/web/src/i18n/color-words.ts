/**
 * The catalog's colour names as the page writes them: as they are in English, in Chinese words
 * (the words the shopper would use, 荧光绿 for Volt) so a Chinese page shows no English colour.
 * Product names, brands and sizes stay as the catalog has them.
 */

import type { Lang } from "./lang";

const CHINESE: Readonly<Record<string, string>> = {
  Black: "黑色",
  Blue: "蓝色",
  Brown: "棕色",
  Charcoal: "炭灰色",
  Clear: "透明",
  Coral: "珊瑚色",
  Forest: "森林绿",
  Green: "绿色",
  Grey: "灰色",
  Navy: "海军蓝",
  Oatmeal: "燕麦色",
  Olive: "橄榄绿",
  Orange: "橙色",
  Purple: "紫色",
  Red: "红色",
  Rust: "铁锈红",
  Sage: "鼠尾草绿",
  Sand: "沙色",
  Silver: "银色",
  Slate: "石板灰",
  Teal: "青色",
  Volt: "荧光绿",
  White: "白色",
  Yellow: "黄色",
};

/** `color` in `lang`: the catalog's name in English, its Chinese word in Chinese (when known). */
export function colorName(color: string, lang: Lang): string {
  return lang === "zh" ? (CHINESE[color] ?? color) : color;
}
