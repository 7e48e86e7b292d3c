/**
 * The language of the merchant's page: English or Chinese, chosen with the page's language
 * button or followed from the merchant's latest message (a message in Chinese turns the page
 * Chinese, one in English turns it back), and remembered in localStorage for the next visit.
 * Before any choice, the browser's language decides. Every string of the merchant's own page
 * (login, welcome, suggestions, cards and tables) goes through {@link merchantWords}; the parts
 * shared with the shopper's page read it through `LangContext`.
 */

import type { Lang } from "./lang";
import { rememberedLang } from "./remembered-lang";

/** Before any choice: the browser's language. */
function browserLang(): Lang {
  return typeof navigator !== "undefined" && /^zh\b/i.test(navigator.language) ? "zh" : "en";
}

const remembered = rememberedLang("trail-run.merchant-lang", browserLang);

/** The merchant page's language now. */
export const merchantLang: () => Lang = remembered.get;

/** Sets the merchant page's language; remembered for the next visit. */
export const setMerchantLang: (lang: Lang) => void = remembered.set;

/** The merchant page's language, re-rendering when it changes. */
export const useMerchantLang: () => Lang = remembered.use;
