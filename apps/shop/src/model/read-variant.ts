/**
 * Sizes and colours as shoppers write them, anywhere in a phrase ("size 10 in volt", "us 9",
 * "medium", "L号", "38码", "蓝色的"), in the catalog's own spelling ("US 10", "M", "Volt"); and an
 * answer to "which size?" that is nothing but sizes and colours.
 */

import { prepare } from "./intent-words.js";
import { CHINESE_COLORS } from "./zh-lexicon.js";

/** Ways to name a size; group 1 is the size. */
const SIZE_PATTERNS: readonly RegExp[] = [
  /\b(?:in )?(?:an? )?(?:size|sz)\b ?:? ?(us ?\d{1,2}(?:\.5)?|\d{1,2}(?:\.5)?|xxl|xl|xs|s\/m|l\/xl|extra large|extra small|small|medium|large|s|m|l)\b/,
  /\b(?:in )?(us ?\d{1,2}(?:\.5)?)\b/,
  /\bin (?:an? )?(xxl|xl|xs|extra large|extra small|small|medium|large)\b/,
  // "in M in red", "in L", "sox in m charcoal": a letter size right after "in".
  /\bin (xxl|xl|xs|s|m|l)\b(?!')/,
  // "a large", "an extra large": a size said as an article and a size word.
  /\b(?:an?|the) (extra large|extra small|small|medium|large)\b/,
  // "swap it for a 9", "make that an 11", "a 10.5 instead": a shoe size after an article.
  /\b(?:for|to|make (?:it|that)|get|want|take|need) an? (\d{1,2}(?:\.5)?)\b(?! (?:more|pairs?|units?|of))/,
  // "size 10, volt": a bare "medium" or "large" between commas.
  /(?:^|, ?)(extra large|extra small|small|medium|large)(?:,|$)/,
  /(\d{1,2}(?:\.5)?|xxl|xl|xs|s|m|l) ?(?:码|号)(?:的)?/,
  /(加大|大|中|小)号(?:的)?/,
];

/** Catalog colours; the ones that are also common words only after "in". */
const COLOR_PATTERN =
  /\b(?:in )?(black|white|blue|red|grey|gray|green|orange|yellow|purple|brown|navy|olive|silver|teal|charcoal|coral|oatmeal|volt)\b|\bin (slate|forest|sand|rust|sage|clear)\b|\b(slate|forest|sand|rust|sage|clear) ?(?:色|colou?r)/;

const CHINESE_SIZES: Readonly<Record<string, string>> = { 加大: "XL", 大: "L", 中: "M", 小: "S" };

/** A size or colour named in a phrase ("in size 10", "us 9", "medium", "10码", "蓝色的"). */
export function readVariant(text: string): { size?: string; color?: string } {
  const out: { size?: string; color?: string } = {};
  for (const pattern of SIZE_PATTERNS) {
    const m = text.match(pattern);
    if (!m?.[1]) continue;
    const raw = CHINESE_SIZES[m[1]] ?? m[1];
    out.size = /^us ?\d/.test(raw)
      ? `US ${raw.replace(/^us ?/, "")}`
      : /^(xxl|xl|xs|s\/m|l\/xl|s|m|l)$/.test(raw)
        ? raw.toUpperCase()
        : raw;
    break;
  }
  const color = text.match(COLOR_PATTERN);
  if (color) out.color = capitalise(color[1] ?? color[2] ?? color[3]!);
  else {
    const zh = CHINESE_COLORS.find(([word]) => text.includes(word));
    if (zh) out.color = zh[1];
  }
  return out;
}

/** Every catalog colour, for an answer that is only a colour ("slate"). */
const COLOR_WORDS = new Set(
  "black white blue red grey gray green orange yellow purple brown navy olive silver teal charcoal coral oatmeal volt slate forest sand rust sage clear".split(
    " ",
  ),
);

/**
 * An answer to "which size?" / "which colour?": one variant per product asked about ("10",
 * "the 10", "a 9", "size 10 in Volt", "L号", "medium and slate", "10 in Volt and M in Charcoal"),
 * split like the items of an add. Undefined when the text is more than sizes and colours.
 */
export function readVariantAnswer(raw: string): { size?: string; color?: string }[] | undefined {
  const text = prepare(raw);
  if (text === "" || text.split(/\s+/).length > 14) return undefined;
  const parts = text
    .split(/,|，|、|\band\b|\bplus\b|&|和|还有/)
    .map((part) => part.trim())
    .filter((part) => part !== "");
  const answers: { size?: string; color?: string }[] = [];
  for (const part of parts) {
    const variant = readVariant(part);
    const rest = withoutVariant(part)
      .replace(/[.!?。！？]/g, " ")
      .replace(
        /\b(the|a|an|in|size|sz|please|pls|one|ones|pair|colou?r|with|us|i'?ll take|i want|i'?d like|make it|ok|okay|yes|whatever|you have|you've got|you got|if you have|have|available|thanks|thank you)\b|要|吧|的|码|号|色|请|就/g,
        " ",
      )
      .replace(/\s+/g, " ")
      .trim();
    if (rest !== "") {
      const bareSize =
        /^(\d{1,2}(?:\.5)?|xxl|xl|xs|s|m|l|small|medium|large|extra large|extra small)$/;
      if (variant.size === undefined && bareSize.test(rest)) {
        variant.size = /^(xxl|xl|xs|s|m|l)$/.test(rest) ? rest.toUpperCase() : rest;
      } else if (variant.color === undefined && COLOR_WORDS.has(rest)) {
        variant.color = capitalise(rest);
      } else return undefined;
    }
    if (variant.size === undefined && variant.color === undefined) return undefined;
    answers.push(variant);
  }
  return answers.length > 0 ? answers : undefined;
}

/** The phrase without its size and colour words. */
export function withoutVariant(text: string): string {
  let out = text;
  for (const pattern of SIZE_PATTERNS) out = out.replace(new RegExp(pattern.source, "g"), " ");
  return out
    .replace(new RegExp(COLOR_PATTERN.source, "g"), " ")
    .replace(new RegExp(`(${CHINESE_COLORS.map(([w]) => w).join("|")})(色)?(的)?`, "g"), " ");
}

const capitalise = (word: string) =>
  word === "gray" ? "Grey" : word.charAt(0).toUpperCase() + word.slice(1);
