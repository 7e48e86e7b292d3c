/**
 * What a merchant asked for, read from plain English or Chinese text by rules: stock reports and
 * restocks (one product, several, or up to a level), price changes (set, raise or lower by an
 * amount or a percentage, Chinese 打九折), discounts by category and their end, a product's new
 * name or description (`read-merchant-change.ts`), sales, orders, restock dates and bulk discounts.
 */

import { CHINESE_NUMBERS, countIn, isNegated, prepare, stripFiller } from "./intent-words.js";
import { type MerchantChange, percentOff, readMerchantChange } from "./read-merchant-change.js";
import { chineseToEnglish } from "./zh-lexicon.js";

/** A request of the merchant side. */
export type MerchantIntent =
  | {
      kind: "low-stock";
      restock: boolean;
      /** Products at or below this stock ("under 5 units" → 4); 5 when absent. */
      threshold?: number;
      /** Units to add to each; 20 when absent. */
      quantity?: number;
      /** Restock up to this many units each ("restock them to 30"). */
      target?: number;
    }
  | { kind: "restock"; query: string; quantity: number; target?: number; all?: boolean }
  | { kind: "set-price"; query: string; priceCents: number }
  /** "raise the price of X by 10%", "lower X by $5", "X打九折". */
  | { kind: "adjust-price"; query: string; percent?: number; deltaCents?: number }
  | { kind: "orders" }
  | { kind: "sales" }
  | { kind: "inventory"; query?: string }
  | { kind: "restock-eta"; query: string }
  | { kind: "bulk-discount"; query: string; units: number }
  | MerchantChange
  | { kind: "greeting" }
  | { kind: "thanks" }
  | { kind: "unknown" };

