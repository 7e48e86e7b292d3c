/**
 * Slot readers: each reads one kind of thing a request can say, whatever the sentence around it.
 * A new wording of a known request fills the same slots, so the policy needs no new rule for it.
 */

import { priceFilter } from "../price-filter.js";
import { catalogIndex } from "../product-resolver.js";
import { readVariant } from "../read-variant.js";

/** The size slot: "size 10", "10码", "a medium", and "in a 10" / "an 11" (a number after "a"). */
export function readSize(text: string): string | undefined {
  const said = readVariant(text).size;
  if (said !== undefined) return said;
  return text
    .toLowerCase()
    .match(
      /\b(?:in |wear |take )?an? (\d{1,2}(?:\.5)?)\b(?! ?(pairs?|units?|items?|of|more|pack|person|%))/,
    )?.[1];
}

/** The colour slot: "in charcoal", "炭灰色", or a lone catalog colour name ("slate"). */
export function readColor(text: string): string | undefined {
  const said = readVariant(text).color;
  if (said !== undefined) return said;
  const word = text.trim().toLowerCase();
  return catalogColors().find((c) => c.toLowerCase() === word);
}

let colors: string[] | undefined;
function catalogColors(): string[] {
  colors ??= [
    ...new Set(
      catalogIndex()
        .all()
        .flatMap((p) => p.colors),
    ),
  ];
  return colors;
}

/** A run of the products shown last, by position: "the first two", "第一双和第二双", "the 3rd". */
export interface ListPicks {
  /** Positions in the list shown, from 0, in the order said. */
  readonly indexes: number[];
  /** A colour said for one position ("第一双白色，第二双黑色", "the first in white"). */
  readonly colors: ReadonlyMap<number, string>;
}

const ORDINALS: Record<string, number> = {
  first: 0,
  "1st": 0,
  second: 1,
  "2nd": 1,
  third: 2,
  "3rd": 2,
  fourth: 3,
  "4th": 3,
  fifth: 4,
  "5th": 4,
  sixth: 5,
  "6th": 5,
  一: 0,
  二: 1,
  三: 2,
  四: 3,
  五: 4,
  六: 5,
};
const RUN_COUNTS: Record<string, number> = {
  two: 2,
  "2": 2,
  three: 3,
  "3": 3,
  four: 4,
  "4": 4,
  两: 2,
  二: 2,
  三: 3,
  四: 4,
  俩: 2,
};
const ZH_MEASURE = "(?:双|件|个|款|条|顶|副|只|瓶|套|把|台|块|份|包|对)";

/** Positions in the list shown that the request picks, or undefined when it picks none. */
export function readListPicks(text: string): ListPicks | undefined {
  const t = text.toLowerCase();
  const colors = new Map<number, string>();
  // "the first two", "top 3", "前两双", "前3个".
  const run =
    t.match(/\b(?:the )?(?:first|top) (two|three|four|2|3|4)\b/) ??
    t.match(new RegExp(`前(两|二|三|四|俩|2|3|4)${ZH_MEASURE}?`));
  if (run) {
    const n = RUN_COUNTS[run[1]!] ?? 2;
    return { indexes: Array.from({ length: n }, (_, i) => i), colors };
  }
  // "the first and the third", "第一双和第二双", "the second one".
  const indexes: number[] = [];
  const ordinal = new RegExp(
    `\\b(first|second|third|fourth|fifth|sixth|1st|2nd|3rd|4th|5th|6th)\\b(?: one)?|第(一|二|三|四|五|六)${ZH_MEASURE}?`,
    "g",
  );
  for (const m of t.matchAll(ordinal)) {
    const index = ORDINALS[m[1] ?? m[2]!]!;
    if (!indexes.includes(index)) indexes.push(index);
    // The colour said right after this position, before the next one.
    const after =
      t
        .slice((m.index ?? 0) + m[0].length)
        .split(/第(?:一|二|三|四|五|六)|\b(?:first|second|third|and the)\b/)[0] ?? "";
    const color = readVariant(after.slice(0, 24)).color;
    if (color !== undefined) colors.set(index, color);
  }
  return indexes.length > 0 ? { indexes, colors } : undefined;
}

