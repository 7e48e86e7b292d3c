/**
 * The merchant's requests that change products by name or by category, read from English or
 * Chinese text: a discount on a category ("10% off all jackets", "把夹克打九折"), its end ("end the
 * jacket sale", "夹克恢复原价"), the discounts in force, and a product's new name or description
 * ("rename the Aero trail runner to Aero Trail Runner Pro", "把X改名为Y"). A new name or
 * description is taken from the raw text, so its case and punctuation stay as written.
 */

import { generateCatalog } from "../domain/catalog.js";
import { CHINESE_NUMBERS, stripFiller } from "./intent-words.js";
import { catalogIndex } from "./product-resolver.js";
import { chineseToEnglish } from "./zh-lexicon.js";

/** A change the merchant asked for by category or of one product's text. */
export type MerchantChange =
  | { kind: "discount"; category: string; percent: number }
  | { kind: "end-discount"; category: string }
  | { kind: "discounts" }
  | { kind: "rename"; query: string; name: string }
  | { kind: "describe"; query: string; description: string };

/** The catalog's categories in Chinese words, as merchants write them. */
const CATEGORY_ZH: readonly [RegExp, string][] = [
  [/跑鞋|跑步鞋/, "Running Shoes"],
  [/登山靴|徒步鞋|登山鞋|靴子/, "Hiking Boots"],
  [/袜子|袜/, "Socks"],
  [/上衣|T恤|t恤/, "Tops"],
  [/夹克|外套|冲锋衣/, "Jackets"],
  [/短裤|紧身裤/, "Shorts & Tights"],
  [/背包|双肩包/, "Backpacks"],
  [/配件|配饰/, "Accessories"],
  [/电子产品|电子/, "Electronics"],
  [/补水|饮水|水壶/, "Hydration"],
  [/露营/, "Camping"],
  [/健身/, "Fitness"],
];

let categories: string[] | undefined;
/** The catalog's category names. */
function catalogCategories(): string[] {
  categories ??= [...new Set(generateCatalog().map((p) => p.category))].sort();
  return categories;
}

/** A word without its plural ending ("jackets" → "jacket", "accessories" → "accessory"). */
function singular(word: string): string {
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith("s") && !word.endsWith("ss") && word.length > 3) return word.slice(0, -1);
  return word;
}

const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && w !== "and")
    .map(singular);

/**
 * The one category the text names: in Chinese words, or by a word of its English name ("all
 * jackets", "the boots", "fitness gear"). Several categories named: the one whose every word is
 * there, else none.
 */
export function categoryNamed(text: string): string | undefined {
  for (const [pattern, category] of CATEGORY_ZH) if (pattern.test(text)) return category;
  const words = new Set(wordsOf(text));
  const named = catalogCategories().filter((c) => wordsOf(c).some((w) => words.has(w)));
  if (named.length <= 1) return named[0];
  const whole = named.filter((c) => wordsOf(c).every((w) => words.has(w)));
  return whole.length === 1 ? whole[0] : undefined;
}

/** True when the words name one product rather than a category ("the merino wool socks"). */
function namesOneProduct(subject: string): boolean {
  const query = stripFiller(chineseToEnglish(subject).replace(/\p{Script=Han}+/gu, " "));
  return query !== "" && catalogIndex().resolve(query).kind === "found";
}

/** A Chinese discount in tenths ("九折" 90%, "八五折" 85%, "8.5折", "95折") as the percentage off. */
function foldPercent(text: string): number | undefined {
  const m = text.match(/([1-9一二三四五六七八九])(?:\.?([0-9一二三四五六七八九]))?折/);
  if (!m) return undefined;
  const digit = (d: string) => CHINESE_NUMBERS[d] ?? Number(d);
  const paid = digit(m[1]!) * 10 + (m[2] ? digit(m[2]) : 0);
  return paid > 0 && paid < 100 ? 100 - paid : undefined;
}

/** The percentage off a text asks for: "10% off", "15 percent discount", "half price", "打九折". */
export function percentOff(text: string): number | undefined {
  if (/\bhalf[- ]price\b|\bhalf off\b|半价|(?<![0-9一二三四五六七八九.])五折/.test(text)) return 50;
  const fold = foldPercent(text);
  if (fold !== undefined) return fold;
  const en = text.match(
    /(\d{1,2})\s?(?:%|percent|pct)(?: off| discount| sale|\b)|(?:discount|mark ?down|reduce|lower|cut|drop)\b.*?\bby (\d{1,2})\s?(?:%|percent)/,
  );
  if (en) return Number(en[1] ?? en[2]);
  const zh = text.match(
    /(?:降价|减价|便宜|优惠|打折|折扣|下调)\s?(\d{1,2})\s?%|(\d{1,2})\s?%\s?(?:的)?(?:折扣|优惠)/,
  );
  return zh ? Number(zh[1] ?? zh[2]) : undefined;
}

