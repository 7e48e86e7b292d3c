/**
 * Product search: case-insensitive and token-based over name, brand, category and tags (the
 * description counts a little), with price and category filters. Ranking: how many of the query's
 * words matched, then how well, then rating. Pure; the store feeds it the current products.
 */

import type { Product } from "./catalog.js";

/** What a shopper (or the model on their behalf) searches for. */
export interface ProductQuery {
  /** Free text; empty or absent lists every product that passes the filters, best rated first. */
  text?: string;
  /** Category filter: every word must occur in the category (`"shoes"` matches Running Shoes). */
  category?: string;
  /** Lowest price, inclusive, in cents. */
  minPriceCents?: number;
  /** Highest price, inclusive, in cents. */
  maxPriceCents?: number;
  /** Leave out sold-out products. */
  inStockOnly?: boolean;
  /** At most this many results (default {@link DEFAULT_SEARCH_LIMIT}). */
  limit?: number;
}

/** The number of results when the query sets no limit. */
export const DEFAULT_SEARCH_LIMIT = 20;

/** Words that carry no meaning in a product search ("shoes for running under 100"). */
const STOP_WORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "and",
  "any",
  "for",
  "i",
  "in",
  "me",
  "my",
  "of",
  "on",
  "or",
  "some",
  "the",
  "to",
  "with",
  "under",
  "over",
  "below",
  "above",
  "than",
  "less",
  "more",
  "cheap",
  "show",
  "find",
  "want",
  "need",
  "looking",
]);

/** Field weights: an exact word hit, and a prefix hit ("run" → "running"). */
const WEIGHTS = {
  name: [6, 3],
  brand: [5, 2],
  category: [4, 2],
  tags: [3, 1],
  description: [1, 0],
} as const;

type Field = keyof typeof WEIGHTS;

/** Returns the products matching `query`, best first. */
export function searchProducts(products: readonly Product[], query: ProductQuery): Product[] {
  const words = queryWords(query.text ?? "");
  const categoryWords = query.category === undefined ? [] : normalizeWords(query.category);
  const limit = Math.max(0, Math.floor(query.limit ?? DEFAULT_SEARCH_LIMIT));
  const phrase = words.join(" ");
  const hits: { product: Product; matched: number; score: number }[] = [];
  for (const product of products) {
    if (query.minPriceCents !== undefined && product.priceCents < query.minPriceCents) continue;
    if (query.maxPriceCents !== undefined && product.priceCents > query.maxPriceCents) continue;
    if (query.inStockOnly && product.stock <= 0) continue;
    if (categoryWords.length > 0) {
      const category = new Set(normalizeWords(product.category));
      if (!categoryWords.every((w) => category.has(w))) continue;
    }
    if (words.length === 0) {
      hits.push({ product, matched: 0, score: 0 });
      continue;
    }
    const fields = productFields(product);
    let matched = 0;
    let score = 0;
    for (const word of words) {
      let wordScore = 0;
      for (const field of Object.keys(WEIGHTS) as Field[]) {
        wordScore += fieldScore(word, fields[field], WEIGHTS[field]);
      }
      if (wordScore > 0) matched++;
      score += wordScore;
    }
    if (matched === 0) continue;
    // The whole query inside the name ("aero trail") beats the same words scattered around.
    if (words.length > 1 && fields.name.join(" ").includes(phrase)) score += 10;
    hits.push({ product, matched, score });
  }
  hits.sort(
    (a, b) =>
      b.matched - a.matched ||
      b.score - a.score ||
      b.product.rating - a.product.rating ||
      a.product.id.localeCompare(b.product.id),
  );
  return hits.slice(0, limit).map((hit) => hit.product);
}

/**
 * Splits text into lower-case words without accents, and reduces plurals so that "socks" finds
 * "sock" and "runners" finds "runner".
 */
export function normalizeWords(text: string): string[] {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0)
    .map(singular);
}

function queryWords(text: string): string[] {
  // Numbers in free text are prices or sizes ("under 100", "size 10"); filters handle those.
  return normalizeWords(text).filter((w) => !STOP_WORDS.has(w) && !/^\p{N}+$/u.test(w));
}

function singular(word: string): string {
  if (word.length <= 3 || word.endsWith("ss")) return word;
  if (word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.endsWith("s")) return word.slice(0, -1);
  return word;
}

function productFields(product: Product): Record<Field, string[]> {
  return {
    name: normalizeWords(product.name),
    brand: normalizeWords(product.brand),
    category: normalizeWords(product.category),
    tags: product.tags.flatMap(normalizeWords),
    description: normalizeWords(product.description),
  };
}

function fieldScore(
  word: string,
  fieldWords: readonly string[],
  [exact, prefix]: readonly [number, number],
): number {
  if (fieldWords.includes(word)) return exact;
  // Short prefixes ("a", "tr") would match almost everything.
  if (word.length >= 3 && fieldWords.some((w) => w.startsWith(word))) return prefix;
  return 0;
}
