/**
 * The shopper's language, as far as the page speaks it: English, or Chinese when the shopper
 * writes in Chinese. Decided per reply from the message it answers, so a conversation that
 * switches language switches with it. Only what the page itself says follows (chips, cards,
 * errors); the model's own words are the model's.
 */

import type { ConversationTurn } from "overlap-runtime/client";

export type Lang = "en" | "zh";

/** `zh` for a text with Han characters, else `en`. */
export function detectLang(text: string): Lang {
  return /[\u3400-\u9fff\uf900-\ufaff]/.test(text) ? "zh" : "en";
}

/**
 * The language of the assistant turn at `index` of `turns`: that of the nearest user message
 * before it (the one it answers); English when there is none.
 */
export function turnLang(turns: readonly ConversationTurn[], index: number): Lang {
  for (let i = Math.min(index, turns.length - 1); i >= 0; i--) {
    const turn = turns[i];
    if (turn?.role === "user") return detectLang(turn.text);
  }
  return "en";
}

/** The language of the latest user message (the page's chrome follows it). */
export function latestLang(turns: readonly ConversationTurn[]): Lang {
  return turnLang(turns, turns.length - 1);
}

/** `en` or `zh`, whichever `lang` is. */
export function pick<T>(lang: Lang, en: T, zh: T): T {
  return lang === "zh" ? zh : en;
}

/** A count with its noun: `1 item`, `2 items`; in Chinese `2 件`. */
export function count(
  lang: Lang,
  n: number,
  noun: "item" | "product" | "order",
  nounPlural?: string,
): string {
  if (lang === "zh")
    return `${n} ${noun === "order" ? "个订单" : noun === "product" ? "件商品" : "件"}`;
  return `${n} ${n === 1 ? noun : (nounPlural ?? `${noun}s`)}`;
}
