/**
 * Which product a shopper means. An index over the catalog (built once): each product's name,
 * brand, category and tag words, singular and folded. A mention is scored word by word against
 * those words with typo tolerance (edit distance, prefixes, trigrams; Chinese product words are
 * first turned into the catalog's English ones), weighted by field (a name word counts more than
 * a tag), plus a little for covering the product's name. The result is honest about doubt:
 * `found` only when one product clearly wins, `ambiguous` when several are about as good (the
 * caller asks which), `none` below a floor (the caller says so and may offer the closest).
 */

import { generateCatalog, type Product } from "../domain/catalog.js";
import { foldText, singular, wordSimilarity, wordsOf } from "./text-match.js";
import { chineseToEnglish } from "./zh-lexicon.js";

/** What a mention resolved to. */
export type Resolution =
  | { kind: "found"; product: Product; score: number; unmatched: string[] }
  /** Several products match about equally well, best first (at most 4). */
  | { kind: "ambiguous"; candidates: Product[]; total: number; unmatched: string[] }
  /** Nothing matches well enough; `closest` when something matches a little. */
  | { kind: "none"; closest?: Product };

/** Options of {@link ProductIndex.resolve}. */
export interface ResolveOptions {
  /** Only these product ids are candidates (the cart, the products shown). */
  among?: readonly string[];
  /** Product ids the conversation is about (shown, in the cart): a small bonus breaks near-ties. */
  prefer?: readonly string[];
}

/** A product with its score for a mention. */
export interface ScoredProduct {
  product: Product;
  score: number;
  /** How many of the mention's words matched something of the product. */
  matched: number;
  /** The mention's words that matched nothing of the product. */
  unmatched: string[];
}

interface Field {
  words: readonly string[];
  weight: number;
}

interface Entry {
  product: Product;
  fields: readonly Field[];
  name: readonly string[];
}

/** Words of a mention that say nothing about which product. */
const NOISE = new Set(
  (
    "a an the my me your our this that these those it its them one ones some any please pls " +
    "pair pairs of for to in on at with and or plus also too just again item items thing things " +
    "product products unit units piece pieces size sizes color colour colors colours qty quantity " +
    "x i you we want would like need get got have has can could will cart basket order new " +
    "please thanks thank more another other same kind type model version"
  ).split(" "),
);

/** A match below this is not a match of that word. */
const WORD_FLOOR = 0.45;
/** Below this score a product is not what the shopper meant. */
const STRONG = 0.62;
/** Products within this of the best are "about as good". */
const TIE = 0.08;
/** Typed words whose similarities stay cached (a few MB at most). */
const MAX_CACHED_WORDS = 5_000;
/** Resolutions kept, by mention and options (a few hundred KB at most). */
const MAX_CACHED_RESOLUTIONS = 1_000;

/** The catalog index; see the module comment. */
export class ProductIndex {
  readonly #entries: Entry[];
  readonly #byId: Map<string, Product>;
  readonly #vocabulary: Set<string>;
  /**
   * Each typed word's similarity to the catalog's words (those above the floor): the vocabulary
   * is fixed, and shoppers type the same words again and again, so a word is compared with every
   * catalog word once, not once per turn. Bounded: emptied when full.
   */
  readonly #similarities = new Map<string, ReadonlyMap<string, number>>();
  /** The products holding each catalog word in a field: a mention scores only those. */
  readonly #entriesByWord = new Map<string, Entry[]>();
  /**
   * Each resolution by its mention and options: the script resolves a turn's mentions again at
   * every request of the turn (and some twice in one), and the index never changes, so the
   * answer is the same. Frozen, since callers share it. Bounded: emptied when full.
   */
  readonly #resolutions = new Map<string, Resolution>();

