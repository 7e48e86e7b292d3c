/**
 * The page's one way to write a time: the shopper's own locale (the browser's languages) through
 * Intl, in the page's language: "Dec 3, 10:32 AM" for en-US, "3 Dec, 10:32" for en-GB, "12月3日 10:32"
 * in Chinese. Every list and card that shows a time uses it.
 */

import type { Lang } from "./lang";

/** The shopper's locale for `lang`: the first of the browser's languages in it, else a default. */
export function localeFor(lang: Lang, languages: readonly string[] = browserLanguages()): string {
  const own = languages.find((l) => l.toLowerCase().split("-")[0] === lang);
  return own ?? (lang === "zh" ? "zh-CN" : "en-US");
}

function browserLanguages(): readonly string[] {
  return typeof navigator === "undefined" ? [] : navigator.languages;
}

/** `iso` as a short date and time in the shopper's locale; "" when it is not a time. */
export function formatWhen(
  iso: string,
  lang: Lang,
  languages: readonly string[] = browserLanguages(),
): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return new Intl.DateTimeFormat(localeFor(lang, languages), {
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
  }).format(date);
}
