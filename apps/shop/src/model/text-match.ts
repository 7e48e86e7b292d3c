/**
 * Word-level fuzzy matching for the scripted model: normalised words (accents, case, full-width
 * forms and plurals folded), an edit distance with transpositions, and trigram overlap. Small and
 * dependency-free; the product resolver builds on it.
 */

/** Lower-case, accent-free, full-width forms folded (`Ｕ Ｓ １０` → `u s 10`), curly quotes straight. */
export function foldText(text: string): string {
  return text
    .normalize("NFKC")
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/[‘’´`]/g, "'")
    .toLowerCase();
}

/** "socks" → "sock", "batteries" → "battery", "glasses" → "glass", "boxes" → "box". */
export function singular(word: string): string {
  if (word.length <= 3 || /ss$|us$|is$/.test(word)) return word;
  if (word.endsWith("sses")) return word.slice(0, -2);
  // "beanies", "hoodies": nouns in -ie, not -y.
  if (/(beanie|hoodie|cookie|movie|selfie|rookie|goalie|smoothie)s$/.test(word))
    return word.slice(0, -1);
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(ch|sh|x)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s")) return word.slice(0, -1);
  return word;
}

/** Latin words and numbers of a text, folded and singular ("2-Person" → "2", "person"). */
export function wordsOf(text: string): string[] {
  return foldText(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "" && !/\p{Script=Han}/u.test(w))
    .map(singular);
}

/**
 * Optimal string alignment distance (Levenshtein plus adjacent transpositions), or `max + 1` as
 * soon as it must exceed `max`.
 */
export function editDistance(a: string, b: string, max = 3): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a === b) return 0;
  let prevPrev: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, prevPrev[j - 2]! + 1);
      row.push(d);
      if (d < best) best = d;
    }
    if (best > max) return max + 1;
    prevPrev = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/** The trigrams of a word padded with spaces: "sock" → " so", "soc", "ock", "ck ". */
export function trigrams(word: string): Set<string> {
  const padded = ` ${word} `;
  const out = new Set<string>();
  for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3));
  return out;
}

/** Dice coefficient of two trigram sets, 0..1. */
export function dice(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const g of a) if (b.has(g)) shared++;
  return (2 * shared) / (a.size + b.size);
}

/**
 * How well a typed word matches a catalog word, 0..1: exact 1; a prefix of 3+ letters 0.85
 * ("merin" → merino); one typo 0.8 for words of 4+ letters, two typos 0.65 for 8+; otherwise
 * trigram overlap when it is high. Numbers match only exactly.
 */
export function wordSimilarity(typed: string, known: string): number {
  if (typed === known) return 1;
  if (/^\p{N}+$/u.test(typed) || /^\p{N}+$/u.test(known)) return 0;
  if (typed.length >= 3 && known.startsWith(typed)) return 0.85;
  const shorter = Math.min(typed.length, known.length);
  if (shorter >= 4) {
    const d = editDistance(typed, known, 2);
    if (d === 1) return 0.8;
    if (d === 2 && shorter >= 7) return 0.65;
  }
  if (shorter >= 5) {
    const overlap = dice(trigrams(typed), trigrams(known));
    if (overlap >= 0.6) return 0.6 * overlap;
  }
  return 0;
}
