/**
 * The language the shopper's page speaks, shared by every part of it (top bar, cart, message
 * box, chats and orders) and kept across chats: a new chat has no message yet to tell the
 * language from, so it goes on in the one the shopper used last (remembered in localStorage).
 * Parts that may be shown on the merchant's page too read it with {@link useLang}, which is
 * English there (no provider).
 */

import { createContext, useContext } from "react";
import type { Lang } from "./lang";
import { rememberedLang } from "./remembered-lang";

const remembered = rememberedLang("trail-run.lang", () => "en");

/** The shopper's language now. */
export const shopperLang: () => Lang = remembered.get;

/** Sets the shopper's language (from their latest message); remembered for the next visit. */
export const setShopperLang: (lang: Lang) => void = remembered.set;

/** The shopper's language, re-rendering when it changes. */
export const useShopperLang: () => Lang = remembered.use;

/** The language of the page part being rendered (`en` unless a provider says otherwise). */
export const LangContext = createContext<Lang>("en");

/** See {@link LangContext}. */
export function useLang(): Lang {
  return useContext(LangContext);
}
