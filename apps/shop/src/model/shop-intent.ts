/**
 * What a shopper or merchant asked for, read from plain English or Chinese text by rules. This is
 * the scripted model's "understanding": deterministic, tolerant of the way people type (lower
 * case, no punctuation, typos in the command words, mixed English and Chinese), and honest about
 * what it does not understand (`unknown`). Which product a mention means is not decided here: an
 * item carries the words (`query`) or a reference to the conversation (`ref`: "it", "both", "the
 * cheaper one"), and the policy resolves them against the catalog, the cart and what was shown.
 */

import { catalogIndex } from "./product-resolver.js";
import { editDistance, foldText } from "./text-match.js";
import { CHINESE_COLORS, chineseToEnglish } from "./zh-lexicon.js";

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

/** A request of the shopper side. */
export type ShopperIntent =
  | { kind: "add"; items: NamedItem[]; total: boolean }
  /** "add these two" / "把两件商品加入购物车": the products shown last. */
  | { kind: "add-shown"; count: number; total: boolean }
  | {
      kind: "search";
      query: string;
      maxPriceCents?: number;
      minPriceCents?: number;
      /** "cheaper ones", "便宜一点的": below what was shown last. */
      cheaper?: boolean;
    }
  /** Compare products named (`items`) or shown last (`count`). */
  | { kind: "compare"; count: number; items?: NamedItem[] }
  | { kind: "remove"; query: string; ref?: Ref; quantity?: number }
  /** "make it 3", "change the socks to 2", "改成3双". */
  | { kind: "set-quantity"; query: string; ref?: Ref; quantity: number }
  /** "one more", "another pair of socks", "one less", "再来一双". */
  | { kind: "change-quantity"; query: string; ref?: Ref; delta: number }
  /** "make it size 10", "in blue instead", "换成10码". */
  | { kind: "set-variant"; query: string; ref?: Ref; size?: string; color?: string }
  | { kind: "clear-cart" }
  /** "tell me more about …", "what sizes does it come in", "介绍一下 …". */
  | { kind: "details"; query: string; ref?: Ref }
  /** "do you have it in size 10?", "is the … in stock", "有10码吗". */
  | { kind: "availability"; query: string; ref?: Ref; size?: string; color?: string }
  /** "what did I order?", "where is my order", "我的订单". */
  | { kind: "orders"; orderId?: string }
  | { kind: "view-cart" }
  | { kind: "total" }
  | { kind: "checkout" }
  /** A mention of checking out that is negated or a question: never an order. */
  | { kind: "checkout-question" }
  /** A change the shopper asked not to make ("don't empty my cart"). */
  | { kind: "declined" }
  | { kind: "ask-merchant"; question: string }
  | { kind: "greeting" }
  | { kind: "thanks" }
  | { kind: "unknown" };

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
  | { kind: "greeting" }
  | { kind: "thanks" }
  | { kind: "unknown" };

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  a: 1,
  an: 1,
  one: 1,
  single: 1,
  two: 2,
  couple: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};

const CHINESE_NUMBERS: Readonly<Record<string, number>> = {
  一: 1,
  两: 2,
  俩: 2,
  二: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
  十: 10,
};

/** Chinese measure words after a number ("两双", "3件"). */
const MEASURE = "双|件|个|款|样|条|顶|副|只|瓶|套|把|台|块|份|包|对";

/** Words the rules look for, to fix one-letter typos in them ("chekout", "remvoe", "crat"). */
const COMMAND_WORDS = [
  "what",
  "checkout",
  "check",
  "remove",
  "delete",
  "compare",
  "cart",
  "basket",
  "total",
  "show",
  "price",
  "prices",
  "cheaper",
  "cheapest",
  "orders",
  "order",
  "inventory",
  "restock",
  "empty",
  "clear",
  "thanks",
  "thank",
  "quantity",
  "details",
  "about",
  "available",
  "between",
  "under",
  "below",
  "raise",
  "lower",
  "increase",
  "reduce",
  "recommend",
  "search",
  "instead",
  "another",
  "please",
  "everything",
];

/** Common words a typo fix must never turn into a command word. */
const PLAIN_WORDS = new Set(
  (
    "such what that this them then than with have make made more less some also just like want " +
    "need size each much many over chart card part shoe shoes sock socks stock show snow start " +
    "store stove total about above cheap check chest clean cleat empty order older other under " +
    "wonder brown crew mid tent vest tee cap hat the and are our out your you yours can could " +
    "would should these those there their thing things tell well sell still still able table " +
    "rain trail train trainer runner racer pace race price prize pride whats thats cars care " +
    "shop shops slow snow blow bellow older tonal tower lower power mower cheek chick card cards"
  ).split(" "),
);

