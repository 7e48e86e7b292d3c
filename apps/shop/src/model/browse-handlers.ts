/**
 * The shopper's looking: search (by words, price, "cheaper ones"), compare, a product's details
 * or availability, and the cards shown after a search.
 */

import type { SimScript } from "overlap-sim";
import { formatCents } from "../domain/money.js";
import { type ConversationState, type ToolExchange, turnExchanges } from "./conversation-state.js";
import { readAttributes, readSuperlative, type Superlative } from "./reading/read-slots.js";
import { call, errorSentence, pick, say, text } from "./replies.js";
import { index, priceOf, productOf, resolveItem } from "./resolve-item.js";
import {
  askedAttributes,
  bestOf,
  cheaperPage,
  fittingResults,
  type ResultLine,
  resultLines,
} from "./search-constraints.js";
import type { IntentOf } from "./shopper-handler.js";
import { foldText } from "./text-match.js";
import { chineseTermsIn, chineseToEnglish } from "./zh-lexicon.js";

/** A catalog search, or the one product the words name. */
export function search(state: ConversationState, intent: IntentOf<"search">): SimScript {
  const { zh } = state;
  let query = intent.query === "" ? "" : index().correct(intent.query);
  const input: Record<string, unknown> = { limit: 6 };
  if (intent.maxPriceCents !== undefined) input.maxPrice = intent.maxPriceCents / 100;
  if (intent.minPriceCents !== undefined) input.minPrice = intent.minPriceCents / 100;
  let intro = pick(zh, "Let me look that up.", "我来查一下。");
  if (intent.cheaper) {
    const base = state.focus ? [state.focus] : state.shown;
    if (base.length === 0 && query === "")
      return say(
        pick(
          zh,
          'Cheaper than what? Tell me what you\'re looking for, e.g. "trail shoes under 100".',
          "比哪款便宜？请告诉我您想找什么，例如「100元以下的越野跑鞋」。",
        ),
      );
    if (base.length > 0) {
      const cheapest = Math.min(...base.map((id) => priceOf(state, id)));
      if (Number.isFinite(cheapest) && input.maxPrice === undefined)
        input.maxPrice = Math.max(0.01, (cheapest - 1) / 100);
      if (query === "") query = state.searches[0]?.query || (productOf(base[0]!)?.category ?? "");
      // Cheaper within the same kind of product, not anything that shares a word.
      const category = productOf(base[0]!)?.category;
      if (category) input.category = category;
      intro = pick(
        zh,
        `Looking for ${query || "products"} under ${formatCents(cheapest)}.`,
        `我找一下低于 ${formatCents(cheapest)} 的${zhLabel(state) ? `「${zhLabel(state)}」` : "同类商品"}。`,
      );
    }
  } else if (query !== "" && input.maxPrice === undefined && input.minPrice === undefined) {
    // "show me the swift road racer" names one product: its card, not a list of look-alikes.
    const named = index().resolve(query);
    // Only when the words name it ("swift"), not only describe it ("waterproof trail shoes").
    const model = named.kind === "found" ? named.product.name.split(" ")[0]!.toLowerCase() : "";
    if (named.kind === "found" && named.unmatched.length === 0 && query.includes(model))
      return {
        blocks: [
          text(pick(zh, `Here is the ${named.product.name}.`, `这是 ${named.product.name}。`)),
          call("show_products", { title: named.product.name, productIds: [named.product.id] }),
        ],
      };
  } else if (query === "" && state.searches[0]) {
    // "between 50 and 80" after a search narrows that search.
    query = state.searches[0].query;
  }
  if (intent.category !== undefined) input.category = intent.category;
  // A constraint the cards must honour, or one product to pick: more results to choose from.
  if (intent.best !== undefined || readAttributes(chineseToEnglish(state.userText)).length > 0)
    input.limit = 20;
  if (input.category === undefined && query !== "") {
    // Words that describe one category ("trail shoes", "rain jackets") search within it.
    const categories = new Set(
      index()
        .matchAll(query)
        .map((p) => p.category),
    );
    if (categories.size === 1) input.category = [...categories][0];
  }
  return { blocks: [text(intro), call("search_products", { query, ...input })] };
}

/** The products named, or shown last, side by side. */
export function compare(state: ConversationState, intent: IntentOf<"compare">): SimScript {
  const { zh } = state;
  let ids: string[];
  if (intent.items && intent.items.length >= 2) {
    const targets = intent.items.map((item) => resolveItem(item, state, "catalog"));
    const problems = targets.flatMap((t) => (t.ok ? [] : [t.say]));
    if (problems.length > 0) return say(problems.join(" "));
    ids = [...new Set(targets.map((t) => (t.ok ? t.product.id : "")))];
  } else {
    ids = state.shown.slice(0, Math.max(2, Math.min(4, intent.count)));
  }
  if (ids.length < 2)
    return say(
      pick(
        zh,
        "Which products should I compare? Name two, or ask me to show some first.",
        "要比较哪些商品？请说出两款商品的名称，或者先让我展示几款。",
      ),
    );
  return {
    blocks: [
      text(pick(zh, "Here is a side-by-side comparison.", "下面是对比：")),
      call("compare_products", { productIds: ids.slice(0, 4) }),
    ],
  };
}

