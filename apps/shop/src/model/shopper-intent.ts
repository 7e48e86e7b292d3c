/**
 * What a shopper asked for, read from plain English or Chinese text by rules. This is the
 * scripted model's "understanding": deterministic, tolerant of the way people type (lower case,
 * no punctuation, typos in the command words, mixed English and Chinese), and honest about what
 * it does not understand (`unknown`). Which product a mention means is not decided here: an item
 * carries the words (`query`) or a reference to the conversation (`ref`: "it", "both", "the
 * cheaper one"), and the policy resolves them against the catalog, the cart and what was shown.
 */

import {
  CHINESE_NUMBERS,
  countIn,
  explicitCount,
  focusRequest,
  isNegated,
  isOtherLanguage,
  isPutOff,
  isQuestion,
  MEASURE,
  prepare,
  stripFiller,
} from "./intent-words.js";
import { priceFilter } from "./price-filter.js";
import { catalogIndex } from "./product-resolver.js";
import { readCorrection, readKeepOnly } from "./read-cart-edit.js";
import { mentionIn, type NamedItem, namedItems, type Ref, readShownRun } from "./read-mention.js";
import {
  type ProductAttribute,
  readAttribute,
  readWhichShown,
  type ShownOrder,
} from "./read-question.js";
import { readVariant, withoutVariant } from "./read-variant.js";
import { readWebLookup } from "./web-lookup.js";
import { chineseToEnglish } from "./zh-lexicon.js";

/** A request of the shopper side. */
export type ShopperIntent =
  | { kind: "add"; items: NamedItem[]; total: boolean }
  /**
   * "add these two" / "把前两件商品加入购物车" / "the last two you showed": the products shown last,
   * `count` of them from the start (or the end); no count: the shopper did not say how many.
   */
  | {
      kind: "add-shown";
      count?: number;
      from?: "start" | "end";
      size?: string;
      color?: string;
      total: boolean;
    }
  /** "only keep the jacket", "别的都删掉，只留夹克": every other line out of the cart. */
  | { kind: "keep-only"; query: string; ref?: Ref }
  /** "wait, not that one, the headlamp in silver": the product just added swapped for another. */
  | { kind: "replace"; item: NamedItem }
  /** "is it waterproof?", "what's it made of", "适合下雨天吗": a question about a product's facts. */
  | { kind: "attribute"; query: string; ref?: Ref; attribute: ProductAttribute }
  /** "which one is top rated", "评分最高的是哪个": an answer about the products shown, no action. */
  | { kind: "which-shown"; by: ShownOrder }
  /** A request that wants something without saying what ("something for my dad"). */
  | { kind: "vague" }
  /** "what do you sell?": the kinds of products the shop has. */
  | { kind: "catalog-overview" }
  /** A message in a language the assistant does not write. */
  | { kind: "other-language" }
  | {
      kind: "search";
      query: string;
      maxPriceCents?: number;
      minPriceCents?: number;
      /** "cheaper ones", "便宜一点的": below what was shown last. */
      cheaper?: boolean;
      /** The catalog category the products must be of. */
      category?: string;
      /** "the cheapest", "the best reviewed": the one product of the results to show. */
      best?: "cheapest" | "best-rated";
    }
  /** Compare products named (`items`) or shown last (`count`). */
  | { kind: "compare"; count: number; items?: NamedItem[] }
  | { kind: "remove"; query: string; ref?: Ref; quantity?: number }
  /** "make it 3", "change the socks to 2", "改成3双". */
  | { kind: "set-quantity"; query: string; ref?: Ref; quantity: number }
  /** "one more", "another pair of socks", "one less", "再来一双". */
  | { kind: "change-quantity"; query: string; ref?: Ref; delta: number }
  /** "make it size 10", "in blue instead", "换成10码". */
  | {
      kind: "set-variant";
      query: string;
      ref?: Ref;
      /** The product, when the request picked it by its place in the list shown. */
      id?: string;
      size?: string;
      color?: string;
      /** "change the size": what to ask for when the request does not name it. */
      ask?: "size" | "color";
    }
  | { kind: "clear-cart" }
  /** "tell me more about …", "what sizes does it come in", "介绍一下 …". */
  | { kind: "details"; query: string; ref?: Ref }
  /** "do you have it in size 10?", "is the … in stock", "有10码吗". */
  | { kind: "availability"; query: string; ref?: Ref; size?: string; color?: string }
  /** "what did I order?", "where is my order", "我的订单". */
  | { kind: "orders"; orderId?: string }
  | { kind: "view-cart" }
  /** The cart's total; `delivery`: asked about delivery or shipping too. */
  | { kind: "total"; delivery?: boolean }
  /** `loose`: said as "I'll buy them", which could also mean the products shown. */
  | { kind: "checkout"; loose?: boolean }
  /** A mention of checking out that is negated or a question: never an order. */
  | { kind: "checkout-question" }
  /** A change the shopper asked not to make ("don't empty my cart"). */
  | { kind: "declined" }
  | { kind: "ask-merchant"; question: string }
  /** "what do reviews say about …", "网上对这双鞋评价怎么样": what the web says (`web-lookup.ts`). */
  | { kind: "web-lookup"; query: string; ref?: Ref }
  | { kind: "greeting" }
  | { kind: "thanks" }
  | { kind: "unknown" };

