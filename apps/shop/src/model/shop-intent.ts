/**
 * What a shopper or merchant asked for, read from plain English or Chinese text by simple rules.
 * This is the scripted model's "understanding": deliberately small, deterministic, and honest
 * about what it does not understand (`unknown`).
 */

/** One item named in a request. */
export interface NamedItem {
  /** Words to search the catalog with. */
  query: string;
  quantity: number;
}

/** A request of the shopper side. */
export type ShopperIntent =
  | { kind: "add"; items: NamedItem[]; total: boolean }
  /** "add these two" / "把两件商品加入购物车": the products shown last. */
  | { kind: "add-shown"; count: number; total: boolean }
  | { kind: "search"; query: string; maxPriceCents?: number; minPriceCents?: number }
  | { kind: "compare"; count: number }
  | { kind: "remove"; query: string }
  | { kind: "view-cart" }
  | { kind: "total" }
  | { kind: "checkout" }
  /** A mention of checking out that is negated or a question: never an order. */
  | { kind: "checkout-question" }
  | { kind: "ask-merchant"; question: string }
  | { kind: "greeting" }
  | { kind: "unknown" };

/** A request of the merchant side. */
export type MerchantIntent =
  | { kind: "low-stock"; restock: boolean }
  | { kind: "restock"; query: string; quantity: number }
  | { kind: "set-price"; query: string; priceCents: number }
  | { kind: "orders" }
  | { kind: "sales" }
  | { kind: "inventory"; query?: string }
  | { kind: "greeting" }
  | { kind: "unknown" };

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  一: 1,
  两: 2,
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

/** Chinese product words and their catalog (English) equivalents, for searches. */
const CHINESE_WORDS: ReadonlyArray<[RegExp, string]> = [
  [/跑鞋|跑步鞋|运动鞋/g, " running shoes "],
  [/越野/g, " trail "],
  [/袜子|羊毛袜/g, " socks "],
  [/羊毛/g, " wool "],
  [/夹克|外套/g, " jacket "],
  [/雨衣|防水/g, " rain "],
  [/帐篷/g, " tent "],
  [/背包|双肩包/g, " backpack "],
  [/睡袋/g, " sleeping bag "],
  [/水壶|水瓶/g, " bottle "],
  [/手表/g, " watch "],
  [/帽子/g, " hat "],
];

/** Replaces known Chinese product words with the catalog's English ones. */
export function translateProductWords(text: string): string {
  return CHINESE_WORDS.reduce((out, [pattern, english]) => out.replace(pattern, english), text);
}

/** "don't check out", "not yet", "不要结账": the action must not happen. */
function isNegated(text: string): boolean {
  return /\b(don'?t|do not|never|not yet|no need|stop|without)\b|不要|别|不用|先不|暂时不/.test(
    text,
  );
}

/** A question about the action rather than a request to do it. */
function isQuestion(text: string): boolean {
  return /\?|？|^(how|what|why|when|should|can|could|is|does|do)\b|吗|怎么|如何|是否/.test(
    text.trim(),
  );
}

/** True when the text is mostly Chinese: the answer is then written in Chinese too. */
export function isChinese(text: string): boolean {
  const han = text.match(/[\u4e00-\u9fff]/g)?.length ?? 0;
  return han > 0 && han >= text.replace(/\s/g, "").length / 4;
}

