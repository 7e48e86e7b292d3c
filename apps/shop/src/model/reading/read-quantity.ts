/**
 * The quantity slot: the number of units a request names, and whether the cart could take it as
 * said. A number the cart cannot hold (negative, fractional, zero, over the per-line limit) is
 * never rounded, clamped or dropped: the policy asks, or says the limit, with the number as said.
 */

import { DEFAULT_CART_RULES } from "../../domain/cart.js";

/** A quantity as the shopper wrote it, and what is wrong with it for a cart line (if anything). */
export interface QuantitySlot {
  /** The number as written ("-3", "2.5", "1000000"). */
  readonly said: string;
  readonly value: number;
  readonly problem?: "negative" | "fraction" | "zero" | "over";
}

/** How many units one cart line holds at most (the shop's default rule, as the tool says). */
export const LINE_LIMIT = DEFAULT_CART_RULES.maxQuantityPerLine;

/**
 * Numbers that are not quantities: sizes ("size 10", "US 9", "10码", "a 10"), prices ("under 150",
 * "$80", "100块"), product and order ids, percentages, and numbers inside names ("2-person").
 */
const NOT_QUANTITY = [
  /\bp-\d+|\bo-[0-9a-f]+/g,
  /\b(size|sz|us|eu|uk)\s*-?\d+(\.\d+)?/g,
  // "make that an 11", "I meant a 10": a size said with an article.
  /\b(an?|the) \d{1,2}(\.5)?\b(?! (pairs?|units?|items?|of)\b)/g,
  /-?\d+(\.\d+)?\s*(码|号|碼)/g,
  /\b(under|below|less than|cheaper than|over|above|more than|at least|up to|at most|no more than|max(imum)?|min(imum)?|budget( is| of)?|around|about|within)\s*\$?\s*-?\d+(\.\d+)?/g,
  /\$\s*-?\d+(\.\d+)?|-?\d+(\.\d+)?\s*(dollars?|bucks|usd|元|块|美元|刀|%|percent)/g,
  /(低于|不超过|不到|少于|高于|超过|多于|预算)\s*-?\d+(\.\d+)?/g,
  /-?\d+(\.\d+)?\s*(以下|以内|之内|以上)/g,
  /\d+-(person|pack|in-1|way)/g,
];

/** The quantity a request names, or undefined when it names none in digits. */
export function readQuantity(text: string): QuantitySlot | undefined {
  let rest = text.toLowerCase();
  for (const pattern of NOT_QUANTITY) rest = rest.replace(pattern, " ");
  const m = rest.match(
    /(?:^|[\s(（,，x×]|\p{Script=Han})(-\s?\d+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\d.]*[a-z%-]\w)/u,
  );
  if (!m) return undefined;
  const said = m[1]!.replace(/\s/g, "");
  const value = Number(said);
  if (!Number.isFinite(value)) return undefined;
  const problem =
    value < 0
      ? "negative"
      : !Number.isInteger(value)
        ? "fraction"
        : value === 0
          ? "zero"
          : value > LINE_LIMIT
            ? "over"
            : undefined;
  return problem ? { said, value, problem } : { said, value };
}

/** What to say instead of acting on a quantity the cart cannot take. */
export function quantityQuestion(q: QuantitySlot, zh: boolean): string {
  const limit = LINE_LIMIT;
  if (zh)
    return q.problem === "over"
      ? `每件商品在购物车里最多 ${limit} 件，所以没法加 ${q.said} 件。要几件（1 到 ${limit}）？我还没有改动购物车。`
      : `数量 ${q.said} 不行：数量须是 1 到 ${limit} 的整数。要几件？我还没有改动购物车。`;
  switch (q.problem) {
    case "over":
      return `A cart line holds at most ${limit}, so I can't make it ${q.said}. How many would you like, from 1 to ${limit}? I haven't changed your cart.`;
    case "fraction":
      return `${q.said} isn't a whole number of items. How many would you like, from 1 to ${limit}? I haven't changed your cart.`;
    default:
      return `I can't use a quantity of ${q.said}. How many would you like, from 1 to ${limit}? I haven't changed your cart.`;
  }
}
