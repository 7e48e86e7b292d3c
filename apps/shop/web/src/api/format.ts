/** Small display helpers: durations, money, a stable hue per text. */

const USD = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

/** Cents as dollars: `$1,234.50`. */
export function formatCents(cents: number): string {
  return USD.format(cents / 100);
}

/** A duration for labels: `0 ms`, `420 ms`, `1.25 s`, `12.4 s`. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "–";
  const abs = Math.abs(ms);
  if (abs < 1_000) return `${Math.round(ms)} ms`;
  if (abs < 10_000) return `${(ms / 1_000).toFixed(2)} s`;
  return `${(ms / 1_000).toFixed(1)} s`;
}

/** A short tick label: `0`, `250`, `1 s`, `1.5 s`. */
export function formatTick(ms: number): string {
  if (ms === 0) return "0";
  if (ms < 1_000) return `${Math.round(ms)}`;
  return `${Number((ms / 1_000).toFixed(2))} s`;
}

/** A hue (0..359) derived from a string, so a product keeps its colour everywhere. */
export function hueOf(text: string): number {
  let h = 7;
  for (const ch of text) h = (h * 31 + (ch.codePointAt(0) ?? 0)) % 360;
  return h;
}

/** A date-time for an order list: `Dec 2, 15:43`. */
export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString("en-US", {
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hour12: false,
  });
}

/**
 * The language to tag a text with, so the browser picks CJK glyphs for Chinese text (and
 * English ones otherwise): `zh` when it holds Han characters, else `undefined` (the page's).
 */
export function langOf(text: string): "zh" | undefined {
  return /[\u3400-\u9fff\uf900-\ufaff]/.test(text) ? "zh" : undefined;
}
