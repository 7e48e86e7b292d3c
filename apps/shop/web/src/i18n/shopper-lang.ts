/**
 * The language the shopper's page speaks, shared by every part of it (top bar, cart, message
 * box, chats and orders) and kept across chats: a new chat has no message yet to tell the
 * language from, so it goes on in the one the shopper used last (remembered in localStorage).
 * Parts that may be shown on the merchant's page too read it with {@link useLang}, which is
 * English there (no provider).
 */

import { createContext, useContext, useSyncExternalStore } from "react";
import type { Lang } from "./lang";

const KEY = "trail-run.lang";

function readStored(): Lang {
  try {
    return window.localStorage.getItem(KEY) === "zh" ? "zh" : "en";
  } catch {
    return "en";
  }
}

let current: Lang | undefined;
const listeners = new Set<() => void>();

/** The shopper's language now. */
export function shopperLang(): Lang {
  current ??= readStored();
  return current;
}

/** Sets the shopper's language (from their latest message); remembered for the next visit. */
export function setShopperLang(lang: Lang): void {
  if (shopperLang() === lang) return;
  current = lang;
  try {
    window.localStorage.setItem(KEY, lang);
  } catch {
    // Not remembered; the page still follows it.
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The shopper's language, re-rendering when it changes. */
export function useShopperLang(): Lang {
  return useSyncExternalStore(subscribe, shopperLang, () => "en" as const);
}

/** The language of the page part being rendered (`en` unless a provider says otherwise). */
export const LangContext = createContext<Lang>("en");

/** See {@link LangContext}. */
export function useLang(): Lang {
  return useContext(LangContext);
}
