/**
 * A discount as the page writes it: "10% off" in English; in Chinese the price paid in tenths,
 * as shops write it ("9折" for 10% off, "8.5折" for 15% off).
 */

import type { Lang } from "./lang";

/** `percent`% off in `lang`. */
export function discountWords(percent: number, lang: Lang): string {
  if (lang !== "zh") return `${percent}% off`;
  const tenths = Math.round((100 - percent) * 10) / 100;
  return `${String(tenths)}折`;
}
