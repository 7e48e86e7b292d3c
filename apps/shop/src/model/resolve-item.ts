/**
 * Which product a mention means: by words against the catalog (or only the cart), or by reference
 * against what the conversation is about, what was shown last and the cart. When it is not sure
 * it says so in a question, never a guess. Also the size and colour a product still needs.
 */

import { chooseVariant, missingVariant } from "../domain/cart.js";
import type { Product } from "../domain/catalog.js";
import type { ConversationState } from "./conversation-state.js";
import { catalogIndex, type Resolution } from "./product-resolver.js";
import type { Ref } from "./read-mention.js";
import { listOf, pick, type VariantAsk, variantQuestion } from "./replies.js";
import { foldText } from "./text-match.js";
import { chineseColorName } from "./zh-lexicon.js";

/** The product a mention means, or what to say instead of acting. */
export type Target = { ok: true; product: Product } | { ok: false; say: string };

/** The catalog the script knows. */
export const index = () => catalogIndex();
/** A catalog product by id. */
export const productOf = (id: string) => index().get(id);
/** The names of the products with these ids. */
export const named = (ids: readonly string[]) =>
  ids.flatMap((id) => (productOf(id) ? [productOf(id)!.name] : []));

/** Current price in cents: the newest tool result's, else the catalog's. */
export function priceOf(state: ConversationState, id: string): number {
  return state.prices.get(id) ?? productOf(id)?.priceCents ?? Number.POSITIVE_INFINITY;
}

/**
 * The one product an item means. `cart`: only what is in the cart; `cart-first`: the cart,
 * then the catalog; `catalog`: the catalog, preferring what the conversation is about.
 */
export function resolveItem(
  item: { query: string; ref?: Ref; id?: string },
  state: ConversationState,
  scope: "catalog" | "cart" | "cart-first",
  among?: readonly string[],
): Target {
  const target = resolveMention(item, state, scope, among);
  // An answer to "which one?" stands for the mention that needed it.
  if (!target.ok && state.answer) {
    const product = productOf(state.answer);
    if (product) return { ok: true, product };
  }
  return target;
}

