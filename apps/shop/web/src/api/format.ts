/** Small display helpers: durations, money, times, a stable hue per text. */

import { formatWhen } from "../i18n/when";

const USD = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

/** Cents as dollars: `$1,234.50`. */
export function formatCents(cents: number): string {
  return USD.format(cents / 100);
}

/**
 * A duration for labels: `0 ms`, `420 ms`, `1.25 s`, `12.4 s`; in Chinese `420 毫秒`, `1.25 秒`.
 */
export function formatMs(ms: number, lang: "en" | "zh" = "en"): string {
  if (!Number.isFinite(ms)) return "–";
  const abs = Math.abs(ms);
  const [msUnit, sUnit] = lang === "zh" ? ["毫秒", "秒"] : ["ms", "s"];
  if (abs < 1_000) return `${Math.round(ms)} ${msUnit}`;
  if (abs < 10_000) return `${(ms / 1_000).toFixed(2)} ${sUnit}`;
  return `${(ms / 1_000).toFixed(1)} ${sUnit}`;
}

/** A short tick label: `0`, `250`, `1 s`, `1.5 s` (`1.5 秒`). */
export function formatTick(ms: number, lang: "en" | "zh" = "en"): string {
  if (ms === 0) return "0";
  if (ms < 1_000) return `${Math.round(ms)}`;
  return `${Number((ms / 1_000).toFixed(2))} ${lang === "zh" ? "秒" : "s"}`;
}

/** A hue (0..359) derived from a string, so a product keeps its colour everywhere. */
export function hueOf(text: string): number {
  let h = 7;
  for (const ch of text) h = (h * 31 + (ch.codePointAt(0) ?? 0)) % 360;
  return h;
}

/** A date-time for an order list, the page's one format (see {@link formatWhen}). */
export function formatDateTime(iso: string, lang: "en" | "zh" = "en"): string {
  return formatWhen(iso, lang) || iso;
}

/**
 * The language to tag a text with, so the browser picks CJK glyphs for Chinese text (and
 * English ones otherwise): `zh` when it holds Han characters, else `undefined` (the page's).
 */
export function langOf(text: string): "zh" | undefined {
  return /[\u3400-\u9fff\uf900-\ufaff]/.test(text) ? "zh" : undefined;
}
