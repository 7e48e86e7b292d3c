/**
 * Helpers of the phrase steps: a quantity or variant change of a cart line, what follows "add",
 * and the words of a search.
 */

import { CHINESE_NUMBERS, countIn, isQuestion, MEASURE, stripFiller } from "../intent-words.js";
import { mentionIn } from "../read-mention.js";
import { readVariant, withoutVariant } from "../read-variant.js";
import type { ShopperIntent } from "../shopper-intents.js";
import { chineseToEnglish } from "../zh-lexicon.js";

/** Quantity and variant changes of what is in the cart. */
export function readCartChange(said: string): ShopperIntent | undefined {
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
export function addBody(text: string): string {
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

export function searchWords(text: string): string {
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