  constructor(products: readonly Product[]) {
    this.#entries = products.map((product) => ({
      product,
      name: wordsOf(product.name),
      fields: [
        { words: wordsOf(product.name), weight: 1 },
        { words: wordsOf(product.brand), weight: 0.9 },
        { words: wordsOf(product.category), weight: 0.75 },
        { words: product.tags.flatMap(wordsOf), weight: 0.6 },
      ],
    }));
    this.#byId = new Map(products.map((p) => [p.id, p]));
    this.#vocabulary = new Set(this.#entries.flatMap((e) => e.fields.flatMap((f) => f.words)));
    for (const entry of this.#entries) {
      for (const word of new Set(entry.fields.flatMap((f) => f.words))) {
        const holders = this.#entriesByWord.get(word);
        if (holders) holders.push(entry);
        else this.#entriesByWord.set(word, [entry]);
      }
    }
  }

  /** A product by id. */
  get(id: string): Product | undefined {
    return this.#byId.get(id);
  }

  /** Every product, in catalog order. */
  all(): Product[] {
    return this.#entries.map((e) => e.product);
  }

  /** True for a word of some product's name, brand, category or tags (singular, folded). */
  knows(word: string): boolean {
    return this.#vocabulary.has(singular(foldText(word)));
  }

  /** The words of a mention that can identify a product (Chinese product words in English). */
  mentionWords(text: string): string[] {
    return wordsOf(chineseToEnglish(text)).filter((w) => !NOISE.has(w) && !/^\p{N}+$/u.test(w));
  }

  /**
   * The mention with typos fixed against the catalog's words ("trial runers" → "trail runner"),
   * for a search tool that matches words exactly. Words it cannot place are kept.
   */
  correct(text: string): string {
    return foldText(chineseToEnglish(text))
      .split(/\s+/)
      .filter((w) => w !== "")
      .map((word) => {
        const bare = singular(word.replace(/[^\p{L}\p{N}-]/gu, ""));
        if (bare.length < 4 || this.#vocabulary.has(bare) || NOISE.has(bare)) return word;
        let best = word;
        let bestScore = 0.79;
        const plural = bare !== word.replace(/[^\p{L}\p{N}-]/gu, "");
        for (const known of this.#vocabulary) {
          const s = wordSimilarity(bare, known);
          if (s > bestScore) {
            best = known;
            bestScore = s;
          }
        }
        return plural && best !== word ? `${best}s` : best;
      })
      .join(" ");
  }

  /** Every candidate scored for a mention, best first (products matching no word left out). */
  score(text: string, options: ResolveOptions = {}): ScoredProduct[] {
    const words = this.mentionWords(text);
    if (words.length === 0) return [];
    const among = options.among ? new Set(options.among) : undefined;
    const prefer = new Set(options.prefer ?? []);
    // Each typed word against each catalog word once.
    const similarity = new Map<string, ReadonlyMap<string, number>>();
    for (const word of new Set(words)) similarity.set(word, this.#similarityRow(word));
    // A product holding none of the similar catalog words matches no word: it is left out.
    const candidates = new Set<Entry>();
    for (const row of similarity.values()) {
      for (const known of row.keys()) {
        for (const entry of this.#entriesByWord.get(known) ?? []) candidates.add(entry);
      }
    }
    const scored: ScoredProduct[] = [];
    for (const entry of this.#entries) {
      if (!candidates.has(entry)) continue;
      if (among && !among.has(entry.product.id)) continue;
      let sum = 0;
      let matched = 0;
      const unmatched: string[] = [];
      const covered = new Set<string>();
      for (const word of words) {
        const row = similarity.get(word)!;
        let best = 0;
        for (const field of entry.fields) {
          for (const known of field.words) {
            const s = (row.get(known) ?? 0) * field.weight;
            if (s > best) best = s;
            if (field.weight === 1 && (row.get(known) ?? 0) >= 0.8) covered.add(known);
          }
        }
        if (best > 0) matched++;
        else unmatched.push(word);
        sum += best;
      }
      if (matched === 0) continue;
      const coverage = covered.size / Math.max(1, new Set(entry.name).size);
      const bonus = prefer.has(entry.product.id) ? 0.05 : 0;
      scored.push({
        product: entry.product,
        score: sum / words.length + 0.08 * coverage + bonus,
        matched,
        unmatched,
      });
    }
    return scored.sort(
      (a, b) =>
        b.score - a.score ||
        b.product.rating - a.product.rating ||
        a.product.id.localeCompare(b.product.id),
    );
  }

  /** The catalog words `word` is similar to (at least the floor), and how much; cached. */
  #similarityRow(word: string): ReadonlyMap<string, number> {
    const cached = this.#similarities.get(word);
    if (cached) return cached;
    const row = new Map<string, number>();
    for (const known of this.#vocabulary) {
      const s = wordSimilarity(word, known);
      if (s >= WORD_FLOOR) row.set(known, s);
    }
    if (this.#similarities.size >= MAX_CACHED_WORDS) this.#similarities.clear();
    this.#similarities.set(word, row);
    return row;
  }

  /** The one product a mention means, or why there is not one; see {@link Resolution}. Frozen. */
  resolve(text: string, options: ResolveOptions = {}): Resolution {
    const key = JSON.stringify([text, options.among ?? null, options.prefer ?? []]);
    const known = this.#resolutions.get(key);
    if (known) return known;
    const resolution = frozen(this.#resolve(text, options));
    if (this.#resolutions.size >= MAX_CACHED_RESOLUTIONS) this.#resolutions.clear();
    this.#resolutions.set(key, resolution);
    return resolution;
  }

  #resolve(text: string, options: ResolveOptions): Resolution {
    const scored = this.score(text, options);
    const top = scored[0];
    if (!top || top.score < STRONG) {
      return top && top.score >= 0.3 ? { kind: "none", closest: top.product } : { kind: "none" };
    }
    let close = scored.filter((s) => s.score >= top.score - TIE);
    // Of near-equals, the one the conversation is about (shown, in the cart) is meant.
    const preferred = close.filter((s) => options.prefer?.includes(s.product.id));
    if (close.length > 1 && preferred.length === 1) close = preferred;
    const { unmatched } = close[0]!;
    if (close.length === 1)
      return { kind: "found", product: close[0]!.product, score: close[0]!.score, unmatched };
    return {
      kind: "ambiguous",
      candidates: close.slice(0, 4).map((s) => s.product),
      total: close.length,
      unmatched,
    };
  }

  /**
   * Every product a description covers ("trail shoes", "socks under the Northpeak brand"): each
   * of its words matches the product somewhere. Best first.
   */
  matchAll(text: string, options: ResolveOptions = {}): Product[] {
    const words = this.mentionWords(text);
    return this.score(text, options)
      .filter((s) => s.matched === words.length && s.score >= 0.55)
      .map((s) => s.product);
  }
}

/** `resolution` and its lists, frozen (the products are the catalog's, shared as they are). */
function frozen(resolution: Resolution): Resolution {
  if (resolution.kind === "found") Object.freeze(resolution.unmatched);
  if (resolution.kind === "ambiguous") {
    Object.freeze(resolution.unmatched);
    Object.freeze(resolution.candidates);
  }
  return Object.freeze(resolution);
}

let shared: ProductIndex | undefined;

/** The index of the shop's catalog, built on first use. */
export function catalogIndex(): ProductIndex {
  shared ??= new ProductIndex(generateCatalog());
  return shared;
}
