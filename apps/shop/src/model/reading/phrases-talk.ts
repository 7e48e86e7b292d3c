/** Phrase steps of small talk. */

import type { ShopperIntent } from "../shopper-intents.js";
import type { Said } from "./said.js";

/** Greetings. */
export function greeting(said: Said): ShopperIntent | undefined {
  const { text } = said;
  if (
    (/^(hi+|hello|hey|yo|hiya|howdy|good (morning|afternoon|evening))\b/.test(text) ||
      /^(你好|您好|嗨|哈喽|在吗)/.test(text)) &&
    text.split(" ").length <= 4
  )
    return { kind: "greeting" };
  return undefined;
}

/** Thanks and goodbyes. */
export function thanks(said: Said): ShopperIntent | undefined {
  const { text } = said;
  if (
    /\b(thanks?|thank you|thx|ty|cheers|great|perfect|awesome|cool|ok(ay)?|got it|bye|goodbye|that'?s (all|it)|nothing else)\b|谢谢|多谢|感谢|好的|再见|拜拜|就这样/.test(
      text,
    ) &&
    text.split(" ").length <= 6
  )
    return { kind: "thanks" };

  return undefined;
}
