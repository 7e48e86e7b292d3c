/**
 * What every phrase step reads from a request: its text, prepared once (lower case, the request
 * of a long message, typos in command words fixed), and what several steps share.
 */

import { focusRequest, prepare } from "../intent-words.js";
import { priceFilter } from "../price-filter.js";
import { readVariant } from "../read-variant.js";

/** A request as the phrase steps read it. */
export interface Said {
  /** The message as sent. */
  readonly raw: string;
  /** The request, prepared (see `prepare`). */
  readonly text: string;
  /** The request asks for the total too ("… and tell me the total"). */
  readonly wantsTotal: boolean;
  /** Price limits said ("under 100"). */
  readonly price: { maxPriceCents?: number; minPriceCents?: number };
  /** A price limit was said. */
  readonly priced: boolean;
  /** A size or colour said. */
  readonly variant: { size?: string; color?: string };
}

/** The request read once for every step. */
export function readSaid(raw: string): Said {
  // A long, polite message: the request inside it, never the whole text.
  const text = prepare(focusRequest(raw));
  const wantsTotal =
    /\b(sub)?total\b|how much (is that|is it all|is everything|in total|altogether|all together|do i owe)|总价|总共|合计|一共/.test(
      text,
    );

  const price = priceFilter(text);
  const priced = price.maxPriceCents !== undefined || price.minPriceCents !== undefined;
  return { raw, text, wantsTotal, price, priced, variant: readVariant(text) };
}

/** Words that ask for something to be put in the cart. */
export const ADDING =
  /\b(add|put|throw|toss|grab|include|gimme)\b|give me\b(?! (the |a |my )?(total|details|info|information|summary|price|cart|list|options))|i'?ll (take|have|get)|i (will|would like to|want to|wanna) (buy|get|order|take)|\b(buy|purchase)\b|get me\b|加入|加到|放进|放入|加购|加上|我要买|我想买|我要|来(一|两|\d)|买(一|两|俩|\d)|^买|帮我加|^加(一|两|俩|三|\d)|都要|全要|全部要|^(一|两|俩|三|四|五|六|七|八|九|十)(双|件|个|条|顶|副|只|瓶|套|把|对)/;

/** Words that ask about a product ("tell me about", "多少钱"). */
export const ABOUT =
  /tell me (more )?about|more (info|information|details) (on|about|for)|(details|specs?|specifications|info|information) (of|on|about|for)|what('?s| is) (the )?(.+ )?like|describe|what (sizes|size|colou?rs|colou?r)|which (sizes|colou?rs)|how much (is|are|does|do|for)|what('?s| is| are) the price|price of|is (it|that|the .+) (any good|good|waterproof|comfortable|warm)|介绍|详细|详情|怎么样|参数|多少钱|什么(颜色|尺码)|有哪些(颜色|尺码)|几码/;

/** Words that ask about stock or a variant ("do you have it in 10", "有货吗"). */
export const STOCK =
  /\b(does|do|will) (it|they|this|that|this one|that one|the .+?) (come|comes) in\b|\b(comes?|came) in\b|do you (have|carry|sell|stock)|have you got|got (any|it|this|that|them)\b|(is|are) (it|that|this|they|the .+?) (in stock|available|sold out)|in stock|available in|any left|\bleft\?|还有(货|吗)|有货|有没有(.*)(码|号|色|货)|有(.*)(码|号)(的)?吗|有.+色(的)?吗|库存/;