/** Replaces known Chinese product words with the catalog's English ones. */
export function translateProductWords(text: string): string {
  return chineseToEnglish(text);
}

/** True when the text is mostly Chinese: the answer is then written in Chinese too. */
export function isChinese(text: string): boolean {
  const han = text.match(/[\u4e00-\u9fff]/g)?.length ?? 0;
  return han > 0 && han >= text.replace(/\s/g, "").length / 4;
}

/** Folds the text and fixes one-letter typos in command words. */
function prepare(raw: string): string {
  const folded = foldText(raw.trim()).replace(/\s+/g, " ");
  return folded.replace(/[a-z]{4,}/g, (word) => {
    if (PLAIN_WORDS.has(word) || COMMAND_WORDS.includes(word) || catalogIndex().knows(word))
      return word;
    for (const command of COMMAND_WORDS) {
      if (command.length >= 4 && editDistance(word, command, 1) <= 1) return command;
    }
    return word;
  });
}

/** "don't check out", "not yet", "不要结账": the action must not happen. */
function isNegated(text: string): boolean {
  return /\b(don'?t|do not|dont|never|not yet|no need|stop|without)\b|不要|别|不用|先不|暂时不/.test(
    text,
  );
}

/** A question about the action rather than a request to do it. */
function isQuestion(text: string): boolean {
  if (/^(can|could|would|will) you\b(?!.*\b(how|whether|if)\b)/.test(text.trim())) return false;
  return /\?|？|^(how|what|why|when|should|can|could|is|does|do)\b|吗|怎么|如何|是否/.test(
    text.trim(),
  );
}

// --- shopper --------------------------------------------------------------------------------