/** After a search: show the products found as cards, or say nothing matched. */
export function searchFollowUp(state: ConversationState, search: ToolExchange): SimScript {
  const { zh } = state;
  const query = typeof search.input.query === "string" ? search.input.query : "";
  if (search.isError) return say(errorSentence(search, zh));
  const listed = resultLines(search.content);
  // Every constraint said is honoured in what is shown: a product missing one is left out.
  const fitting = fittingResults(state, search, listed);
  const attributes = askedAttributes(state);
  const category = typeof search.input.category === "string" ? search.input.category : undefined;
  const best = readSuperlative(state.userText);
  if (best) {
    const searches = turnExchanges(state).filter((x) => x.name === "search_products" && !x.isError);
    const next = best === "cheapest" ? cheaperPage(state, searches) : undefined;
    if (next) return { blocks: [call("search_products", next)] };
    const all = searches.flatMap((x) => fittingResults(state, x, resultLines(x.content)));
    const top = bestOf(best, all);
    if (top) return bestAnswer(state, best, top);
  }
  if (listed.length > 0 && fitting.length === 0)
    return say(
      pick(
        zh,
        `Nothing in the catalog is ${[...attributes, category?.toLowerCase() ?? "a match"].join(" ")}${priceWords(search, false)}, so I'm not showing anything that misses what you asked for. Want me to widen the price range?`,
        `目录里没有同时满足您所有条件${priceWords(search, true)}的商品，所以不展示不符合的商品。要放宽价格范围吗？`,
      ),
    );
  const found = fitting.map((r) => r.id).slice(0, 6);
  // "your best rated running shoes": the results in that order.
  const ids = /\b(best|top|highest)[ -]rated|评分(最)?高/.test(foldText(state.userText))
    ? [...found].sort((a, b) => (productOf(b)?.rating ?? 0) - (productOf(a)?.rating ?? 0))
    : found;
  if (ids.length === 0)
    return say(
      pick(
        zh,
        `Nothing in the catalog matches${query ? ` "${query}"` : ""}${priceWords(search, false)}. Try other words or a wider price range?`,
        `目录里没有符合${zhLabel(state) ? `「${zhLabel(state)}」` : "您要求"}${priceWords(search, true)}的商品，换个说法或放宽价格试试？`,
      ),
    );
  // A Chinese title names what the shopper asked for in their words, not the search's English.
  const title = pick(
    zh,
    `Results for "${query || "everything"}"${priceWords(search, false)}`,
    `「${zhLabel(state) || "全部商品"}」${priceWords(search, true)}的搜索结果`,
  ).slice(0, 120);
  return { blocks: [call("show_products", { title, productIds: ids })] };
}

/** "The cheapest is the X, at $Y", with its card. */
function bestAnswer(state: ConversationState, best: Superlative, top: ResultLine): SimScript {
  const { zh } = state;
  const name = state.names.get(top.id) ?? productOf(top.id)?.name ?? top.id;
  return {
    blocks: [
      text(
        best === "cheapest"
          ? pick(
              zh,
              `The cheapest is the ${name}, at ${formatCents(top.cents)}.`,
              `最便宜的是 ${name}，${formatCents(top.cents)}。`,
            )
          : pick(
              zh,
              `The best reviewed is the ${name}, rated ${top.rating}/5.`,
              `评分最高的是 ${name}，${top.rating}/5 分。`,
            ),
      ),
      call("show_products", { title: name, productIds: [top.id] }),
    ],
  };
}

/** The Chinese product words of the request ("无线耳机" → "耳机"), "" when it has none. */
function zhLabel(state: ConversationState): string {
  return chineseTermsIn(state.userText).join("、");
}

function priceWords(search: ToolExchange, zh: boolean): string {
  const { maxPrice, minPrice } = search.input as { maxPrice?: number; minPrice?: number };
  const $ = (n: number) => formatCents(Math.round(n * 100));
  if (maxPrice !== undefined && minPrice !== undefined)
    return pick(
      zh,
      ` between ${$(minPrice)} and ${$(maxPrice)}`,
      `（${$(minPrice)} 到 ${$(maxPrice)}）`,
    );
  if (maxPrice !== undefined) return pick(zh, ` up to ${$(maxPrice)}`, `（${$(maxPrice)} 以内）`);
  if (minPrice !== undefined) return pick(zh, ` from ${$(minPrice)}`, `（${$(minPrice)} 以上）`);
  return "";
}
/** A product's details or availability, from get_product. */
export function lookUpProduct(
  state: ConversationState,
  intent: IntentOf<"details" | "availability">,
): SimScript {
  const { zh } = state;
  const target = resolveItem(intent, state, "catalog");
  if (!target.ok) return say(target.say);
  return {
    blocks: [
      text(
        pick(zh, `Let me look up the ${target.product.name}.`, `我查一下 ${target.product.name}。`),
      ),
      call("get_product", { productId: target.product.id }),
    ],
  };
}