function resolveMention(
  item: { query: string; ref?: Ref; id?: string },
  state: ConversationState,
  scope: "catalog" | "cart" | "cart-first",
  among: readonly string[] | undefined,
): Target {
  const { zh } = state;
  const cartIds = (state.cart ?? []).map((l) => l.productId);
  const found = (id: string | undefined): Target | undefined => {
    const product = id ? productOf(id) : undefined;
    return product ? { ok: true, product } : undefined;
  };
  const known = found(item.id);
  if (known) return known;
  const ref = item.ref ?? (item.query === "" ? { kind: "it" as const } : undefined);
  if (ref?.kind === "one") {
    // "remove one": only when a single product can be meant.
    const pool = [...new Set(scope === "catalog" ? state.shown : cartIds)];
    if (pool.length === 1) return found(pool[0])!;
    if (pool.length === 0 && scope !== "cart")
      return resolveMention({ query: "", ref: { kind: "it" } }, state, scope, among);
    if (scope === "cart" && state.cart?.length === 0)
      return { ok: false, say: pick(zh, "Your cart is empty.", "您的购物车是空的。") };
    return { ok: false, say: whichOf(named([...new Set(pool)]), zh) };
  }
  if (ref?.kind === "it" || ref?.kind === "them") {
    const focusInCart = state.focus && cartIds.includes(state.focus) ? state.focus : undefined;
    const candidates =
      scope === "cart"
        ? [focusInCart, cartIds.length === 1 ? cartIds[0] : undefined]
        : [
            state.focus,
            state.shown.length === 1 ? state.shown[0] : undefined,
            cartIds.length === 1 ? cartIds[0] : undefined,
          ];
    const target = found(candidates.find((id) => id !== undefined));
    if (target) return target;
    if (scope === "cart") {
      if (state.cart?.length === 0)
        return { ok: false, say: pick(zh, "Your cart is empty.", "您的购物车是空的。") };
      return { ok: false, say: whichOf(named(cartIds), zh) };
    }
    if (state.shown.length >= 2) return { ok: false, say: whichOf(named(state.shown), zh) };
    return {
      ok: false,
      say: pick(
        zh,
        "Which product do you mean? Tell me its name, or ask me to show you some.",
        "您指的是哪件商品？请告诉我商品名称，或者让我先推荐几款。",
      ),
    };
  }
  if (ref?.kind === "pick") {
    // "remove the second one" counts the cart's lines; "add the second one" the products shown.
    let pool =
      scope === "cart" && cartIds.length > 0
        ? cartIds
        : state.shown.length > 0
          ? state.shown
          : scope === "catalog"
            ? []
            : cartIds;
    if (item.query !== "") {
      const among = index().matchAll(item.query, { among: pool });
      pool = (among.length > 0 ? among : index().matchAll(item.query)).map((p) => p.id);
    }
    if (pool.length === 0)
      return {
        ok: false,
        say: pick(
          zh,
          "Which ones should I choose from? Ask me to show you some products first.",
          "要从哪些商品里选？可以先让我展示几款。",
        ),
      };
    const sorted =
      ref.by === "cheapest"
        ? [...pool].sort((a, b) => priceOf(state, a) - priceOf(state, b))
        : ref.by === "priciest"
          ? [...pool].sort((a, b) => priceOf(state, b) - priceOf(state, a))
          : ref.by === "best-rated"
            ? [...pool].sort((a, b) => (productOf(b)?.rating ?? 0) - (productOf(a)?.rating ?? 0))
            : pool;
    const at = ref.by === "index" ? (ref.index ?? 0) : 0;
    const target = found(at < 0 ? sorted.at(at) : sorted[at]);
    return target ?? { ok: false, say: whichOf(named(pool), zh) };
  }
  if (scope !== "catalog" && cartIds.length > 0) {
    const inCart = index().resolve(item.query, { among: cartIds });
    if (inCart.kind === "found") return { ok: true, product: inCart.product };
    if (inCart.kind === "ambiguous")
      return {
        ok: false,
        say: whichOf(
          inCart.candidates.map((p) => p.name),
          zh,
        ),
      };
  }
  if (scope === "cart") {
    if (cartIds.length === 0)
      return { ok: false, say: pick(zh, "Your cart is empty.", "您的购物车是空的。") };
    return {
      ok: false,
      say: pick(
        zh,
        `There's no "${item.query}" in your cart; it holds ${listOf(named(cartIds), false)}.`,
        `购物车里没有「${item.query}」，现在有：${listOf(named(cartIds), true)}。`,
      ),
    };
  }
  // "the insulated one" after a list: the one among those shown, when the words pick one there.
  if (!among && state.shown.length > 1) {
    const shown = index().resolve(item.query, { among: state.shown });
    if (shown.kind === "found" && shown.unmatched.length === 0)
      return { ok: true, product: shown.product };
  }
  const resolution = index().resolve(item.query, {
    ...(among ? { among } : {}),
    prefer: [...state.shown, ...cartIds, ...state.seen.slice(0, 12)],
  });
  if (resolution.kind === "found") return { ok: true, product: resolution.product };
  // A product the merchant renamed: its current name, as a tool result gave it.
  const renamed = renamedMatch(item.query, state);
  if (renamed) return { ok: true, product: renamed };
  return { ok: false, say: doubt(item.query, resolution, zh) };
}

/** The one product whose current name (from tool results, not the catalog's) has every word said. */
function renamedMatch(query: string, state: ConversationState): Product | undefined {
  const words = foldText(query)
    .split(" ")
    .filter((w) => w.length > 1 && !/^(the|a|an|of|in|size|please|pls)$/.test(w));
  if (words.length === 0) return undefined;
  const hits = [...state.names].filter(([id, name]) => {
    const folded = foldText(name);
    return (
      productOf(id) !== undefined &&
      folded !== foldText(productOf(id)!.name) &&
      words.every((w) => folded.split(" ").some((n) => n === w || n === `${w}s` || w === `${n}s`))
    );
  });
  return hits.length === 1 ? productOf(hits[0]![0]) : undefined;
}

/** Whether an item names something the catalog the script knows has no good match for. */
export function unknownToCatalog(item: { query: string; ref?: Ref; id?: string }): boolean {
  return (
    item.id === undefined &&
    item.ref === undefined &&
    item.query.trim() !== "" &&
    index().resolve(item.query).kind === "none"
  );
}

/** "Which one do you mean: the A or the B?" */
export function whichOf(names: readonly string[], zh: boolean): string {
  const few = names.slice(0, 3);
  return pick(
    zh,
    `Which one do you mean: ${few
      .map((n) => `the ${n}`)
      .join(few.length > 2 ? ", " : " or ")
      .replace(/, (the [^,]+)$/, ", or $1")}?`,
    `您指的是哪一款：${few.join("、").replace(/、([^、]+)$/, "还是$1")}？`,
  );
}