/** Words around a category in a discount request that are not the category. */
const DISCOUNT_WORDS =
  /\d+\s?(%|percent|pct)|\b(off|discount|discounts|sale|on sale|put|give|take|set|make|mark ?down|reduce|lower|cut|drop|by|at|all|every|everything|in|the|our|a|an|of|for|on|to|please|let'?s|half|price|prices|today|now|category)\b|打.{1,3}折|[1-9一二三四五六七八九]\.?[0-9一二三四五六七八九]?折|所有|全部|全场|都|把|的|打折|降价|优惠|商品|\d+/g;

/** Reads a discount, its end, or the question of the discounts in force; `undefined` otherwise. */
function readDiscount(text: string): MerchantChange | undefined {
  if (/bulk|批发|大量|if i buy|buying \d/.test(text)) return undefined;
  if (
    /\b(what|which|any|list|show)\b.*\b(discounts?|promotions?|on sale|sales? (?:running|on|going))\b|\b(discounts?|promotions?) (are )?(on|running|active|in force)\b|有哪些折扣|什么折扣|哪些.*打折|当前折扣|现在.*折扣/.test(
      text,
    ) &&
    !/\d/.test(text)
  ) {
    return { kind: "discounts" };
  }
  const ends =
    percentOff(text) === undefined &&
    /\b(end|stop|remove|cancel|drop|finish|take off|turn off)\b.*\b(discount|sale|promotion)\b|\b(discount|sale|promotion)\b.*\b(ends?|over|off)\b|back to (full|the list|normal|regular) price|full price again|取消.*(折扣|打折|优惠)|结束.*(折扣|打折|优惠)|恢复原价|不打折了|停止.*(折扣|打折)/.test(
      text,
    );
  if (ends) {
    const category = categoryNamed(text);
    return category ? { kind: "end-discount", category } : undefined;
  }
  const percent = percentOff(text);
  if (percent === undefined) return undefined;
  // Raising prices is not a discount.
  if (/\b(raise|increase|bump|hike|mark up)\b|涨价|提价|上调|加价/.test(text)) return undefined;
  const category = categoryNamed(text);
  if (!category) return undefined;
  const everything = /\b(all|every|everything|whole|entire)\b|所有|全部|全场|整个|都/.test(text);
  const subject = text.replace(DISCOUNT_WORDS, " ");
  if (!everything && namesOneProduct(subject)) return undefined;
  return { kind: "discount", category, percent };
}

/** A new name or description from the raw text: trimmed of quotes and the final full stop. */
function cleanValue(value: string): string {
  return value
    .trim()
    .replace(/^[:：\s]+/, "")
    .replace(/^["“'‘「『](.*)["”'’」』]$/s, "$1")
    .replace(/[.。!！]+$/, "")
    .trim();
}

const RENAME: readonly RegExp[] = [
  /\brename (?:the )?(.+?) (?:to|as|into) (.+)$/i,
  /\bchange (?:the )?name of (?:the )?(.+?) to (.+)$/i,
  /\b(?:change|set) (?:the )?(.+?)'?s name to (.+)$/i,
  /\bcall (?:the )?(.+?) ["“](.+)["”](?: instead| from now on)?[.!]?$/i,
  /(?:把|将)(.+?)(?:改名为|改名成|改名叫|重命名为|的名字改成|的名字改为|的名称改成|的名称改为|改叫)(.+)$/,
];

const DESCRIBE: readonly RegExp[] = [
  /\b(?:set|change|update|replace|rewrite) (?:the )?description of (?:the )?(.+?) (?:to|with)[:\s]\s*(.+)$/is,
  /\b(?:set|change|update) (?:the )?(.+?)'?s description to[:\s]\s*(.+)$/is,
  /\bdescribe (?:the )?(.+?) as[:\s]\s*(.+)$/is,
  /(?:把|将)(.+?)的(?:描述|介绍|说明|商品描述)(?:改成|改为|设为|写成|换成)(.+)$/s,
];

/** Reads a product's new name or description from the raw text; `undefined` otherwise. */
function readTextEdit(raw: string): MerchantChange | undefined {
  const text = raw.trim();
  for (const pattern of DESCRIBE) {
    const m = text.match(pattern);
    if (m?.[1] && m[2] && cleanValue(m[2]) !== "") {
      return { kind: "describe", query: cleanValue(m[1]), description: cleanValue(m[2]) };
    }
  }
  for (const pattern of RENAME) {
    const m = text.match(pattern);
    if (m?.[1] && m[2] && cleanValue(m[2]) !== "") {
      return { kind: "rename", query: cleanValue(m[1]), name: cleanValue(m[2]) };
    }
  }
  return undefined;
}

/**
 * Reads a change by category or of a product's text. `raw` is the message as written (for a new
 * name or description), `text` the folded form the other readers use.
 */
export function readMerchantChange(raw: string, text: string): MerchantChange | undefined {
  return readTextEdit(raw) ?? readDiscount(text);
}
