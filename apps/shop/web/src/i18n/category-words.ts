/** The catalog's categories as the page writes them: as they are in English, in Chinese words. */

import type { Lang } from "./lang";

const CHINESE: Readonly<Record<string, string>> = {
  Accessories: "配件",
  Backpacks: "背包",
  Camping: "露营",
  Electronics: "电子产品",
  Fitness: "健身",
  "Hiking Boots": "徒步鞋",
  Hydration: "补水装备",
  Jackets: "夹克",
  "Running Shoes": "跑鞋",
  "Shorts & Tights": "短裤和紧身裤",
  Socks: "袜子",
  Tops: "上衣",
};

/** `category` in `lang`: the catalog's name in English, its Chinese words in Chinese (when known). */
export function categoryName(category: string, lang: Lang): string {
  return lang === "zh" ? (CHINESE[category] ?? category) : category;
}
