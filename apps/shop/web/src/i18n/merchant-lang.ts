/**
 * The language of the merchant's page: English or Chinese, chosen with the page's language
 * button or followed from the merchant's latest message (a message in Chinese turns the page
 * Chinese, one in English turns it back), and remembered in localStorage for the next visit.
 * Before any choice, the browser's language decides. Every string of the merchant's own page
 * (login, welcome, suggestions, cards and tables) goes through {@link merchantWords}; the parts
 * shared with the shopper's page read it through `LangContext`.
 */

import { useSyncExternalStore } from "react";
import type { Lang } from "./lang";

const KEY = "trail-run.merchant-lang";

function initial(): Lang {
  try {
    const stored = window.localStorage.getItem(KEY);
    if (stored === "zh" || stored === "en") return stored;
  } catch {
    // Nothing remembered.
  }
  return typeof navigator !== "undefined" && /^zh\b/i.test(navigator.language) ? "zh" : "en";
}

let current: Lang | undefined;
const listeners = new Set<() => void>();

/** The merchant page's language now. */
export function merchantLang(): Lang {
  current ??= initial();
  return current;
}

/** Sets the merchant page's language; remembered for the next visit. */
export function setMerchantLang(lang: Lang): void {
  if (merchantLang() === lang) return;
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

/** The merchant page's language, re-rendering when it changes. */
export function useMerchantLang(): Lang {
  return useSyncExternalStore(subscribe, merchantLang, () => "en" as const);
}