/** How many texts' readings {@link readShopperIntent} keeps (the oldest read first goes). */
const KEPT_READINGS = 512;
const readings = new Map<string, ShopperIntent>();

/**
 * Reads a shopper's request. The reading depends on the text alone (and the fixed catalog), and
 * the script asks for it several times per request and again at every request of a turn, so the
 * last texts' readings are kept, frozen: a caller that changed one would change the next one.
 */
export function readShopperIntent(raw: string): ShopperIntent {
  const known = readings.get(raw);
  if (known !== undefined) return known;
  const intent = deepFreeze(readIntent(raw));
  if (readings.size >= KEPT_READINGS) {
    const oldest = readings.keys().next().value;
    if (oldest !== undefined) readings.delete(oldest);
  }
  readings.set(raw, intent);
  return intent;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

function readIntent(raw: string): ShopperIntent {
  if (isOtherLanguage(raw)) return { kind: "other-language" };
  // A long, polite message: the request inside it, never the whole text.
  const text = prepare(focusRequest(raw));
  if (text === "") return { kind: "unknown" };
  const lookup = readWebLookup(text);
  if (lookup) return { kind: "web-lookup", ...lookup };
  const wantsTotal =
    /\b(sub)?total\b|how much (is that|is it all|is everything|in total|altogether|all together|do i owe)|总价|总共|合计|一共/.test(
      text,
    );

  const checkoutWords =
    /check ?out(?! (the|this|that|these|those|a|an) )|check me out|place (the|my|an?) order|buy (it|them|everything|all)( of (it|them))? now|pay (for (it|them|everything) )?now|wrap (this|it|things) up|ready to (pay|check ?out|order)|proceed to (the )?(checkout|payment|pay)|complete (my|the) (purchase|order)|finish (my|the) (order|purchase)|i'?ll (buy|pay for) (them|it|everything|all of (it|them))$|结账|结算|下单|付款|买单/;
  if (checkoutWords.test(text)) {
    // Placing an order is irreversible: a negated, put-off or questioning mention only gets an answer.
    if (isPutOff(text) || isQuestion(text)) return { kind: "checkout-question" };
    return /i'?ll (buy|pay for) (them|it)$/.test(text)
      ? { kind: "checkout", loose: true }
      : { kind: "checkout" };
  }

  // "buy it", "purchase them": checking out what is in the cart, or the product in view.
  if (
    /^(?:ok,? |then |so )?(buy|purchase|get) (it|them|this|that|this one|that one)( now| please)?$/.test(
      text,
    )
  )
    return { kind: "checkout", loose: true };

  const orderId = text.match(/\b(o-[0-9a-f]{6,})\b/)?.[1];
  if (
    orderId ||
    /what (did|have) i (order|ordered|bought|buy|purchase|purchased)|my (last |previous |past |recent )?(orders?|purchases?)\b|order (history|status)|past orders|previous orders|where('?s| is) my (order|stuff|package)|did my order|have i ordered|我的订单|订单状态|历史订单|我(之前|以前|上次|都)*买(了|过)(什么|啥|哪些)|我(的)?(以前|之前|过去|历史|上次)的?订单|我(都)?(订|下单)了(什么|啥)|订单(到哪|怎么样|发货)/.test(
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

  const keep = readKeepOnly(text);
  if (keep) return keep;

  const correction = readCorrection(text);
  if (correction) return correction;

  const which = readWhichShown(text);
  if (which) return which;

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
    /\b(remove|delete|take out|take off|drop|get rid of|ditch)\b|take .+ (out|off)|(don'?t|do not|no longer) (want|need) (the |those |these |that |this |my )?(.+?) (anymore|any more)|^(?:actually,? |oh,? |and )?i (?:don'?t|do not|no longer) (?:want|need) (?:the|that|this|those|these|my) .+$|删除|删掉|删了|移除|去掉|拿掉|不要了|不想要了/;
  if (removal.test(text)) {
    const dontWant =
      text.match(/(?:don'?t|do not|no longer) (?:want|need) (.+?) (?:anymore|any more)/) ??
      text.match(
        /i (?:don'?t|do not|no longer) (?:want|need) ((?:the|that|this|those|these|my) .+)$/,
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
    /\b(add|put|throw|toss|grab|include|gimme)\b|give me\b(?! (the |a |my )?(total|details|info|information|summary|price|cart|list|options))|i'?ll (take|have|get)|i (will|would like to|want to|wanna) (buy|get|order|take)|\b(buy|purchase)\b|get me\b|加入|加到|放进|放入|加购|加上|我要买|我想买|我要|来(一|两|\d)|买(一|两|俩|\d)|^买|帮我加|^加(一|两|俩|三|\d)|都要|全要|全部要|^(一|两|俩|三|四|五|六|七|八|九|十)(双|件|个|条|顶|副|只|瓶|套|把|对)/;
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
  // "don't add the socks": nothing is added.
  if (
    adding.test(text) &&
    /^(please )?(don'?t|do not|no need to|never) (add|put|buy|get)\b|不要(加|买|放)|别(加|买|放)/.test(
      text,
    )
  )
    return { kind: "declined" };
  if (adding.test(text) && !priced && !/^(should|how|why|what|where|when|is|does)\b/.test(text)) {
    const body = addBody(text);
    const variant = readVariant(text);
    const shownVariant = {
      ...(variant.size !== undefined ? { size: variant.size } : {}),
      ...(variant.color !== undefined ? { color: variant.color } : {}),
    };
    const bare = withoutVariant(body)
      .replace(
        /\b(you showed( me)?|you (just )?showed|shown|above|on (the )?(screen|list)|please)\b|(的)?商品/g,
        " ",
      )
      .replace(/\s+/g, " ")
      .trim();
    // "the last two you showed", "前两件商品": a run of the products shown.
    const run = readShownRun(bare);
    if (
      run &&
      (run.count >= 2 || run.from === "end") &&
      stripFiller(bare.replace(/\b(first|top|last|bottom)\b|前|后面|后|最后/g, " ")) === ""
    )
      return { kind: "add-shown", ...run, ...shownVariant, total: wantsTotal };
    const shown =
      /^(them|these|those|both|all|all of them|all three|everything shown|the (two|three|four) (of them|shown|above)|these (two|three|four)|those (two|three|four)|the (two|three|four)|两(件|个|款|双)?|这(两|几|些|三)(件|个|款|双)?|那(两|几|些|三)(件|个|款|双)?|(两|几|三)件|它们|都|都要|全要|全部要)$/;
    if (shown.test(bare)) {
      const all = /^(all|all of them|everything shown|都|都要|全要|全部要)$/.test(bare);
      // "both" of more than two shown is not said which: asked, like "those".
      const count = all ? 99 : /^both$/.test(bare) ? undefined : countIn(bare);
      return {
        kind: "add-shown",
        ...(count !== undefined ? { count } : {}),
        ...shownVariant,
        total: wantsTotal,
      };
    }
    if (
      /^(something|anything|some stuff|stuff|a gift|a present|gifts?|东西|点东西|礼物)\b/.test(bare)
    )
      return { kind: "vague" };
    const items = namedItems(body);
    const [only] = items;
    if (items.length === 1 && only?.ref?.kind === "them")
      return {
        kind: "add-shown",
        ...(only.ref.count !== undefined ? { count: only.ref.count } : {}),
        ...shownVariant,
        total: wantsTotal,
      };
    // One item: a size or colour said anywhere in the message is its own ("…加入购物车，炭灰色").
    if (only && items.length === 1) {
      if (only.size === undefined && variant.size !== undefined) only.size = variant.size;
      if (only.color === undefined && variant.color !== undefined) only.color = variant.color;
    }
    if (items.length > 0) return { kind: "add", items, total: wantsTotal };
    // "add to cart", "加入购物车": the product the conversation is about.
    return {
      kind: "add",
      items: [{ query: "", quantity: 1, ref: { kind: "it" } }],
      total: wantsTotal,
    };
  }

  if (
    /(what'?s|what is|whats|what do i have|what have i got) in (my |the )?(cart|basket)|how many (items|things|products)( are| do i have)? in (my |the )?(cart|basket)|(show|view|see|open|check) (me )?(my |the )?(cart|basket)|^(my )?(cart|basket)\??$|购物车里|看看购物车|查看购物车|看一下购物车|购物车有什么/.test(
      text,
    )
  )
    return { kind: "view-cart" };
  const delivery = /\b(delivery|shipping|postage)\b|运费|邮费|快递费|配送费|包邮/.test(text);
  if (
    wantsTotal ||
    delivery ||
    /how much (is|do) (it|i owe|everything)|what do i owe|what'?s the damage/.test(text)
  )
    return delivery ? { kind: "total", delivery: true } : { kind: "total" };

  const variant = readVariant(text);
  const about =
    /tell me (more )?about|more (info|information|details) (on|about|for)|(details|specs?|specifications|info|information) (of|on|about|for)|what('?s| is) (the )?(.+ )?like|describe|what (sizes|size|colou?rs|colou?r)|which (sizes|colou?rs)|how much (is|are|does|do|for)|what('?s| is| are) the price|price of|is (it|that|the .+) (any good|good|waterproof|comfortable|warm)|介绍|详细|详情|怎么样|参数|多少钱|什么(颜色|尺码)|有哪些(颜色|尺码)|几码/;
  const stock =
    /\b(does|do|will) (it|they|this|that|this one|that one|the .+?) (come|comes) in\b|\b(comes?|came) in\b|do you (have|carry|sell|stock)|have you got|got (any|it|this|that|them)\b|(is|are) (it|that|this|they|the .+?) (in stock|available|sold out)|in stock|available in|any left|\bleft\?|还有(货|吗)|有货|有没有(.*)(码|号|色|货)|有(.*)(码|号)(的)?吗|有.+色(的)?吗|库存/;
  if (stock.test(text) || (variant.size !== undefined && isQuestion(text))) {
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
  // After availability: "is the storm waterproof trail runner in stock" asks about stock.
  const attribute = readAttribute(text);
  if (attribute) return attribute;
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

  if (
    (/^(hi+|hello|hey|yo|hiya|howdy|good (morning|afternoon|evening))\b/.test(text) ||
      /^(你好|您好|嗨|哈喽|在吗)/.test(text)) &&
    text.split(" ").length <= 4
  )
    return { kind: "greeting" };
  if (
    /\b(thanks?|thank you|thx|ty|cheers|great|perfect|awesome|cool|ok(ay)?|got it|bye|goodbye|that'?s (all|it)|nothing else)\b|谢谢|多谢|感谢|好的|再见|拜拜|就这样/.test(
      text,
    ) &&
    text.split(" ").length <= 6
  )
    return { kind: "thanks" };

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
  // "what do you sell?": the kinds of products the shop has.
  if (
    /^(what do you (have|sell|carry|stock)|what have you got|what can i buy( here)?|你们(有|卖)(什么|啥|哪些)|都有(什么|啥|哪些)|有(什么|啥)(东西|商品|卖的))\??$/.test(
      text.replace(/[?？!！。]+$/, ""),
    )
  )
    return { kind: "catalog-overview" };
  // "change it": what to change is asked.
  if (
    /^(change|edit|modify|switch|swap) (it|that|this|that one|this one)$|^(改一下|换一下)$/.test(
      text,
    )
  )
    return { kind: "set-variant", query: "", ref: { kind: "it" } };

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
  return { kind: "unknown" };
}

/** Quantity and variant changes of what is in the cart. */
function readCartChange(said: string): ShopperIntent | undefined {
  // "no wait, make it a large": the interjections before a change are not part of it.
  const text = said.replace(/^((no|nope|wait|sorry|oops|actually|hmm|ok|okay|oh)\b[,!. ]*)+/, "");
  // "one more", "another pair of socks", "add 2 more", "再来一双", "少一双".
  const lead =
    "^(?:(?:please|pls|and|ok|oh|actually|can i (?:get|have)|could i (?:get|have)|i'?d like|i want|give me|add|i'?ll take) )*";
  const more = text.match(new RegExp(`${lead}(?:(one|1|\\d+|two|three) more|(another))\\b(.*)$`));
  if (more) {
    const n = more[1] ? (countIn(more[1]) ?? 1) : 1;
    const rest = (more[3] ?? "").replace(/\b(of|pairs?|units?|please|pls)\b/g, " ");
    // "another one", "one more of those": more of the product the conversation is about.
    const target = /^\s*(one|of (it|that|those|them))?\s*$/.test(rest)
      ? { query: "", ref: { kind: "it" as const } }
      : mentionIn(rest);
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
    // "make that an 11" names a size, not a quantity.
    if (!m?.groups || /\bsize\b|码|号/.test(m[0]) || /\ban?$/.test((m.groups.who ?? "").trim()))
      continue;
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
        .replace(
          /\b(make|change|switch|swap|exchange|instead|to|for)\b|\b(the )?(colou?r|size)\b/g,
          " ",
        )
        .replace(/换成|改成|换一?个/g, " "),
    );
    return { kind: "set-variant", ...who, ...variant };
  }
  // "and the same in oatmeal": another of the product in view, in that size or colour.
  if (
    (variant.size !== undefined || variant.color !== undefined) &&
    /^(?:and |also |plus )?(?:the same|same one|same thing|another one|one more)(?: one| thing)?\b/.test(
      text,
    )
  )
    return {
      kind: "add",
      items: [{ query: "", quantity: 1, ref: { kind: "it" }, ...variant }],
      total: false,
    };
  // "sorry, I meant white", "in a large please", "actually the 11": only a size or colour said
  // as a change of mind, about the line the conversation is about.
  if (variant.size !== undefined || variant.color !== undefined) {
    const rest = withoutVariant(text)
      .replace(
        /\b(sorry|i meant|i mean|actually|no|wait|oops|rather|instead|please|pls|make it|the|a|an|one|in|size|colou?r|i'?d prefer|prefer|better)\b|[,.!]|还是|算了|要|的|吧/g,
        " ",
      )
      .trim();
    const changeOfMind = /\b(sorry|i meant|i mean|actually|instead|rather|prefer)\b|还是|算了/.test(
      text,
    );
    if (rest === "" && changeOfMind && !isQuestion(text))
      return { kind: "set-variant", query: "", ref: { kind: "it" }, ...variant };
  }
  // "change the size", "换个颜色": which one is asked.
  const which = text.match(
    /\b(?:change|switch|swap|different|another)\b.*?\b(size|colou?r)\b|换(?:个|一个|一下)?(尺码|码|颜色)/,
  );
  if (which) {
    const ask = /size|尺码|码/.test(which[1] ?? which[2] ?? "") ? "size" : "color";
    const who = mentionIn(
      text.replace(
        /\b(change|switch|swap|different|another|the|size|colou?r|of)\b|换(个|一个|一下)?(尺码|码|颜色)/g,
        " ",
      ),
    );
    return {
      kind: "set-variant",
      ...(who.query === "" && who.ref === undefined ? { query: "", ref: { kind: "it" } } : who),
      ask,
    };
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

function searchWords(text: string): string {
  return stripFiller(
    chineseToEnglish(
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
        /\b(best|top|highest)[ -]rated|\b(help( me)?|i'?d love to see|love to see|see|your|show|find|search( for)?|look(ing)? for|recommend|suggest|i need|i want|need|want|browse|got any|any good|do you have|have|options?|something|anything|stuff|ones?|good|nice|best)\b/g,
        "",
      ),
  );
}
