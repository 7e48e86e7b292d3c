/**
 * What a search's cards may show: only products that meet every constraint the request said (its
 * category, its attributes such as "waterproof", the kind of product it names), and, for "the
 * cheapest …" or "the best reviewed …", the one product that is it. Facts come from the search
 * results (their prices and ratings), never from memory.
 */

import type { ConversationState, ToolExchange } from "./conversation-state.js";
import { readAttributes, readSuperlative, type Superlative } from "./reading/read-slots.js";
import { productOf } from "./resolve-item.js";
import { foldText } from "./text-match.js";
import { chineseToEnglish } from "./zh-lexicon.js";

/** One product a search result lists. */
export interface ResultLine {
  readonly id: string;
  readonly cents: number;
  readonly rating: number;
}

/** The products a search result lists, with their price and rating, in its order. */
export function resultLines(content: string): ResultLine[] {
  return [...content.matchAll(/\((p-\d{4})\)[^\n]*?, (\$[\d,]+\.\d{2})[^\n]*?rated ([\d.]+)/g)].map(
    (m) => ({
      id: m[1]!,
      cents: Math.round(Number(m[2]!.replace(/[$,]/g, "")) * 100),
      rating: Number(m[3]),
    }),
  );
}

/** The attributes the request asks for ("waterproof", "trail"), in English tag words. */
export function askedAttributes(state: ConversationState): string[] {
  return readAttributes(chineseToEnglish(state.userText));
}

/** The results that meet every constraint of the request and the search. */
export function fittingResults(
  state: ConversationState,
  search: ToolExchange,
  lines: readonly ResultLine[],
): ResultLine[] {
  const attributes = askedAttributes(state);
  const category = typeof search.input.category === "string" ? search.input.category : undefined;
  const has = (id: string, word: string) => {
    const p = productOf(id);
    const name = foldText(state.names.get(id) ?? p?.name ?? "");
    return (p?.tags.includes(word) ?? false) || name.split(" ").includes(word);
  };
  const fitting = lines.filter((r) => {
    const p = productOf(r.id);
    if (!p) return true;
    if (category !== undefined && p.category !== category) return false;
    return attributes.every((a) => has(r.id, a));
  });
  // "the cheapest tent": of the tents, not of everything in the tents' category.
  const query = typeof search.input.query === "string" ? foldText(search.input.query) : "";
  const noun = query.split(" ").at(-1)?.replace(/s$/, "") ?? "";
  if (readSuperlative(state.userText) && noun.length > 2) {
    const kind = fitting.filter((r) => has(r.id, noun) || has(r.id, `${noun}s`));
    if (kind.length > 0) return kind;
  }
  return fitting;
}

/** The one product a superlative asks for, among the fitting results. */
export function bestOf(best: Superlative, lines: readonly ResultLine[]): ResultLine | undefined {
  return [...lines].sort((a, b) =>
    best === "cheapest" ? a.cents - b.cents : b.rating - a.rating || a.cents - b.cents,
  )[0];
}

/**
 * "The cheapest": the search tool returns at most a page of results in its own order, so when a
 * page came back full, the next search asks below the cheapest price seen until none is cheaper.
 * Returns the input of that next search, or undefined when the cheapest is known.
 */
export function cheaperPage(
  state: ConversationState,
  searches: readonly ToolExchange[],
): Record<string, unknown> | undefined {
  const last = searches.at(-1);
  if (!last || searches.length >= 5) return undefined;
  const limit = typeof last.input.limit === "number" ? last.input.limit : 8;
  const lines = fittingResults(state, last, resultLines(last.content));
  if (resultLines(last.content).length < limit || lines.length === 0) return undefined;
  const cheapest = Math.min(...lines.map((l) => l.cents));
  return { ...last.input, maxPrice: (cheapest - 1) / 100 };
}
