/**
 * A page language kept in localStorage under one key: read once (or decided by `initial` when
 * nothing is stored), changed with `set` (remembered for the next visit), followed by React
 * components with `use`. The shopper's and the merchant's pages each keep one.
 */

import { useSyncExternalStore } from "react";
import type { Lang } from "./lang";

/** A remembered language: its value now, how to change it, and a hook that re-renders on change. */
export interface RememberedLang {
  get(): Lang;
  set(lang: Lang): void;
  use(): Lang;
}

/** The language remembered under `key`; `initial` decides it while nothing is stored. */
export function rememberedLang(key: string, initial: () => Lang): RememberedLang {
  let current: Lang | undefined;
  const listeners = new Set<() => void>();
  const get = (): Lang => {
    if (current === undefined) {
      let stored: string | null = null;
      try {
        stored = window.localStorage.getItem(key);
      } catch {
        // Nothing remembered.
      }
      current = stored === "zh" || stored === "en" ? stored : initial();
    }
    return current;
  };
  const set = (lang: Lang): void => {
    if (get() === lang) return;
    current = lang;
    try {
      window.localStorage.setItem(key, lang);
    } catch {
      // Not remembered; the page still follows it.
    }
    for (const listener of listeners) listener();
  };
  const subscribe = (listener: () => void): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
  return { get, set, use: () => useSyncExternalStore(subscribe, get, () => "en" as const) };
}
