/** Small display helpers: durations, money, a stable hue per product. */

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

/** Up to two initials of a name ("Aero Trail Runner" → "AT"; "跑鞋" → "跑鞋"). */
export function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return "?";
  if (words.length === 1) return [...(words[0] ?? "")].slice(0, 2).join("").toUpperCase();
  return words
    .slice(0, 2)
    .map((w) => [...w][0] ?? "")
    .join("")
    .toUpperCase();
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