/** "any colour", "whichever colour", "colour doesn't matter", "颜色随便": any colour will do. */
export function readAnyColor(text: string): boolean {
  return /\b(any|whatever|whichever) colou?rs?\b|colou?rs? (doesn'?t|does not|don'?t) matter|颜色随便|随便(什么|哪个)?颜色|颜色都(行|可以)|什么颜色都(行|可以)|颜色无所谓/i.test(
    text,
  );
}

/** "side by side", "next to each other", "并排", "放在一起比": a comparison of what is picked. */
export function readSideBySide(text: string): boolean {
  return /side by side|next to each other|head to head|against each other|并排|放在一起(比|对比)|对比一下|比一比/i.test(
    text,
  );
}

/** "cheapest", "best reviews": the one product of a kind a request asks for by price or rating. */
export type Superlative = "cheapest" | "best-rated";
export function readSuperlative(text: string): Superlative | undefined {
  const t = text.toLowerCase();
  if (
    /\b(cheapest|least expensive|lowest[- ]priced?|most affordable)\b|最便宜|最实惠|价格最低/.test(
      t,
    )
  )
    return "cheapest";
  if (
    /\b(best|highest|top)[- ](rated|reviewed|ratings?|reviews?)\b|\bbest reviews?\b|\bhighest rating\b|评分最高|评价最好|口碑最好|评分最好|好评最多/.test(
      t,
    )
  )
    return "best-rated";
  return undefined;
}

