/** Phrase steps that look at products: compare, details, stock, search. */

import { countIn, explicitCount, isQuestion, stripFiller } from "../intent-words.js";
import { catalogIndex } from "../product-resolver.js";
import { mentionIn, namedItems } from "../read-mention.js";
import { readAttribute, readWhichShown } from "../read-question.js";
import { withoutVariant } from "../read-variant.js";
import type { ShopperIntent } from "../shopper-intents.js";
import { chineseToEnglish } from "../zh-lexicon.js";
import { searchWords } from "./phrase-words.js";
import { ABOUT, type Said, STOCK } from "./said.js";

/** "which one is top rated": an answer about the products shown. */
export function whichShown(said: Said): ShopperIntent | undefined {
  const { text } = said;
  const which = readWhichShown(text);
  if (which) return which;
  return undefined;
}

/** Comparing products named or shown. */
export function compare(said: Said): ShopperIntent | undefined {
  const { text } = said;
  if (
    /\bcompare\b|\bvs\.?\b|\bversus\b|difference between|which (one )?(is|would be) better|which (one )?should i (get|buy|choose|pick)|比较|对比|比一比|区别|哪个(更)?好/.test(
      text,
    )
  ) {
    const items = namedItems(
      text
        .replace(
          /.*?(compare|difference between|which (one )?(is|would be) better|which (one )?should i (get|buy|choose|pick)|比较一下|比较|对比一下|对比|比一比)/,
          "",
        )
        .replace(/哪个(更)?好.*$/, "")
        .replace(/^[\s,:]*(or|the)?\b/, " ")
        .replace(/\bor\b/g, " and ")
        .replace(/(的)?区别.*$/, "")
        .replace(/\b(with|to|against|vs\.?|versus)\b|与|跟/g, " and "),
    ).filter((item) => item.query !== "" || item.ref?.kind === "pick");
    if (items.length >= 2) return { kind: "compare", count: items.length, items };
    return { kind: "compare", count: countIn(text) ?? 2 };
  }

  return undefined;
}

/** Stock or a variant of one product ("do you have it in size 10?"). */
export function availability(said: Said): ShopperIntent | undefined {
  const { text, variant } = said;
  if (STOCK.test(text) || (variant.size !== undefined && isQuestion(text))) {
    const target = mentionIn(
      text
        .replace(
          /do you (have|carry|sell|stock)|have you got|\bgot\b|any left|in stock|available( in)?|sold out|\bleft\b/g,
          " ",
        )
        .replace(/\b(does|do|will)\b|\b(comes?|came) in\b/g, " ")
        .replace(/还有货|有货|有没有|还有|吗|库存|有/g, " "),
    );
    // "有10码吗" / "do you have size 10?" ask about the product the conversation is about.
    if (target.query === "" && target.ref === undefined && (variant.size ?? variant.color))
      target.ref = { kind: "it" };
    // "do you have trail shoes under 100?" is a search; "do you have it in size 10?" is not.
    const named = target.query !== "" || target.ref !== undefined;
    const resolved = target.query === "" ? undefined : catalogIndex().resolve(target.query);
    // "do you have any waterproof trail shoes?" browses even when one product fits the words.
    const one =
      resolved?.kind === "found" &&
      resolved.unmatched.length === 0 &&
      !/\b(any|some)\b|什么|哪些/.test(text);
    const specific =
      target.ref !== undefined || variant.size !== undefined || variant.color !== undefined || one;
    // "do you have waterproof trail shoes?" browses; "do you have the aero in 10?" asks about one.
    if (named && specific && !/under|below|less than|over|以下|以内|便宜/.test(text)) {
      return { kind: "availability", ...target, ...variant };
    }
  }
  return undefined;
}

/** A product's facts ("is it waterproof?"), after availability. */
export function attribute(said: Said): ShopperIntent | undefined {
  const { text } = said;
  // After availability: "is the storm waterproof trail runner in stock" asks about stock.
  const attribute = readAttribute(text);
  if (attribute) return attribute;
  return undefined;
}