/** What to say when a mention is ambiguous or not found: never act on it. */
function doubt(query: string, r: Exclude<Resolution, { kind: "found" }>, zh: boolean): string {
  if (r.kind === "none") {
    return r.closest
      ? pick(
          zh,
          `I couldn't find "${query}" in the catalog. The closest is the ${r.closest.name}; is that the one you mean?`,
          `目录里没有找到「${query}」。最接近的是 ${r.closest.name}，是这款吗？`,
        )
      : pick(
          zh,
          `I couldn't find "${query}" in the catalog. Could you try other words?`,
          `目录里没有找到「${query}」，换个说法试试？`,
        );
  }
  const names = r.candidates.map((p) => p.name);
  if (r.unmatched.length > 0)
    return pick(
      zh,
      `I couldn't find "${query}" exactly. Did you mean ${listOf(
        names.slice(0, 3).map((n) => `the ${n}`),
        false,
      ).replace(/ and ([^,]+)$/, " or $1")}?`,
      `没有找到完全符合「${query}」的商品。您是指 ${names
        .slice(0, 3)
        .join("、")
        .replace(/、([^、]+)$/, "还是$1")} 吗？`,
    );
  if (r.total > 3)
    return pick(
      zh,
      `"${query}" fits ${r.total} products, for example the ${listOf(names.slice(0, 3), false)}. Which one do you mean? (Say "show me ${query}" to see them all.)`,
      `符合「${query}」的商品有 ${r.total} 款，例如 ${listOf(names.slice(0, 3), true)}。您要哪一款？（说「推荐${query}」可以查看全部。）`,
    );
  return whichOf(names, zh);
}

/** The product's own size and colour names for what was asked, when it has them. */
export function variantFor(product: Product, item: { size?: string; color?: string }) {
  const chosen = chooseVariant(product, item);
  if (!chosen.ok) return { valid: false, size: item.size, color: item.color };
  return { valid: true, size: chosen.size, color: chosen.color };
}

/** " (size US 10, Volt)" / "（尺码 US 10，荧光绿）", or "" when neither is set. */
export function variantWords(v: { size?: string; color?: string }, zh: boolean): string {
  const parts = [
    v.size ? pick(zh, `size ${v.size}`, `尺码 ${v.size}`) : "",
    v.color ? (zh ? chineseColorName(v.color) : v.color) : "",
  ].filter((p) => p !== "");
  if (parts.length === 0) return "";
  return zh ? `（${parts.join("，")}）` : ` (${parts.join(", ")})`;
}

/** What a product still needs chosen for an item asking for it (none when it names a bad one). */
export function missingFor(
  product: Product,
  item: { size?: string; color?: string },
): VariantAsk[] {
  const v = variantFor(product, item);
  if (!v.valid) return [];
  const color = v.color ?? (product.colors.length === 1 ? product.colors[0] : undefined);
  const missing = missingVariant(product, { size: v.size, color });
  if (missing.length === 0) return [];
  return [{ name: product.name, missing, sizes: product.sizes, colors: product.colors }];
}

/**
 * What to ask before adding a product for an item, or undefined when it can be added: a size or
 * colour it does not come in ("doesn't come in Navy", then which one), or one it needs and the
 * item does not name. A size given for a one-size product is ignored.
 */
export function itemQuestion(
  product: Product,
  item: { size?: string; color?: string },
  zh: boolean,
): string | undefined {
  const asked = { ...item };
  if (product.sizes.length === 0) delete asked.size;
  const chosen = chooseVariant(product, asked);
  if (chosen.ok) {
    const asks = missingFor(product, asked);
    return asks.length > 0 ? variantQuestion(asks, zh) : undefined;
  }
  const badSize = asked.size !== undefined && !chooseVariant(product, { size: asked.size }).ok;
  const badColor = asked.color !== undefined && !chooseVariant(product, { color: asked.color }).ok;
  const keep = {
    ...(badSize ? {} : asked.size !== undefined ? { size: asked.size } : {}),
    ...(badColor ? {} : asked.color !== undefined ? { color: asked.color } : {}),
  };
  const v = variantFor(product, keep);
  const missing = missingVariant(product, {
    size: v.size,
    color: v.color ?? (product.colors.length === 1 ? product.colors[0] : undefined),
  });
  const not = badSize
    ? pick(
        zh,
        `The ${product.name} doesn't come in size ${asked.size}.`,
        `${product.name} 没有 ${asked.size} 码。`,
      )
    : pick(
        zh,
        `The ${product.name} doesn't come in ${asked.color}.`,
        `${product.name} 没有${asked.color}。`,
      );
  const ask =
    missing.length > 0
      ? variantQuestion(
          [{ name: product.name, missing, sizes: product.sizes, colors: product.colors }],
          zh,
        )
      : pick(
          zh,
          `It comes in ${product.colors.join(", ")}.`,
          `可选颜色：${product.colors.map(chineseColorName).join("、")}。`,
        );
  return `${not}${zh ? "" : " "}${ask}`;
}