/** Reads a merchant's request. */
export function readMerchantIntent(raw: string): MerchantIntent {
  const text = prepare(raw);
  // A new name or description is read from the words as written; a discount names a category.
  const change = readMerchantChange(raw, text);
  if (change) return change;
  // "when will X be restocked?" / "什么时候补货" asks for a date: it restocks nothing.
  const asksWhen = /back in stock|restock date|when (will|is|does|do)|什么时候|哪天|到货|何时/.test(
    text,
  );
  const restock =
    /restock|replenish|refill|top up|\bfill\b.*\bup to\b|补货|补充库存|补库存|补到|补足|补齐/.test(
      text,
    ) &&
    !isNegated(text) &&
    !asksWhen;
  const amount = text.match(
    /(?:with|by|add(?:ing)?|of) (\d{1,5})\b|(\d{1,5}) (?:units? )?(?:each|apiece|more)|各(?:补)?(\d{1,5})|(?:补货?|补充)(\d{1,5})(?:件|个)?/,
  );
  const quantity = amount ? Number(amount[1] ?? amount[2] ?? amount[3] ?? amount[4]) : undefined;
  const targetMatch = text.match(
    /\b(?:up )?to (\d{1,5})(?: units?)?(?: each)?$|补(?:到|足|齐到)(\d{1,5})/,
  );
  const target = targetMatch ? Number(targetMatch[1] ?? targetMatch[2]) : undefined;
  const limit = text.match(
    /(?:under|below|less than|fewer than|<) ?(\d{1,4})|(?:at most|or fewer|or less|<=) ?(\d{1,4})|(\d{1,4}) (?:units? )?or (?:fewer|less)|(?:低于|少于|不到|不足)(\d{1,4})|(\d{1,4})(?:件|个)?(?:以下|以内)/,
  );
  const threshold = limit
    ? limit[1] !== undefined
      ? Number(limit[1]) - 1
      : limit[4] !== undefined
        ? Number(limit[4]) - 1
        : Number(limit[2] ?? limit[3] ?? limit[5])
    : undefined;
  const lowStock =
    /low (on )?stock|running low|out of stock|sold out|almost gone|库存不足|缺货|库存低|库存少|快卖完|卖完/.test(
      text,
    );
  const everything =
    /\b(everything|all|every (product|item)|anything|all products|all items)\b|所有|全部|都/.test(
      text,
    );
  if (lowStock || (restock && everything && limit)) {
    return {
      kind: "low-stock",
      restock,
      ...(threshold !== undefined && threshold >= 0 ? { threshold } : {}),
      ...(restock && quantity !== undefined ? { quantity } : {}),
      ...(restock && target !== undefined ? { target } : {}),
    };
  }
  if (asksWhen) {
    return {
      kind: "restock-eta",
      query: stripFiller(
        chineseToEnglish(
          text.replace(
            // Whole words only: "be" is inside "dumbbells", "restock" inside "restocked".
            /\b(ask|tell|the|merchant|seller|shop|store|when|will|be|back|in stock|restock date|restock(ed|ing)?|available|again|is|are|it|they|get|getting|more)\b|什么时候|哪天|到货|补货|能|会|有货|问问?(一下)?商家/g,
            " ",
          ),
        ).replace(/\p{Script=Han}+/gu, " "),
      ),
    };
  }
  if (/bulk|price break|discount (for|if|on|when)|deal (for|on|if)|批发|大量|团购/.test(text)) {
    return {
      kind: "bulk-discount",
      units: Number(text.match(/(\d+)/)?.[1] ?? 10),
      query: stripFiller(
        chineseToEnglish(
          text.replace(
            /\b(bulk|discount|price break|deal|units?|pairs?|for|if i buy|buying|is there|any|a|my|team|class|gym|club)\b|批发|折扣|大量|购买|买|\d+/g,
            " ",
          ),
        ).replace(/\p{Script=Han}+/gu, " "),
      ),
    };
  }
  const adjustEn = text.match(
    /\b(raise|increase|bump|hike|up|lower|reduce|cut|drop|decrease|mark up|mark down|discount)\b(?: the)?(?: prices?)?(?: of| on| for)? (.+?) (?:price )?by \$?(\d+(?:\.\d+)?) ?(%|percent|dollars?|bucks)?/,
  );
  const adjustZh = text.match(
    /^(?:把)?(.+?)(?:的价格|的价钱|价格)?(涨价|提价|上调|加价|降价|下调|减价|便宜)(\d+(?:\.\d+)?) ?(%|元|块|美元)?/,
  );
  if (adjustEn || adjustZh) {
    const [verb, who, amount, unit] = adjustEn
      ? [adjustEn[1]!, adjustEn[2]!, adjustEn[3]!, adjustEn[4] ?? ""]
      : [adjustZh![2]!, adjustZh![1]!, adjustZh![3]!, adjustZh![4] ?? ""];
    const value = Number(amount);
    const down = /lower|reduce|cut|drop|decrease|down|discount|降|下调|减|便宜/.test(verb);
    const query = productWords(who.replace(/\b(price|prices|of|the)\b/g, " "));
    if (/%|percent/.test(unit))
      return { kind: "adjust-price", query, percent: down ? -value : value };
    return { kind: "adjust-price", query, deltaCents: Math.round((down ? -value : value) * 100) };
  }
  const fold = text.match(
    /^(?:把)?(.+?)打([1-9一二三四五六七八九])(?:\.?([0-9一二三四五六七八九]))?折/,
  );
  if (fold) {
    const digit = (d: string) => CHINESE_NUMBERS[d] ?? Number(d);
    return {
      kind: "adjust-price",
      query: productWords(fold[1]!.replace(/的价格|价格/g, " ")),
      percent: -(100 - digit(fold[2]!) * 10 - (fold[3] ? digit(fold[3]) : 0)),
    };
  }
  // "10% off the merino wool socks": one product's price, lowered for good.
  const off = /\boff\b|discount/.test(text) ? percentOff(text) : undefined;
  if (off !== undefined) {
    const query = productWords(
      text.replace(
        /\d+\s?(%|percent|pct)|\b(off|discount|take|give|put|the|on|of|price|prices)\b/g,
        " ",
      ),
    );
    if (query !== "") return { kind: "adjust-price", query, percent: -off };
  }
  const price =
    text.match(
      /(?:price|价格|价钱|售价).*?(?:\bto\b|为|改成|改为|设为|调成|=)\s*\$?(\d+(?:\.\d{1,2})?)/,
    ) ?? text.match(/(?:make|set) (.+?) (?:cost )?\$(\d+(?:\.\d{1,2})?)/);
  if (price) {
    const value = price[2] ?? price[1]!;
    const who = price[2]
      ? price[1]!
      : text
          .replace(/\b(set|change|update|make)?\s*(the )?price( of)?\b/, "")
          .replace(/(\bto\b|为|改成|改为|设为|调成|=).*/, "")
          .replace(/的?(价格|价钱|售价)/g, " ")
          .replace(/把/g, " ");
    return {
      kind: "set-price",
      query: productWords(who),
      priceCents: Math.round(Number(value) * 100),
    };
  }
  if (restock) {
    const body = text
      .replace(/.*?(restock|replenish|refill|top up|补充库存|补库存|补货)/, "")
      .replace(
        /(with|by|add(ing)?|of) \d+.*$|\d+ (units? )?(each|apiece|more).*$|\b(up )?to \d+.*$/,
        "",
      )
      .replace(/\d+/g, "");
    const before = text.replace(/(补充库存|补库存|补货).*$/, "").replace(/^把/, "");
    const query = productWords(productWords(body) === "" && /补/.test(text) ? before : body);
    return {
      kind: "restock",
      quantity: quantity ?? (target === undefined ? (countIn(text) ?? 20) : 20),
      query: query
        .replace(/\b(all|every|everything)\b/g, " ")
        .replace(/\s+/g, " ")
        .trim(),
      ...(target !== undefined ? { target } : {}),
      ...(everything ? { all: true } : {}),
    };
  }
  if (/\borders?\b|订单/.test(text)) return { kind: "orders" };
  if (/sales|revenue|summary|best ?sellers?|top sellers?|销售|营业额|卖得最好|销量/.test(text))
    return { kind: "sales" };
  if (/inventory|stock|how many .*(left|have)|库存|还剩|剩多少/.test(text)) {
    const query = productWords(
      text
        .replace(
          /\b(show|list|see|view|check|what'?s|what|is|the|inventory|stock|levels?|how|many|much|are|left|do|we|have|of|for|on|in|me|don'?t|not|restock|everything|anything|all|products?|items?|please|pls|our|current|currently)\b/g,
          " ",
        )
        .replace(/查看|看看|看一下|显示|库存|还剩|剩多少|多少|有|的|所有|全部/g, " "),
    );
    return query === "" ? { kind: "inventory" } : { kind: "inventory", query };
  }
  if (/^(hi+|hello|hey|yo|good (morning|afternoon|evening))\b|^(你好|您好|嗨)/.test(text))
    return { kind: "greeting" };
  if (/\b(thanks?|thank you|thx|cheers|great|perfect|bye)\b|谢谢|多谢|感谢|好的|再见/.test(text))
    return { kind: "thanks" };
  return { kind: "unknown" };
}

/** The product words of a merchant's phrase, Chinese product words in English. */
function productWords(text: string): string {
  return stripFiller(chineseToEnglish(text).replace(/\p{Script=Han}+/gu, " "));
}