/** "tell me more about …". */
export function details(said: Said): ShopperIntent | undefined {
  const { text } = said;
  if (ABOUT.test(text)) {
    const target = mentionIn(
      text
        .replace(
          /tell me (more )?about|more (info|information|details) (on|about|for)|(details|specs?|specifications|info|information) (of|on|about|for)|what('?s| is) (the )?|\bis (it|that)\b|\blike\b|describe|what (sizes|size|colou?rs|colou?r)|which (sizes|colou?rs)|how much (is|are|does|do|for)|\bcost\b|price of|\bdoes\b|come in|\b(any good|good|waterproof|comfortable|warm)\W*$/g,
          " ",
        )
        .replace(
          /介绍(一下)?|详细(介绍)?|详情|怎么样|参数|多少钱|什么(颜色|尺码)|有哪些(颜色|尺码)|几码/g,
          " ",
        ),
    );
    if (
      target.query === "" &&
      target.ref === undefined &&
      /\b(it|its|that|this|they)\b|它|这款|那款|这双|那双/.test(text)
    )
      target.ref = { kind: "it" };
    if (target.query !== "" || target.ref !== undefined) return { kind: "details", ...target };
  }

  return undefined;
}

/** A search by words, price, or "cheaper ones". */
export function search(said: Said): ShopperIntent | undefined {
  const { text, price } = said;
  const cheaper =
    /\b(cheaper|less expensive|lower price|more affordable)\b|便宜(一?点|些)|更便宜|实惠一点/.test(
      text,
    );
  if (
    cheaper ||
    price.maxPriceCents !== undefined ||
    price.minPriceCents !== undefined ||
    /\b(show|find|search|look(ing)? for|recommend|suggest|need|want|browse|got any|any good|do you have|see|help me find)\b|有没有|推荐|找|看看|显示|想要|想买|有什么/.test(
      text,
    )
  ) {
    const query = searchWords(text);
    if (/^(gifts?|presents?|something|anything|stuff)( (for|nice|good))?( \w+)?$/.test(query))
      return { kind: "vague" };
    if (cheaper && query === "") return { kind: "search", query: "", cheaper: true, ...price };
    if (query !== "" || price.maxPriceCents !== undefined || price.minPriceCents !== undefined)
      return { kind: "search", ...price, query, ...(cheaper ? { cheaper: true } : {}) };
  }

  return undefined;
}

/** Only a reference to what was shown: "the cheapest one please" takes it. */
export function onlyPick(said: Said): ShopperIntent | undefined {
  const { text, wantsTotal } = said;
  // Only a reference to what was shown: "the cheapest one please" takes it; "the first one?" asks.
  const only = mentionIn(
    text.replace(/\b(please|pls|i'?ll take|i want|i'?d like|give me)\b/g, " "),
  );
  if (only.query === "" && only.ref?.kind === "pick") {
    if (/\b(please|pls|i'?ll take|i want|i'?d like|give me)\b|要/.test(text))
      return { kind: "add", items: [{ quantity: 1, ...only }], total: wantsTotal };
    if (only.ref.by !== "index") return { kind: "which-shown", by: only.ref.by };
    return { kind: "details", ...only };
  }
  return undefined;
}

/** "what do you sell?". */
export function catalogOverview(said: Said): ShopperIntent | undefined {
  const { text } = said;
  // "what do you sell?": the kinds of products the shop has.
  if (
    /^(what do you (have|sell|carry|stock)|what have you got|what can i buy( here)?|你们(有|卖)(什么|啥|哪些)|都有(什么|啥|哪些)|有(什么|啥)(东西|商品|卖的))\??$/.test(
      text.replace(/[?？!！。]+$/, ""),
    )
  )
    return { kind: "catalog-overview" };
  return undefined;
}

/** A bare product mention ("aero trail runner?") asks about it, or wants it. */
export function bareProduct(said: Said): ShopperIntent | undefined {
  const { text, variant, wantsTotal } = said;
  // A bare product mention ("aero trail runner?", "美利奴羊毛袜") asks about it.
  const bare = stripFiller(chineseToEnglish(text).replace(/\p{Script=Han}+/gu, " "));
  const best = bare === "" ? undefined : catalogIndex().score(bare)[0];
  if (best && best.score >= 0.62 && bare.split(" ").length <= 6) {
    // "two vertex headlamps in silver please", "size 10, volt, aero trail runner please": a
    // product with a count, a size or colour, or a please, said as a request, is wanted.
    const items = namedItems(text);
    const wanted =
      !isQuestion(text) &&
      (variant.size !== undefined ||
        variant.color !== undefined ||
        (explicitCount(withoutVariant(text)) ?? 1) > 1 ||
        /\b(please|i'?ll|want)\b/.test(text));
    if (wanted && items.length > 0) return { kind: "add", items, total: wantsTotal };
    return { kind: "details", query: bare };
  }
  return undefined;
}
