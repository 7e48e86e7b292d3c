/** Phrase steps about orders, checking out and the merchant. */

import { isPutOff, isQuestion } from "../intent-words.js";
import type { ShopperIntent } from "../shopper-intents.js";
import { readWebLookup } from "../web-lookup.js";
import type { Said } from "./said.js";

/** "what do reviews say about …": what the web says. */
export function webLookup(said: Said): ShopperIntent | undefined {
  const { text } = said;
  const lookup = readWebLookup(text);
  if (lookup) return { kind: "web-lookup", ...lookup };
  return undefined;
}

/** Checking out, or a question or put-off mention of it (never an order). */
export function checkout(said: Said): ShopperIntent | undefined {
  const { text } = said;
  const checkoutWords =
    /check ?out(?! (the|this|that|these|those|a|an) )|check me out|place (the|my|an?) order|buy (it|them|everything|all)( of (it|them))? now|pay (for (it|them|everything) )?now|wrap (this|it|things) up|ready to (pay|check ?out|order)|proceed to (the )?(checkout|payment|pay)|complete (my|the) (purchase|order)|finish (my|the) (order|purchase)|i'?ll (buy|pay for) (them|it|everything|all of (it|them))$|结账|结算|下单|付款|买单/;
  if (checkoutWords.test(text)) {
    // Placing an order is irreversible: a negated, put-off or questioning mention only gets an answer.
    if (isPutOff(text) || isQuestion(text)) return { kind: "checkout-question" };
    return /i'?ll (buy|pay for) (them|it)$/.test(text)
      ? { kind: "checkout", loose: true }
      : { kind: "checkout" };
  }

  return undefined;
}

/** "buy it", "purchase them": checking out the cart or the product in view. */
export function buyIt(said: Said): ShopperIntent | undefined {
  const { text } = said;
  // "buy it", "purchase them": checking out what is in the cart, or the product in view.
  if (
    /^(?:ok,? |then |so )?(buy|purchase|get) (it|them|this|that|this one|that one)( now| please)?$/.test(
      text,
    )
  )
    return { kind: "checkout", loose: true };

  return undefined;
}

/** The shopper's orders ("what did I order?", an order id). */
export function orders(said: Said): ShopperIntent | undefined {
  const { text } = said;
  const orderId = text.match(/\b(o-[0-9a-f]{6,})\b/)?.[1];
  if (
    orderId ||
    /what (did|have) i (order|ordered|bought|buy|purchase|purchased)|my (last |previous |past |recent )?(orders?|purchases?)\b|order (history|status)|past orders|previous orders|where('?s| is) my (order|stuff|package)|did my order|have i ordered|我的订单|订单状态|历史订单|我(之前|以前|上次|都)*买(了|过)(什么|啥|哪些)|我(的)?(以前|之前|过去|历史|上次)的?订单|我(都)?(订|下单)了(什么|啥)|订单(到哪|怎么样|发货)/.test(
      text,
    )
  ) {
    return orderId ? { kind: "orders", orderId } : { kind: "orders" };
  }

  return undefined;
}

/** Questions only the merchant can answer (restock dates, bulk discounts). */
export function askMerchant(said: Said): ShopperIntent | undefined {
  const { text, raw } = said;
  if (
    /ask (the )?(merchant|seller|shop|store)|restock date|back in stock|bulk (discount|order|price)|discount (for|on) \d+|问(一下)?(商家|卖家|店家)|什么时候(补货|到货|有货)|批发|大量购买/.test(
      text,
    )
  ) {
    return { kind: "ask-merchant", question: raw.trim() };
  }

  return undefined;
}
