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
  | { kind: "pick"; by: "cheapest" | "priciest" | "best-rated" | "index"; index?: number };

/** One item named in a request. */
export interface NamedItem {
  /** Words to search the catalog with ("" when `ref` says which product). */
  query: string;
  quantity: number;
  size?: string;
  color?: string;
  ref?: Ref;
}

/** Items split on "and" / "和" / commas, each with its quantity, variant and reference. */
export function namedItems(text: string): NamedItem[] {
  return text
    .split(/,|，|\band\b|\bplus\b|\b&\b|和|还有|以及|、|跟/)
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part) => {
      const variant = readVariant(part);
      const bare = withoutVariant(part);
      const quantity = explicitCount(bare) ?? 1;
      // The amount asked for, unchanged: the cart's own rule (1..10) answers a bad one visibly.
      return { quantity, ...mentionIn(bare), ...variant };
    })
    .filter((item) => item.query !== "" || item.ref !== undefined);
}

/** The product words of a phrase, or the reference it makes. */
export function mentionIn(phrase: string): { query: string; ref?: Ref } {
  const text = withoutVariant(phrase).trim();
  const ref = readRef(text);
  const query = stripFiller(
    chineseToEnglish(
      text
        .replace(
          /\b(the )?(cheaper|cheapest|less expensive|least expensive|lower priced|pricier|priciest|more expensive|most expensive|dearer|better|best|higher|highest)( rated| reviewed)?( one| ones| option| pair)?\b/g,
          " ",
        )
        .replace(
          /\b(the )?(first|second|third|fourth|last|1st|2nd|3rd|4th|other)( one| ones| option| pair)?\b/g,
          " ",
        )
        .replace(
          /便宜(的|一点的|点的)?(那个|那款|那双|那件)?|最便宜的?|贵的那个|最贵的?|评分(最)?高的?|第[一二三四1-4](个|款|双|件)|最后一(个|款)/g,
          " ",
        ),
    ).replace(/\p{Script=Han}+/gu, " "),
  );
  if (ref?.kind === "pick") return { query, ref };
  return query === "" && ref ? { query, ref } : { query };
}

/** The reference a phrase makes ("the cheaper one", "the first one", "it", "both"), if any. */
export function readRef(text: string): Ref | undefined {
  const t = ` ${text} `;
  if (/\b(cheaper|cheapest|less expensive|least expensive|lower priced)\b|便宜/.test(t))
    return { kind: "pick", by: "cheapest" };
  if (/\b(pricier|priciest|more expensive|most expensive|dearer)\b|贵的|最贵/.test(t))
    return { kind: "pick", by: "priciest" };
  if (/\b(better|best|higher|highest)[ -]?(rated|reviewed)\b|\bthe best one\b|评分(最)?高/.test(t))
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