/** A whole-cart clearing ("nuke the whole cart", "scrap everything", "购物车全清掉"). */
export function readClearCart(text: string): boolean {
  const t = text.toLowerCase();
  if (/\b(don'?t|do not|never|no need to)\b|不要清|别清/.test(t)) return false;
  const verb =
    /\b(nuke|wipe|scrap|dump|trash|bin|ditch|kill|clear|empty|reset|zap|toss|remove|delete|drop|get rid of)\b|清空|清掉|清除|全删|删光|全部删|都删|全部清/.test(
      t,
    );
  const whole =
    /\b(the )?(whole |entire )?(cart|basket)\b|\beverything\b|\bthe lot\b|\ball of it\b|\bit all\b|购物车|全部|所有|全/.test(
      t,
    );
  return verb && whole && !/\bexcept\b|\bbut\b|只留|除了/.test(t);
}

/** "I meant a 10, not a 9", "not 9, 10", "不是9码，是10码": the size wanted instead of another. */
export function readSizeFix(text: string): string | undefined {
  const t = text.toLowerCase();
  const en =
    t.match(
      /\b(?:i )?meant (?:an? |size )?(\d{1,2}(?:\.5)?|xs|s|m|l|xl|xxl)\b.*\bnot (?:an? |size )?\d/,
    ) ??
    t.match(/\bnot (?:an? |size )?\d{1,2}(?:\.5)?\b,? (?:but )?(?:an? |size )?(\d{1,2}(?:\.5)?)\b/);
  if (en) return en[1];
  // "10 not 9", "wait, a 10 not a 9".
  const flipped = t.match(
    /\b(?:an? |size )?(\d{1,2}(?:\.5)?),? not (?:an? |size )?\d{1,2}(?:\.5)?\b/,
  );
  if (flipped) return flipped[1];
  const zh = t.match(/不是\s*\d{1,2}(?:\.5)?\s*码.*?是\s*(\d{1,2}(?:\.5)?)\s*码/);
  return zh?.[1];
}

/** A preference said without asking for anything: a size, a budget ("I'm a size 10", "预算100"). */
export interface Preference {
  readonly size?: string;
  readonly maxPriceCents?: number;
}
export function readPreference(text: string): Preference | undefined {
  const t = text.toLowerCase();
  if (
    !/^(i'?m|i am|i wear|i usually wear|i take|my (size|budget|shoe size)|i (can|want to|'d like to) spend|i have|i'?ve got|budget|我穿|我平时穿|我一般穿|我的?(尺码|鞋码|预算)|预算)/.test(
      t,
    )
  )
    return undefined;
  const budget = /budget|spend|\$|\b(bucks|dollars|usd)\b|预算|元|块|美元/.test(t)
    ? budgetIn(t)
    : undefined;
  const size = /\b(size|wear|take)\b|穿|码/.test(t) ? readVariant(t).size : undefined;
  if (budget === undefined && size === undefined) return undefined;
  return {
    ...(size !== undefined ? { size } : {}),
    ...(budget !== undefined ? { maxPriceCents: budget } : {}),
  };
}

function budgetIn(t: string): number | undefined {
  const bound = priceFilter(t).maxPriceCents;
  if (bound !== undefined) return bound;
  const n = t.match(/(\d+(?:\.\d+)?)/)?.[1];
  return n === undefined ? undefined : Math.round(Number(n) * 100);
}

/** Words that name a catalog category ("boots" → Hiking Boots, "夹克" → Jackets). */
const CATEGORY_WORDS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(hiking )?boots?\b|登山鞋|徒步鞋|靴/, "Hiking Boots"],
  [
    /\b(running |trail |road )?(shoes?|trainers?|sneakers?|runners?)\b|跑鞋|跑步鞋/,
    "Running Shoes",
  ],
  [/\bsocks?\b|袜/, "Socks"],
  [/\b(jackets?|coats?|vests?|shells?)\b|夹克|外套|冲锋衣|马甲/, "Jackets"],
  [/\b(tops|tees?|t-shirts?|shirts?|base ?layers?|tank tops?)\b|上衣|t恤|打底衫/, "Tops"],
  [/\b(shorts|tights|joggers|pants|leggings)\b|短裤|紧身裤|裤/, "Shorts & Tights"],
  [/\b(backpacks?|bags?|packs?|duffels?)\b|背包|包/, "Backpacks"],
  [/\b(tents?|chairs?|sleeping (pads?|bags?)|camping)\b|帐篷|椅|睡垫|睡袋|露营/, "Camping"],
  [/\b(earbuds|headphones|watch(es)?|headlamps?|monitors?)\b|耳机|手表|头灯/, "Electronics"],
  [/\b(bottles?|hydration|filters?)\b|水壶|水瓶/, "Hydration"],
  [
    /\b(dumbbells?|yoga mats?|jump ropes?|foam rollers?|resistance bands?)\b|哑铃|瑜伽垫|跳绳/,
    "Fitness",
  ],
  [/\b(gloves?|caps?|hats?|beanies?|sunglasses|headbands?)\b|手套|帽|墨镜|头带/, "Accessories"],
];
/** The one catalog category the words name, or undefined (none, or more than one). */
export function readCategory(text: string): string | undefined {
  const t = text.toLowerCase();
  const found = new Set(CATEGORY_WORDS.filter(([re]) => re.test(t)).map(([, c]) => c));
  // "approach shoes" and "hiking boots" are both boots; "trail shoes" are running shoes.
  if (found.has("Hiking Boots") && found.has("Running Shoes") && /boot|登山|徒步/.test(t))
    found.delete("Running Shoes");
  return found.size === 1 ? [...found][0] : undefined;
}

/** Attribute words a shown product must carry as a tag or in its name ("waterproof trail"). */
const ATTRIBUTES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bwaterproof\b|防水/, "waterproof"],
  [/\btrail\b|越野/, "trail"],
  [/\binsulated\b|保温/, "insulated"],
  [/\bmerino\b|美利奴|美丽奴/, "merino"],
  [/\bwireless\b|无线/, "wireless"],
  [/\bcarbon\b|碳板/, "carbon"],
];
export function readAttributes(text: string): string[] {
  const t = text.toLowerCase();
  return ATTRIBUTES.filter(([re]) => re.test(t)).map(([, tag]) => tag);
}
