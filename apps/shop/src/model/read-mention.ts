/**
 * A product mention in a phrase: the words to search the catalog with, or a reference to the
 * conversation ("it", "both", "the cheaper one", "the first one", "这个"), with the quantity and
 * the size and colour it names. Which product a mention means is not decided here: the policy
 * resolves it against the catalog, the cart and what was shown.
 */

import { CHINESE_NUMBERS, countIn, explicitCount, stripFiller } from "./intent-words.js";
import { readVariant, withoutVariant } from "./read-variant.js";
import { chineseToEnglish } from "./zh-lexicon.js";

/** A product referred to by the conversation rather than by name. */
export type Ref =
  /** "it", "that one", "它", "这个": the product the conversation is about. */
  | { kind: "it" }
  /** "them", "both", "these two", "这两个": the products shown last (or the cart's). */
  | { kind: "them"; count?: number }
  /** "the cheaper one", "the first one", "评分最高的": one of the products shown last. */
  | { kind: "pick"; by: "cheapest" | "priciest" | "best-rated" | "index"; index?: number }
  /** "remove one": some product, not said which (asked unless only one can be meant). */
  | { kind: "one" };

/** One item named in a request. */
export interface NamedItem {
  /** Words to search the catalog with ("" when `ref` says which product). */
  query: string;
  quantity: number;
  size?: string;
  color?: string;
  ref?: Ref;
  /** The product, when the conversation already says which (an item of the products shown). */
  id?: string;
}

/** Items split on "and" / "和" / commas, each with its quantity, variant and reference. */
export function namedItems(text: string): NamedItem[] {
  const items: NamedItem[] = [];
  const pending: { size?: string; color?: string }[] = [];
  const parts = text
    .split(/,|，|\band\b|\bplus\b|\b&\b|和|还有|以及|、|跟/)
    .map((part) => part.trim())
    .filter((part) => part !== "");
  for (const part of parts) {
    const variant = readVariant(part);
    const bare = withoutVariant(part);
    const quantity = explicitCount(bare) ?? 1;
    // The amount asked for, unchanged: the cart's own rule (1..10) answers a bad one visibly.
    const item: NamedItem = { quantity, ...mentionIn(bare), ...variant };
    const previous = items.at(-1);
    if (item.query === "" && item.ref === undefined) {
      // "the swift racer in red, size 9": a part that is only a size or colour (or a count,
      // "三双…，M号") belongs to the item before it.
      if (previous) {
        if (variant.size !== undefined && previous.size === undefined) previous.size = variant.size;
        if (variant.color !== undefined && previous.color === undefined)
          previous.color = variant.color;
      } else if (variant.size !== undefined || variant.color !== undefined) {
        pending.push(variant);
      }
      continue;
    }
    // "size 10, volt, aero trail runner": sizes and colours said before the product.
    for (const early of pending.splice(0)) {
      if (early.size !== undefined && item.size === undefined) item.size = early.size;
      if (early.color !== undefined && item.color === undefined) item.color = early.color;
    }
    items.push(item);
  }
  return items;
}

/** The product words of a phrase, or the reference it makes. */
export function mentionIn(phrase: string): { query: string; ref?: Ref } {
  const text = withoutVariant(phrase).trim();
  const ref = readRef(text);
  const query = stripFiller(
    chineseToEnglish(
      text
        .replace(
          /\b(the )?(lowest[ -]priced?|most affordable|top[ -]rated|cheaper|cheapest|less expensive|least expensive|lower priced|pricier|priciest|more expensive|most expensive|dearer|better|best|higher|highest)( rated| reviewed)?( one| ones| option| pair)?\b/g,
          " ",
        )
        .replace(
          /\b(the )?(first|second|third|fourth|last|1st|2nd|3rd|4th|other)( one| ones| option| pair)?\b/g,
          " ",
        )
        .replace(
          /(最)?便宜(的|一点的|点的)?(那个|那款|那双|那件)?|价格最低的?|贵的那个|最贵的?|评分(最)?高的?|第[一二三四1-4](个|款|双|件)|最后一(个|款)/g,
          " ",
        ),
    ).replace(/\p{Script=Han}+/gu, " "),
  );
  if (ref?.kind === "pick") return { query, ref };
  return query === "" && ref ? { query, ref } : { query };
}

/** The reference a phrase makes ("the cheaper one", "the first one", "it", "both"), if any. */
export function readRef(text: string): Ref | undefined {
  // "remove one", "one of them": some product, not said which.
  if (/^\s*(one|one of (them|those|these)|an? item|something|一个|一件)\s*$/.test(text))
    return { kind: "one" };
  const t = ` ${text} `;
  if (
    /\b(cheaper|cheapest|less expensive|least expensive|lower priced|lowest[ -]priced?|most affordable)\b|便宜|价格最低|最实惠/.test(
      t,
    )
  )
    return { kind: "pick", by: "cheapest" };
  if (/\b(pricier|priciest|more expensive|most expensive|dearer)\b|贵的|最贵/.test(t))
    return { kind: "pick", by: "priciest" };
  if (
    /\b(better|best|higher|highest|top)[ -]?(rated|reviewed)\b|\bthe best one\b|评分(最)?高|好评(最多|最高)|最好评/.test(
      t,
    )
  )
    return { kind: "pick", by: "best-rated" };
  const nth = t.match(
    /\b(first|second|third|fourth|1st|2nd|3rd|4th|last)\b|第([一二三四1-4])|最后一/,
  );
  if (nth) {
    const words: Record<string, number> = {
      first: 0,
      "1st": 0,
      second: 1,
      "2nd": 1,
      third: 2,
      "3rd": 2,
      fourth: 3,
      "4th": 3,
      last: -1,
    };
    const index = nth[1]
      ? words[nth[1]]!
      : nth[2]
        ? (CHINESE_NUMBERS[nth[2]] ?? Number(nth[2])) - 1
        : -1;
    return { kind: "pick", by: "index", index };
  }
  if (
    /\b(both|them|these|those|all of them|all three|the two|these two|those two)\b|它们|这(两|几|些)|那(两|几|些)|两个都|都要/.test(
      t,
    )
  )
    return { kind: "them", ...(countIn(text) !== undefined ? { count: countIn(text)! } : {}) };
  if (
    /\b(it|that|this|that one|this one|the same|same one|one)\b|它|这个|那个|这款|那款|这双|那双|这件|那件/.test(
      t,
    )
  )
    return { kind: "it" };
  return undefined;
}

/**
 * "the last two you showed", "the first three", "前两件", "后面两件": a run of the products shown,
 * from the start or the end. Undefined when the phrase names no such run.
 */
export function readShownRun(text: string): { count: number; from: "start" | "end" } | undefined {
  const n = "(\\d|one|two|three|four|five|six|一|两|二|三|四|五|六)";
  const m =
    text.match(new RegExp(`\\b(first|top|last|bottom) ${n}\\b`)) ??
    text.match(new RegExp(`(前|后|后面|最后)${n}(?:件|个|款|双|样)?`));
  if (!m?.[1] || !m[2]) return undefined;
  const count = countIn(`${m[2]}件`) ?? countIn(m[2]);
  if (count === undefined || count < 1) return undefined;
  return { count, from: /first|top|前/.test(m[1]) ? "start" : "end" };
}
