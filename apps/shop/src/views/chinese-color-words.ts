/**
 * The catalog's colour names in Chinese words, as a shopper would say them (荧光绿 for Volt): one
 * table for the page (its Chinese chips, cards and cart) and the scripted model's Chinese replies.
 * Plain data, importing nothing, so the browser app can share it.
 */

/** Chinese words of the catalog's colour names. */
export const CHINESE_COLOR_WORDS: Readonly<Record<string, string>> = {
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
