/**
 * The words the intent readers look for, English and Chinese: number words, Chinese measure
 * words, the command words a one-letter typo is fixed in (and the common words it must never
 * turn into one), negation and question marks, and the filler stripped from a product mention.
 * Shared by the shopper's and the merchant's readers.
 */

import { catalogIndex } from "./product-resolver.js";
import { editDistance, foldText } from "./text-match.js";

/** English number words and their values. */
export const NUMBER_WORDS: Readonly<Record<string, number>> = {
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
  dozen: 12,
};

/** Chinese numerals and their values. */
export const CHINESE_NUMBERS: Readonly<Record<string, number>> = {
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
export const MEASURE = "双|件|个|款|样|条|顶|副|只|瓶|套|把|台|块|份|包|对";

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
  "size",
  "colour",
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

/**
 * True when the text is mostly Chinese: the answer is then written in Chinese too. Product
 * names, brands, colours and sizes in Latin letters ("来两件Glacier Rain Jacket，L号") do not make
 * it English; other English words do ("I want 两双 merino wool socks").
 */
export function isChinese(text: string): boolean {
  const han = text.match(/[\u4e00-\u9fff]/g)?.length ?? 0;
  // Japanese writes Han too: kana (or Hangul) make it another language.
  if (han === 0 || /[\u3040-\u30ff\uac00-\ud7af]/.test(text)) return false;
  if (han >= text.replace(/\s/g, "").length / 4) return true;
  const english = (foldText(text).match(/[a-z]{2,}/g) ?? []).filter(
    (word) =>
      !catalogIndex().knows(word) &&
      !/^(us|xs|xl|xxl|black|white|blue|red|grey|gray|green|orange|yellow|purple|brown|navy|olive|silver|teal|charcoal|coral|oatmeal|volt|slate|forest|sand|rust|sage|clear)$/.test(
        word,
      ),
  );
  return han >= 1.5 * english.length;
}

/** Shop words people write short or by sound ("sox"), in the catalog's spelling. */
const SPOKEN: Readonly<Record<string, string>> = {
  sox: "socks",
  sz: "size",
  tshirt: "tee",
  tshirts: "tees",
  hoody: "hoodie",
  pls: "please",
  plz: "please",
  thx: "thanks",
};

/** Folds the text and fixes one-letter typos in command words. */
export function prepare(raw: string): string {
  const folded = foldText(raw.trim())
    .replace(/\s+/g, " ")
    .replace(/\b[a-z]+\b/g, (word) => SPOKEN[word] ?? word);
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
export function isNegated(text: string): boolean {
  return /\b(don'?t|do not|dont|never|not yet|no need|stop|without)\b|不要|别|不用|先不|暂时不/.test(
    text,
  );
}

/** "not ready to pay yet", "later": checking out is put off. */
export function isPutOff(text: string): boolean {
  return (
    isNegated(text) || /\b(not|n't|later|wait)\b|\bnot (yet|now)\b|等一下|晚点|以后再/.test(text)
  );
}

/** A question about the action rather than a request to do it. */
export function isQuestion(text: string): boolean {
  if (/^(can|could|would|will) you\b(?!.*\b(how|whether|if)\b)/.test(text.trim())) return false;
  return /\?|？|^(how|what|why|when|should|can|could|is|does|do)\b|吗|怎么|如何|是否/.test(
    text.trim(),
  );
}

/** A count written in the phrase ("2", "two", "两双"); not sizes or prices. */
export function explicitCount(said: string): number | undefined {
  // "第二个" is the second one, not two of it.
  const text = withoutOrdinals(said);
  const digits = text.match(/(?:^|\s|x)(\d{1,6})(?=\s|$|x|\p{Script=Han})/u);
  if (digits?.[1]) return Number(digits[1]);
  return countIn(text.replace(/\b(a|an)\b/g, " "));
}

/** The phrase without Chinese ordinals ("第二个", "第3款"), which are positions, not counts. */
function withoutOrdinals(text: string): string {
  return text.replace(/第[一二三四五六七八九十两\d]+(个|款|双|件|样|条)?/g, " ");
}

/** The first count in the phrase: digits, a Chinese number with its measure word, a number word. */
export function countIn(said: string): number | undefined {
  const text = withoutOrdinals(said);
  const digits = text.match(/\b(\d{1,6})\b/);
  if (digits?.[1]) return Number(digits[1]);
  const zh = text.match(new RegExp(`(一|两|俩|二|三|四|五|六|七|八|九|十)(${MEASURE}|件商品)`));
  if (zh?.[1]) return CHINESE_NUMBERS[zh[1]];
  for (const [word, n] of Object.entries(NUMBER_WORDS)) {
    if (new RegExp(`\\b${word}\\b(?! of (them|those|these))`).test(text)) return n;
  }
  return undefined;
}

/** Words that never name a product. */
export const FILLER =
  /\b(two|three|four|five|six|seven|eight|nine|ten|couple|that|this|these|those|both|me|my|the|a|an|some|please|pls|plz|pair|pairs|of|for|to|cart|basket|and|then|tell|what|is|it|them|can|you|could|i|would|like|also|with|by|units?|more|in|on|x|\d+|one|ones|too|as well|just|any|got|have|hey|hi|ok|okay|oh|yes|yeah|so|are|there|do|does|please|thanks|thank|actually|wait|sorry|oops|hmm|nope|instead|rather|meant|mean|anyway)\b|帮我|请|一下|我的|购物车|给我|吧|的|一双|一件|两双|两件|个|双|件/g;

/** The phrase without filler words and punctuation: what is left names a product. */
export function stripFiller(text: string): string {
  return text
    .replace(FILLER, " ")
    .replace(/[?!.,;:。，？！~'"()]/g, " ")
    .replace(FILLER, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** Greetings, thanks and apologies around a request ("Hi there!", "Thanks so much!", "打扰一下"). */
const PLEASANTRY =
  /^(hi|hello|hey|hiya|good (morning|afternoon|evening)|thanks|thank you|cheers|sorry|i hope|hope you|have a (nice|good|great)|您好|你好|谢谢|多谢|打扰|麻烦您了|辛苦)/;

/** Words that carry a request: what a shopper asks the shop to do or tell. */
const REQUEST_CUE =
  /\b(show|find|search|recommend|suggest|looking for|add|put|remove|delete|compare|check ?out|order|orders|cart|basket|buy|do you have|have you got|how much|price|tell me|what'?s|which|need|want)\b|推荐|帮我|找|加入|购物车|删|结账|订单|比较|多少钱|有没有|想要|想买/;

/** Where the request starts inside a sentence of story ("…, so I was wondering if you could show me…"). */
const REQUEST_START =
  /.*?\b(?:i was wondering if you could|i was wondering if|wondering if you could|could you(?: please)?|can you(?: please)?|would you(?: please)?|please|anyway,?|so)\b\s*(?=\S)|.*?(?:想请您帮我|想请您|请您帮我|请帮我|能不能帮我|可以帮我)/i;

/**
 * The request inside a long, polite message: the sentence that asks for something (not the
 * greeting, the story around it or the thanks), from where the request starts. A short message
 * is its own request.
 */
export function focusRequest(raw: string): string {
  const sentences = raw
    .split(/(?<=[.!?])\s+|(?<=[。！？])\s*|\n+/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const long = sentences.length > 1 || raw.split(/\s+/).length > 18 || raw.length > 40;
  // "您好，我想看看我以前的订单": the greeting before a short request goes too.
  const greeting = /^(hi|hello|hey|hiya|您好|你好|嗨|哈喽)(\s*there)?[,，!！.。\s]+(?=\S)/i;
  if (!long)
    return greeting.test(raw) && REQUEST_CUE.test(foldText(raw)) ? raw.replace(greeting, "") : raw;
  const folded = (s: string) => foldText(s);
  const asking = sentences.filter(
    (s) => !PLEASANTRY.test(folded(s)) && REQUEST_CUE.test(folded(s)),
  );
  const chosen = asking.at(-1) ?? sentences.filter((s) => !PLEASANTRY.test(folded(s))).at(-1);
  if (chosen === undefined) return raw;
  // Within the sentence, from where the request starts; a trailing "谢谢" goes too.
  const start = chosen.replace(/[，,]\s*(谢谢|多谢|thanks|thank you)[^，,]*$/i, "");
  let from = start;
  for (let i = 0; i < 3; i++) {
    const next = from.replace(REQUEST_START, "");
    if (next === from || !REQUEST_CUE.test(folded(next))) break;
    from = next;
  }
  return from;
}

/** Scripts and words of languages the assistant does not write (it answers in English or Chinese). */
const OTHER_SCRIPT =
  /[\u3040-\u30ff\uac00-\ud7af\u0400-\u04ff\u0600-\u06ff\u0e00-\u0e7f\u0590-\u05ff\u0900-\u097f]/;
const OTHER_WORDS =
  /\b(bonjour|merci|je|cherche|des|chaussures|veux|acheter|hola|quiero|comprar|unos|unas|gracias|por favor|busco|zapatillas|guten|tag|ich|suche|bitte|danke|möchte|kaufen|ciao|vorrei|grazie|olá|obrigado|quero|sapatos|hallo|schuhe|zapatos|calcetines|chaussettes)\b/g;

/** True when the text is in a language other than English or Chinese. */
export function isOtherLanguage(raw: string): boolean {
  if (OTHER_SCRIPT.test(raw)) return true;
  const words = raw.toLowerCase().match(OTHER_WORDS)?.length ?? 0;
  // Two or more, and a good part of the message: "the des moines price tag" stays English.
  return words >= 2 && words >= raw.split(/\s+/).length / 3;
}