/** Reads a shopper's request. */
export function readShopperIntent(raw: string): ShopperIntent {
  const text = raw.trim().toLowerCase();
  if (text === "") return { kind: "unknown" };
  const wantsTotal = /\btotal\b|how much|总价|总共|合计|多少钱/.test(text);

  if (/check ?out|place (the|my) order|buy (it|them|everything) now|结账|下单|付款/.test(text)) {
    // Placing an order is irreversible: a negated or questioning mention only gets an answer.
    return isNegated(text) || isQuestion(text)
      ? { kind: "checkout-question" }
      : { kind: "checkout" };
  }
  if (
    /ask (the )?merchant|restock date|back in stock|bulk discount|问(一下)?商家|什么时候补货|批发/.test(
      text,
    )
  ) {
    return { kind: "ask-merchant", question: raw.trim() };
  }
  if (/\bcompare\b|比较|对比/.test(text)) return { kind: "compare", count: countIn(text) ?? 2 };
  if (/\bremove\b|take .* out of|删除|移除|去掉/.test(text)) {
    return {
      kind: "remove",
      query: stripFiller(text.replace(/.*?(remove|take|删除|移除|去掉)/, "")),
    };
  }

  const adding = /\badd\b|\bput\b|加入|放进|加到|买/.test(text);
  if (adding) {
    const shown =
      /\b(these|those|them|both|the (two|three|first|last))\b|这(两|几|些)|那(两|几|些)|(两|几)件商品|它们/.test(
        text,
      );
    if (shown) return { kind: "add-shown", count: countIn(text) ?? 2, total: wantsTotal };
    const items = namedItems(text);
    if (items.length > 0) return { kind: "add", items, total: wantsTotal };
    return { kind: "add-shown", count: countIn(text) ?? 2, total: wantsTotal };
  }
  if (/(view|show|what'?s in|see) (my )?(cart|basket)|购物车里|查看购物车/.test(text))
    return { kind: "view-cart" };
  if (wantsTotal) return { kind: "total" };
  if (
    /\b(show|find|search|look(ing)? for|recommend|need|want)\b|有没有|推荐|找|看看|显示/.test(text)
  ) {
    return { kind: "search", ...priceFilter(text), query: searchWords(text) };
  }
  if (/^(hi|hello|hey|你好|您好)\b/.test(text)) return { kind: "greeting" };
  return { kind: "unknown" };
}

/** Reads a merchant's request. */
export function readMerchantIntent(raw: string): MerchantIntent {
  const text = raw.trim().toLowerCase();
  const restock = /restock|replenish|refill|补货|补充库存/.test(text) && !isNegated(text);
  if (/low (on )?stock|running low|out of stock|库存不足|缺货|库存低/.test(text))
    return { kind: "low-stock", restock };
  if (restock) {
    const quantity = countIn(text) ?? 20;
    return {
      kind: "restock",
      quantity,
      query: stripFiller(
        text.replace(/.*?(restock|replenish|refill|补货)/, "").replace(/\d+/g, ""),
      ),
    };
  }
  const price = text.match(/(?:price|价格).*?(?:to|为|改成)\s*\$?(\d+(?:\.\d{1,2})?)/);
  if (price?.[1]) {
    const query = stripFiller(
      text.replace(/(set|change|update)?\s*(the )?price( of)?/, "").replace(/(to|为|改成).*/, ""),
    );
    return { kind: "set-price", query, priceCents: Math.round(Number(price[1]) * 100) };
  }
  if (/orders?|订单/.test(text)) return { kind: "orders" };
  if (/sales|revenue|summary|销售|营业额/.test(text)) return { kind: "sales" };
  if (/inventory|stock|库存/.test(text)) return { kind: "inventory" };
  if (/^(hi|hello|hey|你好|您好)\b/.test(text)) return { kind: "greeting" };
  return { kind: "unknown" };
}

/** Items named after "add", split on "and" / "和" / commas, with their quantities. */
function namedItems(text: string): NamedItem[] {
  const body = text
    .replace(/^.*?\b(add|put)\b/, "")
    .replace(/(加入|放进|加到)(我的)?购物车.*$/, "")
    .replace(/\b(to|in|into) (my |the )?(cart|basket)\b.*$/, "")
    .replace(/^.*?(帮我把|把|我要买|买)/, "");
  return body
    .split(/,|\band\b|\bplus\b|和|还有|以及|、/)
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part) => {
      const quantity = countIn(part) ?? 1;
      // The amount asked for, unchanged: the cart's own rule (1..10) answers a bad one visibly.
      return { query: stripFiller(part), quantity };
    })
    .filter((item) => item.query !== "");
}

function countIn(text: string): number | undefined {
  const digits = text.match(/\b(\d{1,6})\b/);
  if (digits?.[1]) return Number(digits[1]);
  for (const [word, n] of Object.entries(NUMBER_WORDS)) {
    const pattern = /[a-z]/.test(word)
      ? new RegExp(`\\b${word}\\b(?! of (them|those|these))`)
      : new RegExp(`${word}(件|双|个|款|样)`);
    if (pattern.test(text)) return n;
  }
  return undefined;
}

function priceFilter(text: string): { maxPriceCents?: number; minPriceCents?: number } {
  const under = text.match(
    /(?:under|below|less than|cheaper than|max(?:imum)?|低于|不超过)\s*\$?(\d+(?:\.\d+)?)|(\d+(?:\.\d+)?)\s*(?:元)?以(?:下|内)/,
  );
  const over = text.match(/(?:over|above|more than|at least|高于|超过)\s*\$?(\d+(?:\.\d+)?)/);
  const out: { maxPriceCents?: number; minPriceCents?: number } = {};
  const max = under?.[1] ?? under?.[2];
  if (max) out.maxPriceCents = Math.round(Number(max) * 100);
  if (over?.[1]) out.minPriceCents = Math.round(Number(over[1]) * 100);
  return out;
}

function searchWords(text: string): string {
  return stripFiller(
    translateProductWords(text)
      .replace(/推荐|一些|有没有|找|看看|显示|我想要|我要/g, " ")
      .replace(
        /(under|below|less than|cheaper than|over|above|more than|at least)\s*\$?\d+(\.\d+)?/g,
        "",
      )
      .replace(/(低于|不超过|高于|超过)\s*\d+(\.\d+)?|\d+(\.\d+)?\s*元?以(下|内)/g, "")
      .replace(/\b(show|find|search|look(ing)? for|recommend|i need|i want|need|want)\b/g, ""),
  );
}

const FILLER =
  /\b(me|my|the|a|an|some|please|pair|pairs|of|for|to|cart|basket|and|then|tell|what|is|it|them|can|you|could|i|would|like|also|with|by|units?|more|in|on|x|\d+)\b|帮我|请|一下|我的|购物车|给我|吧|的|一双|一件|两双|两件|个|双|件/g;

function stripFiller(text: string): string {
  return text
    .replace(FILLER, " ")
    .replace(/[?!.,;:。，？！]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}