/** Reads a shopper's request. */
export function readShopperIntent(raw: string): ShopperIntent {
  const text = prepare(raw);
  if (text === "") return { kind: "unknown" };
  const wantsTotal =
    /\btotal\b|how much (is that|in total|altogether|all together|do i owe)|总价|总共|合计|一共/.test(
      text,
    );

  const checkoutWords =
    /check ?out(?! (the|this|that|these|those|a|an) )|place (the|my|an?) order|buy (it|them|everything|all)( of (it|them))? now|pay (for (it|them|everything) )?now|结账|下单|付款|买单/;
  if (checkoutWords.test(text)) {
    // Placing an order is irreversible: a negated or questioning mention only gets an answer.
    return isNegated(text) || isQuestion(text)
      ? { kind: "checkout-question" }
      : { kind: "checkout" };
  }

  const orderId = text.match(/\b(o-[0-9a-f]{6,})\b/)?.[1];
  if (
    orderId ||
    /what (did|have) i (order|bought|buy|purchase)|my (last |previous |past |recent )?(orders?|purchases?)\b|order (history|status)|past orders|previous orders|where('?s| is) my (order|stuff|package)|did my order|have i ordered|我的订单|订单状态|历史订单|我(都)?买(了|过)(什么|啥)|我(都)?(订|下单)了(什么|啥)|订单(到哪|怎么样|发货)/.test(
      text,
    )
  ) {
    return orderId ? { kind: "orders", orderId } : { kind: "orders" };
  }

  if (
    /ask (the )?(merchant|seller|shop|store)|restock date|back in stock|bulk (discount|order|price)|discount (for|on) \d+|问(一下)?(商家|卖家|店家)|什么时候(补货|到货|有货)|批发|大量购买/.test(
      text,
    )
  ) {
    return { kind: "ask-merchant", question: raw.trim() };
  }

  if (
    /(empty|clear|reset|wipe|clean)( out)? (my |the |our )?(cart|basket)|(remove|delete|take out|drop) (everything|all( the)? (items|things|products)|all of (it|them)|it all)( from| in| out of)?|start (over|again) with (an? )?(new |empty )?cart|清空(购物车)?|全部(删除|删掉|移除)|都不要了|全都不要/.test(
      text,
    )
  ) {
    return isNegated(text) && !/都不要了|全都不要/.test(text)
      ? { kind: "declined" }
      : { kind: "clear-cart" };
  }

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

  const removal =
    /\b(remove|delete|take out|take off|drop|get rid of|ditch)\b|take .+ (out|off)|(don'?t|do not|no longer) (want|need) (the |those |these |that |this |my )?(.+?) (anymore|any more)|删除|删掉|删了|移除|去掉|拿掉|不要了|不想要了/;
  if (removal.test(text)) {
    const dontWant = text.match(
      /(?:don'?t|do not|no longer) (?:want|need) (.+?) (?:anymore|any more)/,
    );
    const zhVerb = /删除|删掉|删了|移除|去掉|拿掉|不要了|不想要了/;
    const rest = dontWant
      ? dontWant[1]!
      : zhVerb.test(text)
        ? // Chinese puts the object first ("把袜子删掉") or after the verb ("删除袜子").
          text
            .replace(/(从)?购物车(里|中)?(的)?/g, " ")
            .replace(/帮我|请|把|给我|吧|。|！/g, " ")
            .replace(zhVerb, " ")
        : text
            .replace(/.*?\b(remove|delete|take out|take off|drop|get rid of|ditch|take)\b/, "")
            .replace(/\b(out|off)\b/g, " ")
            .replace(/\b(from|of|in|out of) (my |the )?(cart|basket|order)\b.*$/, "");
    const [item] = namedItems(rest);
    const quantity = explicitCount(rest);
    return {
      kind: "remove",
      query: item?.query ?? "",
      ...(item?.ref ? { ref: item.ref } : {}),
      ...(quantity !== undefined ? { quantity } : {}),
    };
  }

  const change = readCartChange(text);
  if (change) return change;

  const adding =
    /\b(add|put|throw|toss|grab|include|gimme)\b|give me\b(?! (the |a |my )?(total|details|info|information|summary|price|cart|list|options))|i'?ll (take|have|get)|i (will|would like to|want to|wanna) (buy|get|order|take)|\b(buy|purchase)\b|get me\b|加入|加到|放进|放入|加购|加上|我要买|我想买|我要|来(一|两|\d)|买(一|两|俩|\d)|^买/;
  const price = priceFilter(text);
  const priced = price.maxPriceCents !== undefined || price.minPriceCents !== undefined;
  const wanting = text.match(
    /^(?:(?:ok|okay|yes|yeah|great|then),? )*(?:i(?:'?d| would) like|i want|i need|i'?ll go with|let me get|can i (?:get|have)|could i (?:get|have)|我要|我想要)(.+)$/,
  );
  if (wanting && !priced && !adding.test(text)) {
    // "i want the aero trail runner in size 10" picks a product; "i want running shoes" browses.
    const items = namedItems(wanting[1]!);
    const specific = items.every(
      (item) => item.ref !== undefined || catalogIndex().resolve(item.query).kind === "found",
    );
    if (items.length > 0 && specific) return { kind: "add", items, total: wantsTotal };
  }
  if (adding.test(text) && !priced && !/^(should|how|why|what|where|when|is|does)\b/.test(text)) {
    const body = addBody(text);
    const shown =
      /^(them|these|those|both|all|all of them|all three|everything shown|the (two|three|four) (of them|shown|above)|these (two|three|four)|those (two|three|four)|the (two|three|four)|两(件|个|款|双)?商品|这(两|几|些|三)(件|个|款|双)?(商品)?|那(两|几|些|三)(件|个|款|双)?(商品)?|(两|几|三)件商品|它们|都)$/;
    if (shown.test(body.replace(/\s+/g, " ").trim())) {
      return { kind: "add-shown", count: countIn(body) ?? countIn(text) ?? 2, total: wantsTotal };
    }
    const items = namedItems(body);
    const [only] = items;
    if (items.length === 1 && only?.ref?.kind === "them")
      return { kind: "add-shown", count: only.ref.count ?? countIn(text) ?? 2, total: wantsTotal };
    if (items.length > 0) return { kind: "add", items, total: wantsTotal };
    // "add to cart", "加入购物车": the product the conversation is about.
    return {
      kind: "add",
      items: [{ query: "", quantity: 1, ref: { kind: "it" } }],
      total: wantsTotal,
    };
  }

  if (
    /(what'?s|what is|whats|what do i have|what have i got) in (my |the )?(cart|basket)|(show|view|see|open|check) (me )?(my |the )?(cart|basket)|^(my )?(cart|basket)\??$|购物车里|看看购物车|查看购物车|看一下购物车|购物车有什么/.test(
      text,
    )
  )
    return { kind: "view-cart" };
  if (
    wantsTotal ||
    /how much (is|do) (it|i owe|everything)|what do i owe|what'?s the damage/.test(text)
  )
    return { kind: "total" };

  const variant = readVariant(text);
  const about =
    /tell me (more )?about|more (info|information|details) (on|about|for)|(details|specs?|specifications|info|information) (of|on|about|for)|what('?s| is) (the )?(.+ )?like|describe|what (sizes|size|colou?rs|colou?r)|which (sizes|colou?rs)|how much (is|are|does|do|for)|what('?s| is| are) the price|price of|is (it|that|the .+) (any good|good|waterproof|comfortable|warm)|介绍|详细|详情|怎么样|参数|多少钱|什么(颜色|尺码)|有哪些(颜色|尺码)|几码/;
  const stock =
    /do you (have|carry|sell|stock)|have you got|got (any|it|this|that|them)\b|(is|are) (it|that|this|they|the .+?) (in stock|available|sold out)|in stock|available in|any left|\bleft\?|还有(货|吗)|有货|有没有(.*)(码|号|色|货)|有(.*)(码|号)(的)?吗|有.+色(的)?吗|库存/;
  if (stock.test(text) || (variant.size !== undefined && isQuestion(text))) {
    const target = mentionIn(
      text
        .replace(
          /do you (have|carry|sell|stock)|have you got|\bgot\b|any left|in stock|available( in)?|sold out|\bleft\b/g,
          " ",
        )
        .replace(/还有货|有货|有没有|还有|吗|库存|有/g, " "),
    );
    // "有10码吗" / "do you have size 10?" ask about the product the conversation is about.
    if (target.query === "" && target.ref === undefined && (variant.size ?? variant.color))
      target.ref = { kind: "it" };
    // "do you have trail shoes under 100?" is a search; "do you have it in size 10?" is not.
    const named = target.query !== "" || target.ref !== undefined;
    const specific =
      target.ref !== undefined || variant.size !== undefined || variant.color !== undefined;
    if (named && (specific || !/under|below|less than|over|以下|以内|便宜/.test(text))) {
      return { kind: "availability", ...target, ...variant };
    }
  }
  if (about.test(text)) {
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

  const cheaper =
    /\b(cheaper|less expensive|lower price|more affordable)\b|便宜(一?点|些)|更便宜|实惠一点/.test(
      text,
    );
  if (
    cheaper ||
    price.maxPriceCents !== undefined ||
    price.minPriceCents !== undefined ||
    /\b(show|find|search|look(ing)? for|recommend|suggest|need|want|browse|got any|any good|do you have)\b|有没有|推荐|找|看看|显示|想要|想买|有什么/.test(
      text,
    )
  ) {
    const query = searchWords(text);
    if (cheaper && query === "") return { kind: "search", query: "", cheaper: true, ...price };
    if (query !== "" || price.maxPriceCents !== undefined || price.minPriceCents !== undefined)
      return { kind: "search", ...price, query, ...(cheaper ? { cheaper: true } : {}) };
  }

  if (
    (/^(hi+|hello|hey|yo|hiya|howdy|good (morning|afternoon|evening))\b/.test(text) ||
      /^(你好|您好|嗨|哈喽|在吗)/.test(text)) &&
    text.split(" ").length <= 4
  )
    return { kind: "greeting" };
  if (
    /\b(thanks?|thank you|thx|ty|cheers|great|perfect|awesome|cool|ok(ay)?|got it|bye|goodbye)\b|谢谢|多谢|感谢|好的|再见|拜拜/.test(
      text,
    ) &&
    text.split(" ").length <= 6
  )
    return { kind: "thanks" };

  // A bare product mention ("aero trail runner?", "美利奴羊毛袜") asks about it.
  const bare = stripFiller(chineseToEnglish(text).replace(/\p{Script=Han}+/gu, " "));
  const best = bare === "" ? undefined : catalogIndex().score(bare)[0];
  if (best && best.score >= 0.62 && bare.split(" ").length <= 6)
    return { kind: "details", query: bare };
  return { kind: "unknown" };
}

/** Quantity and variant changes of what is in the cart. */
function readCartChange(text: string): ShopperIntent | undefined {
  // "one more", "another pair of socks", "add 2 more", "再来一双", "少一双".
  const lead =
    "^(?:(?:please|pls|and|ok|oh|actually|can i (?:get|have)|could i (?:get|have)|i'?d like|i want|give me|add|i'?ll take) )*";
  const more = text.match(new RegExp(`${lead}(?:(one|1|\\d+|two|three) more|(another))\\b(.*)$`));
  if (more) {
    const n = more[1] ? (countIn(more[1]) ?? 1) : 1;
    const target = mentionIn((more[3] ?? "").replace(/\b(of|pairs?|units?|please|pls)\b/g, " "));
    return { kind: "change-quantity", delta: n, ...target };
  }
  const zhMore = text.match(new RegExp(`再(?:来|加|要|买)(一|两|俩|三|\\d+)(?:${MEASURE})?(.*)$`));
  if (zhMore) {
    return {
      kind: "change-quantity",
      delta: CHINESE_NUMBERS[zhMore[1]!] ?? Number(zhMore[1]),
      ...mentionIn(zhMore[2] ?? ""),
    };
  }
  const less = text.match(
    /^(one|1|two|2) (less|fewer)\b(.*)$|(少|减)(一|两|1|2)(?:双|件|个)?(.*)$/,
  );
  if (less) {
    const n = less[1] ? (countIn(less[1]) ?? 1) : (CHINESE_NUMBERS[less[5]!] ?? Number(less[5]));
    return { kind: "change-quantity", delta: -n, ...mentionIn(less[3] ?? less[6] ?? "") };
  }

  const variant = readVariant(text);
  // "make it 3 pairs", "change the socks to 2", "set quantity to 4", "just 2 instead", "x3".
  const n = "(?<n>\\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten)";
  const units = "(?: (?:pairs?|units?|items?|pieces?|of (?:them|those|these|it)))?";
  const tail = "(?: (?:instead|please|pls|then|now|thanks))*[.!]?$";
  const setPatterns = [
    `\\b(?:make|change|set|update|switch|bump|increase|decrease|reduce|put)\\b(?<who>.*?) ?(?:\\bto\\b|=|\\binto\\b)? ${n}${units}${tail}`,
    `^(?:(?:actually|no|hmm|ok|oh),? )*(?:i (?:want|need|'?ll take)|just|only|make that|give me)(?: just| only)? ${n}${units}(?<who>.*?) instead[.!]?$`,
    `^(?:(?:actually|no|ok),? )*(?:just|only|make that) ${n}${units}(?: please| pls)?[.!]?$`,
    `^(?:qty|quantity|x) ?:? ?${n}$`,
  ];
  for (const pattern of setPatterns) {
    const m = text.match(new RegExp(pattern));
    if (!m?.groups || /\bsize\b|码|号/.test(m[0])) continue;
    const quantity = countIn(m.groups.n!) ?? Number(m.groups.n);
    const who = (m.groups.who ?? "").replace(
      /\b(the )?(quantity|qty|number|amount|count)( of)?\b|\bof (them|those|these|it)\b/g,
      " ",
    );
    if (Number.isFinite(quantity)) return { kind: "set-quantity", quantity, ...mentionIn(who) };
  }
  const zhSet =
    text.match(
      new RegExp(
        `^(.*?)(?:的)?(?:数量)?(?:改成|改为|换成|变成|调成|调整为|要)(一|两|俩|三|四|五|六|七|八|九|十|\\d+)(?:${MEASURE})(?:就(?:好|行|够了?))?(.*)$`,
      ),
    ) ??
    text.match(
      new RegExp(`^(.*?)(一|两|三|四|五|六|七|八|九|十|\\d+)(?:${MEASURE})就(?:好|行|够)()`),
    );
  if (zhSet && /改|换|变|调|就/.test(zhSet[0])) {
    const quantity = CHINESE_NUMBERS[zhSet[2]!] ?? Number(zhSet[2]);
    return {
      kind: "set-quantity",
      quantity,
      ...mentionIn(`${zhSet[1] ?? ""} ${zhSet[3] ?? ""}`.replace(/把|数量/g, " ")),
    };
  }

  // "make it size 10", "change it to blue", "in blue instead", "换成10码", "换成蓝色".
  if (
    (variant.size !== undefined || variant.color !== undefined) &&
    /\b(make|change|switch|swap|exchange|instead)\b|换成|改成|换一?个/.test(text) &&
    !isQuestion(text)
  ) {
    const who = mentionIn(
      text
        .replace(/\b(make|change|switch|swap|exchange|instead|to|for)\b/g, " ")
        .replace(/换成|改成|换一?个/g, " "),
    );
    return { kind: "set-variant", ...who, ...variant };
  }
  return undefined;
}

/** What follows "add"/"把…加入购物车", without the cart words and any "then tell me the total". */
function addBody(text: string): string {
  return text
    .replace(/^.*?\b(add|put|throw|toss|grab|include|buy|purchase|get me|gimme|give me)\b/, "")
    .replace(/^.*?i'?ll (take|have|get)\b/, "")
    .replace(/^.*?i (will|would like to|want to|wanna) (buy|get|order|take)\b/, "")
    .replace(/(加入|加到|放进|放入|加购|加上)(我的)?购物车.*$/, "")
    .replace(/(加入|加到|放进|放入|加购|加上).*$/, "")
    .replace(/\b(to|in|into|on) (my |the |our )?(cart|basket|order)\b.*$/, "")
    .replace(/\b(and|then|,)? *(tell|show|give) me the total.*$/, "")
    .replace(/\b(and|then)? *(what'?s|how much is) the total.*$/, "")
    .replace(/^.*?(帮我把|帮我|请把|给我来|把|我要买|我想买|我要|买|来)/, "")
    .replace(/(再|然后|并且|并)?(算|看|告诉我)(一下)?(总价|总共|一共).*$/, "")
    .trim();
}

/** Items split on "and" / "和" / commas, each with its quantity, variant and reference. */
function namedItems(text: string): NamedItem[] {
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
function mentionIn(phrase: string): { query: string; ref?: Ref } {
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

/** Ways to name a size; group 1 is the size. */
const SIZE_PATTERNS: readonly RegExp[] = [
  /\b(?:in )?(?:an? )?(?:size|sz)\b ?:? ?(us ?\d{1,2}(?:\.5)?|\d{1,2}(?:\.5)?|xxl|xl|xs|s\/m|l\/xl|extra large|extra small|small|medium|large|s|m|l)\b/,
  /\b(?:in )?(us ?\d{1,2}(?:\.5)?)\b/,
  /\bin (?:an? )?(xxl|xl|xs|extra large|extra small|small|medium|large)\b/,
  /(\d{1,2}(?:\.5)?|xxl|xl|xs|s|m|l) ?(?:码|号)(?:的)?/,
  /(加大|大|中|小)号(?:的)?/,
];

/** Catalog colours; the ones that are also common words only after "in". */
const COLOR_PATTERN =
  /\b(?:in )?(black|white|blue|red|grey|gray|green|orange|yellow|purple|brown|navy|olive|silver|teal|charcoal|coral|oatmeal|volt)\b|\bin (slate|forest|sand|rust|sage|clear)\b/;

const CHINESE_SIZES: Readonly<Record<string, string>> = { 加大: "XL", 大: "L", 中: "M", 小: "S" };

/** A size or colour named in a phrase ("in size 10", "us 9", "medium", "10码", "蓝色的"). */
function readVariant(text: string): { size?: string; color?: string } {
  const out: { size?: string; color?: string } = {};
  for (const pattern of SIZE_PATTERNS) {
    const m = text.match(pattern);
    if (!m?.[1]) continue;
    const raw = CHINESE_SIZES[m[1]] ?? m[1];
    out.size = /^us ?\d/.test(raw)
      ? `US ${raw.replace(/^us ?/, "")}`
      : /^(xxl|xl|xs|s\/m|l\/xl|s|m|l)$/.test(raw)
        ? raw.toUpperCase()
        : raw;
    break;
  }
  const color = text.match(COLOR_PATTERN);
  if (color) out.color = capitalise(color[1] ?? color[2]!);
  else {
    const zh = CHINESE_COLORS.find(([word]) => text.includes(word));
    if (zh) out.color = zh[1];
  }
  return out;
}

/** Every catalog colour, for an answer that is only a colour ("slate"). */
const COLOR_WORDS = new Set(
  "black white blue red grey gray green orange yellow purple brown navy olive silver teal charcoal coral oatmeal volt slate forest sand rust sage clear".split(
    " ",
  ),
);

/**
 * An answer to "which size?" / "which colour?": one variant per product asked about ("10",
 * "the 10", "a 9", "size 10 in Volt", "L号", "medium and slate", "10 in Volt and M in Charcoal"),
 * split like the items of an add. Undefined when the text is more than sizes and colours.
 */
export function readVariantAnswer(raw: string): { size?: string; color?: string }[] | undefined {
  const text = prepare(raw);
  if (text === "" || text.split(/\s+/).length > 14) return undefined;
  const parts = text
    .split(/,|，|、|\band\b|\bplus\b|&|和|还有/)
    .map((part) => part.trim())
    .filter((part) => part !== "");
  const answers: { size?: string; color?: string }[] = [];
  for (const part of parts) {
    const variant = readVariant(part);
    const rest = withoutVariant(part)
      .replace(/[.!?。！？]/g, " ")
      .replace(
        /\b(the|a|an|in|size|sz|please|pls|one|ones|pair|colou?r|with|us|i'?ll take|i want|i'?d like|make it|ok|okay|yes)\b|要|吧|的|码|号|色|请|就/g,
        " ",
      )
      .replace(/\s+/g, " ")
      .trim();
    if (rest !== "") {
      const bareSize =
        /^(\d{1,2}(?:\.5)?|xxl|xl|xs|s|m|l|small|medium|large|extra large|extra small)$/;
      if (variant.size === undefined && bareSize.test(rest)) {
        variant.size = /^(xxl|xl|xs|s|m|l)$/.test(rest) ? rest.toUpperCase() : rest;
      } else if (variant.color === undefined && COLOR_WORDS.has(rest)) {
        variant.color = capitalise(rest);
      } else return undefined;
    }
    if (variant.size === undefined && variant.color === undefined) return undefined;
    answers.push(variant);
  }
  return answers.length > 0 ? answers : undefined;
}

/** The phrase without its size and colour words. */
function withoutVariant(text: string): string {
  let out = text;
  for (const pattern of SIZE_PATTERNS) out = out.replace(new RegExp(pattern.source, "g"), " ");
  return out
    .replace(new RegExp(COLOR_PATTERN.source, "g"), " ")
    .replace(new RegExp(`(${CHINESE_COLORS.map(([w]) => w).join("|")})(色)?(的)?`, "g"), " ");
}

const capitalise = (word: string) =>
  word === "gray" ? "Grey" : word.charAt(0).toUpperCase() + word.slice(1);

/** A count written in the phrase ("2", "two", "两双"); not sizes or prices. */
function explicitCount(text: string): number | undefined {
  const digits = text.match(/(?:^|\s|x)(\d{1,6})(?=\s|$|x|\p{Script=Han})/u);
  if (digits?.[1]) return Number(digits[1]);
  return countIn(text.replace(/\b(a|an)\b/g, " "));
}

function countIn(text: string): number | undefined {
  const digits = text.match(/\b(\d{1,6})\b/);
  if (digits?.[1]) return Number(digits[1]);
  const zh = text.match(new RegExp(`(一|两|俩|二|三|四|五|六|七|八|九|十)(${MEASURE}|件商品)`));
  if (zh?.[1]) return CHINESE_NUMBERS[zh[1]];
  for (const [word, n] of Object.entries(NUMBER_WORDS)) {
    if (new RegExp(`\\b${word}\\b(?! of (them|those|these))`).test(text)) return n;
  }
  return undefined;
}

/** Price limits in cents: "under 100", "between 50 and 80", "50-80", "100元以下", "50到80之间". */
export function priceFilter(text: string): { maxPriceCents?: number; minPriceCents?: number } {
  const num = "\\$?(\\d+(?:\\.\\d+)?)\\s*(?:dollars|bucks|usd|元|块|美元|刀)?";
  const cents = (s: string) => Math.round(Number(s) * 100);
  const between =
    text.match(new RegExp(`between ${num} and ${num}`)) ??
    text.match(
      new RegExp(
        `(?:from )?${num} ?(?:-|–|to|~|到|至) ?${num}(?!\\s*(?:码|号|双|件|个|units|pairs))`,
      ),
    );
  if (between?.[1] && between[2] && !/size|码/.test(between[0])) {
    const [a, b] = [cents(between[1]), cents(between[2])].sort((x, y) => x - y);
    if (a !== b && Number(between[2]) >= 5) return { minPriceCents: a!, maxPriceCents: b! };
  }
  const out: { maxPriceCents?: number; minPriceCents?: number } = {};
  const under =
    text.match(
      new RegExp(
        `(?:under|below|less than|cheaper than|max(?:imum)?|up to|at most|no more than|<=?|低于|不超过|不到|少于)\\s*${num}`,
      ),
    ) ?? text.match(/(\d+(?:\.\d+)?)\s*(?:元|块|美元|刀)?\s*(?:以下|以内|之内)/);
  const over =
    text.match(
      new RegExp(`(?:over|above|more than|at least|min(?:imum)?|>=?|高于|超过|多于)\\s*${num}`),
    ) ?? text.match(/(\d+(?:\.\d+)?)\s*(?:元|块|美元|刀)?\s*以上/);
  if (under?.[1]) out.maxPriceCents = cents(under[1]);
  if (over?.[1]) out.minPriceCents = cents(over[1]);
  return out;
}

function searchWords(text: string): string {
  return stripFiller(
    translateProductWords(
      text
        .replace(/\b(between \$?\d+(\.\d+)? and \$?\d+(\.\d+)?)/g, " ")
        .replace(
          /(under|below|less than|cheaper than|over|above|more than|at least|up to|at most|no more than|max(imum)?|min(imum)?)\s*\$?\d+(\.\d+)?\s*(dollars|bucks|usd)?/g,
          "",
        )
        .replace(
          /\$?\d+(\.\d+)?\s*(?:-|–|to|~|到|至)\s*\$?\d+(\.\d+)?\s*(元|块|美元|刀)?(之间)?/g,
          " ",
        )
        .replace(
          /(低于|不超过|不到|少于|高于|超过|多于)\s*\d+(\.\d+)?\s*(元|块|美元|刀)?|\d+(\.\d+)?\s*(元|块|美元|刀)?\s*(以下|以内|之内|以上)/g,
          " ",
        )
        .replace(
          /\b(cheaper|less expensive|lower price|more affordable|cheap|affordable)\b|便宜(一?点|些)?(的)?|更便宜(的)?|实惠一点(的)?/g,
          " ",
        ),
    )
      .replace(/\p{Script=Han}+/gu, " ")
      .replace(
        /\b(show|find|search( for)?|look(ing)? for|recommend|suggest|i need|i want|need|want|browse|got any|any good|do you have|have|options?|something|anything|stuff|ones?|good|nice|best)\b/g,
        "",
      ),
  );
}

const FILLER =
  /\b(two|three|four|five|six|seven|eight|nine|ten|couple|that|this|these|those|both|me|my|the|a|an|some|please|pls|plz|pair|pairs|of|for|to|cart|basket|and|then|tell|what|is|it|them|can|you|could|i|would|like|also|with|by|units?|more|in|on|x|\d+|one|ones|too|as well|just|any|got|have|hey|hi|ok|okay|oh|yes|yeah|so|are|there|do|does|please|thanks|thank)\b|帮我|请|一下|我的|购物车|给我|吧|的|一双|一件|两双|两件|个|双|件/g;

function stripFiller(text: string): string {
  return text
    .replace(FILLER, " ")
    .replace(/[?!.,;:。，？！~'"()]/g, " ")
    .replace(FILLER, " ")
    .replace(/\s+/g, " ")
    .trim();
}

// --- merchant -------------------------------------------------------------------------------

/** Reads a merchant's request. */
export function readMerchantIntent(raw: string): MerchantIntent {
  const text = prepare(raw);
  // "when will X be restocked?" / "什么时候补货" asks for a date: it restocks nothing.
  const asksWhen = /back in stock|restock date|when (will|is|does|do)|什么时候|哪天|到货|何时/.test(
    text,
  );
  const restock =
    /restock|replenish|refill|top up|补货|补充库存|补库存/.test(text) &&
    !isNegated(text) &&
    !asksWhen;
  const amount = text.match(
    /(?:with|by|add(?:ing)?|of) (\d{1,5})\b|(\d{1,5}) (?:units? )?(?:each|apiece|more)|各(?:补)?(\d{1,5})|(?:补货?|补充)(\d{1,5})(?:件|个)?/,
  );
  const quantity = amount ? Number(amount[1] ?? amount[2] ?? amount[3] ?? amount[4]) : undefined;
  const targetMatch = text.match(
    /\b(?:up )?to (\d{1,5})(?: units?)?(?: each)?$|补(?:到|足)(\d{1,5})/,
  );
  const target = targetMatch ? Number(targetMatch[1] ?? targetMatch[2]) : undefined;
  const limit = text.match(
    /(?:under|below|less than|fewer than|<) ?(\d{1,4})|(?:at most|or fewer|or less|<=) ?(\d{1,4})|(\d{1,4}) (?:units? )?or (?:fewer|less)|(?:低于|少于|不到)(\d{1,4})|(\d{1,4})(?:件|个)?(?:以下|以内)/,
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
            /when|will|be|back|in stock|restock date|restock|is|the|什么时候|哪天|到货|补货|能|会|有货/g,
            " ",
          ),
        ).replace(/\p{Script=Han}+/gu, " "),
      ),
    };
  }
  if (/bulk|discount for|批发|大量/.test(text)) {
    return {
      kind: "bulk-discount",
      units: Number(text.match(/(\d+)/)?.[1] ?? 10),
      query: stripFiller(
        chineseToEnglish(
          text.replace(
            /bulk|discount|units?|pairs?|for|if i buy|buying|批发|折扣|大量|购买|买|\d+/g,
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
