/**
 * Product search: case-insensitive and token-based over name, brand, category and tags (the
 * description counts a little), with price and category filters. Ranking: how many of the query's
 * words matched, then how well, then rating.
 *
 * A {@link ProductSearchIndex} holds the catalog's words in an inverted index (MiniSearch), so a
 * search looks up the products holding a query word (exactly, or as a prefix of 3 characters or
 * more) instead of normalising the whole catalog again. The store feeds it the current products
 * on every search (`sync`): a product whose text changed (the merchant edited it) is indexed
 * again, a removed one leaves, and prices, stock and ratings are always read from the products
 * passed, so the index never answers from a stale catalog.
 */

import MiniSearch from "minisearch";
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

/** The words of one product, per field, as the ranking reads them. */
type ProductWords = Record<Field, string[]>;

interface IndexedProduct {
  /** The latest product passed to `sync` (its price, stock and rating are the ones filtered). */
  product: Product;
  /** The text the words came from: when it changes, the product is indexed again. */
  text: string;
  words: ProductWords;
  categoryWords: ReadonlySet<string>;
}

/** What MiniSearch indexes of a product: its text fields (tags joined). */
interface IndexedDocument {
  id: string;
  name: string;
  brand: string;
  category: string;
  tags: string;
  description: string;
}

const FIELDS = Object.keys(WEIGHTS) as Field[];

/** A search index over a catalog that follows its changes; see the module comment. */
export class ProductSearchIndex {
  readonly #products = new Map<string, IndexedProduct>();
  readonly #index = new MiniSearch<IndexedDocument>({
    idField: "id",
    fields: FIELDS,
    // The same words as the ranking: normalised (case, accents, plurals) once, at indexing.
    tokenize: normalizeWords,
    processTerm: (term) => term,
  });

  /** The number of products indexed. */
  get size(): number {
    return this.#products.size;
  }

  /**
   * Makes the index hold exactly `products`: new and edited ones are (re)indexed, missing ones
   * removed; unchanged ones only take the passed object (current price, stock and rating).
   */
  sync(products: readonly Product[]): void {
    for (const product of products) {
      const text = textOf(product);
      const known = this.#products.get(product.id);
      if (known && known.text === text) {
        known.product = product;
        continue;
      }
      if (known) this.#index.discard(product.id);
      this.#index.add({
        id: product.id,
        name: product.name,
        brand: product.brand,
        category: product.category,
        tags: product.tags.join(" "),
        description: product.description,
      });
      const words = productWords(product);
      this.#products.set(product.id, {
        product,
        text,
        words,
        categoryWords: new Set(words.category),
      });
    }
    if (this.#products.size > products.length || products.length === 0) {
      const current = new Set(products.map((p) => p.id));
      for (const id of this.#products.keys()) {
        if (current.has(id)) continue;
        this.#index.discard(id);
        this.#products.delete(id);
      }
    }
  }

  /** The indexed products matching `query`, best first. */
  search(query: ProductQuery): Product[] {
    const words = queryWords(query.text ?? "");
    const categoryWords = query.category === undefined ? [] : normalizeWords(query.category);
    const limit = Math.max(0, Math.floor(query.limit ?? DEFAULT_SEARCH_LIMIT));
    const phrase = words.join(" ");
    let candidates: Iterable<IndexedProduct>;
    if (words.length === 0) {
      candidates = this.#products.values();
    } else {
      // Products holding a query word, exactly or (3 characters or more) as a word's prefix.
      const found = this.#index.search(words.join(" "), {
        tokenize: (text) => text.split(" "),
        processTerm: (term) => term,
        prefix: (term) => term.length >= 3,
        combineWith: "OR",
      });
      candidates = found.flatMap((result) => this.#products.get(result.id as string) ?? []);
    }
    const hits: { product: Product; matched: number; score: number }[] = [];
    for (const { product, words: fields, categoryWords: category } of candidates) {
      if (query.minPriceCents !== undefined && product.priceCents < query.minPriceCents) continue;
      if (query.maxPriceCents !== undefined && product.priceCents > query.maxPriceCents) continue;
      if (query.inStockOnly && product.stock <= 0) continue;
      if (categoryWords.length > 0 && !categoryWords.every((w) => category.has(w))) continue;
      if (words.length === 0) {
        hits.push({ product, matched: 0, score: 0 });
        continue;
      }
      let matched = 0;
      let score = 0;
      for (const word of words) {
        let wordScore = 0;
        for (const field of FIELDS) wordScore += fieldScore(word, fields[field], WEIGHTS[field]);
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
}

/**
 * The index behind {@link searchProducts}: one per process, kept in step with the products each
 * search is given (a store's whole catalog, usually the same one).
 */
const sharedIndex = new ProductSearchIndex();

/**
 * Returns the products of `products` matching `query`, best first. `products` is the whole
 * current catalog; the shared index follows it (see {@link ProductSearchIndex.sync}).
 */
export function searchProducts(products: readonly Product[], query: ProductQuery): Product[] {
  sharedIndex.sync(products);
  return sharedIndex.search(query);
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

/** The text a product's words come from (a change re-indexes it). */
function textOf(product: Product): string {
  return `${product.name}\u0000${product.brand}\u0000${product.category}\u0000${product.tags.join("\u0001")}\u0000${product.description}`;
}

function productWords(product: Product): ProductWords {
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
