/**
 * The numbers of a merchant's request, checked before anything changes: a restock of a negative,
 * fractional or zero number of units, a negative or zero price, or a discount outside whole 1 to
 * the shop's maximum percent is asked about, with the number as written. The script never
 * rounds, flips the sign of, or drops a number a merchant gave (a restock of "2.5" is not 2).
 */

import { MAX_DISCOUNT_PERCENT } from "../../domain/discounts.js";
import { pick } from "../replies.js";

/** What a number in a merchant's request is about, by the words around it. */
type Measure = "units" | "price" | "percent" | "change";

/** The reply asking about a number the change cannot take, or undefined when every number fits. */
export function merchantNumberQuestion(text: string, zh: boolean): string | undefined {
  const t = text.toLowerCase();
  // Product ids and sizes carry digits that are no amounts.
  const rest = t.replace(/\bp-\d+|\bo-[0-9a-f]+|\b(size|us) ?\d+(\.\d+)?|\d+-(person|pack)/g, " ");
  for (const m of rest.matchAll(
    /(?:^|[\s(（,，:=$]|to|by|\p{Script=Han})(-\s?\d+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(%|percent|percentage|折)?/gu,
  )) {
    const said = m[1]!.replace(/\s/g, "");
    const value = Number(said);
    const percent = m[2] !== undefined;
    // "raise the price by 150%" changes a price; only a discount is bound to 1..max percent.
    const discount = /\b(off|discount|sale)\b|折扣|打折|促销/.test(t);
    const measure =
      percent && !discount ? (value <= 0 ? "change" : undefined) : measureOf(t, percent);
    if (!measure || !Number.isFinite(value)) continue;
    const problem = problemOf(measure, value);
    if (problem) return question(said, measure, problem, zh);
  }
  return undefined;
}

function measureOf(text: string, percentSign: boolean): Measure | undefined {
  if (percentSign) return "percent";
  if (/\b(restock|replenish|units?|add stock|stock up|top up)\b|补货|补充库存|库存|件/.test(text))
    return "units";
  if (/\b(price|cost|charge|\$|dollars?|bucks)\b|价格|价钱|售价|改价|元|块/.test(text))
    return "price";
  return undefined;
}

function problemOf(measure: Measure, value: number): string | undefined {
  if (measure === "units") {
    if (value <= 0) return "units";
    if (!Number.isInteger(value)) return "units";
    return undefined;
  }
  if (measure === "price") return value <= 0 ? "price" : undefined;
  if (measure === "change") return "change";
  return value < 1 || value > MAX_DISCOUNT_PERCENT || !Number.isInteger(value)
    ? "percent"
    : undefined;
}

function question(said: string, measure: Measure, _problem: string, zh: boolean): string {
  switch (measure) {
    case "units":
      return pick(
        zh,
        `I can't restock ${said} units: a restock adds a whole number of units, 1 or more. How many should I add? Nothing has changed.`,
        `没法补货 ${said} 件：补货数量须是 1 或以上的整数。要补多少件？什么都没有改动。`,
      );
    case "price":
      return pick(
        zh,
        `I can't set a price of ${said}: a price must be above $0. What should the price be? Nothing has changed.`,
        `没法把价格设为 ${said}：价格必须大于 $0。价格应该是多少？什么都没有改动。`,
      );
    case "change":
      return pick(
        zh,
        `I can't change a price by ${said}%: say raise or lower, by a percentage above 0. Nothing has changed.`,
        `没法按 ${said}% 改价：请说涨价还是降价，百分比须大于 0。什么都没有改动。`,
      );
    default:
      return pick(
        zh,
        `I can't use ${said}%: a discount is a whole percentage from 1 to ${MAX_DISCOUNT_PERCENT}. What percentage should it be? Nothing has changed.`,
        `没法用 ${said}%：折扣须是 1 到 ${MAX_DISCOUNT_PERCENT} 的整数百分比。要多少？什么都没有改动。`,
      );
  }
}
