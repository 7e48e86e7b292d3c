/** A time as the shopper's lists show it: "Dec 3, 10:32" / "12月3日 10:32". */

import type { Lang } from "../i18n/lang";

export function when(iso: string, lang: Lang): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return date.toLocaleString(lang === "zh" ? "zh-CN" : "en-US", {
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
  });
}
