/**
 * The reading policy: what a shopper's request asks for, from the slots its words fill (a
 * quantity, a size, a colour, a price bound, a category, positions in the list shown, a product
 * mention) and the dialogue state carried from earlier messages. It runs before the older
 * phrase-by-phrase reading (`shopper-intent.ts`) and refines or replaces its result; the order of
 * its steps is part of its meaning and is pinned by read-request.test.ts.
 */

import { chooseVariant } from "../../domain/cart.js";
import { type ConversationState, turnExchanges } from "../conversation-state.js";
import { isNegated, isQuestion, prepare, stripFiller } from "../intent-words.js";
import { catalogIndex } from "../product-resolver.js";
import { type NamedItem, namedItems } from "../read-mention.js";
import { readVariant, withoutVariant } from "../read-variant.js";
import { pick } from "../replies.js";
import { productOf, resolveItem } from "../resolve-item.js";
import type { ShopperIntent } from "../shopper-intents.js";
import { chineseToEnglish } from "../zh-lexicon.js";
import { type CarriedSlots, carriedSlots } from "./dialogue-state.js";
import { quantityQuestion, readQuantity } from "./read-quantity.js";
import {
  readAnyColor,
  readCategory,
  readClearCart,
  readColor,
  readListPicks,
  readPreference,
  readSideBySide,
  readSize,
  readSizeFix,
  readSuperlative,
} from "./read-slots.js";

/** What the policy makes of a request: an intent for the handlers, or a reply instead of acting. */
export type Reading = { readonly intent: ShopperIntent } | { readonly reply: string };

/** The kinds of request that change a cart line's quantity. */
const QUANTITY_KINDS = new Set(["add", "add-shown", "set-quantity", "change-quantity"]);
/** Words that ask for something to be put in the cart (or a line changed). */
const CART_VERB =
  /\b(add|put|throw|toss|grab|include|buy|purchase|get|want|need|like|take|order|make( it)?|change|set)\b|加|要|买|来|放|改成|换成/i;
/** Words that add another line whatever the cart holds. */
const EXPLICIT_ADD = /\b(add|put|another|more|also)\b|加入|加到|放进|再|也/i;
const TOTAL = /\b(sub)?total\b|how much (is that|altogether|in total)|总价|总共|合计|一共/i;

/**
 * The steps, in order. Each reads the request (and the older reading, `legacy`) and answers, or
 * passes (undefined) to the next. Exported for the test that pins the order.
 */
export const STEPS: ReadonlyArray<
  readonly [
    name: string,
    step: (s: ConversationState, legacy: ShopperIntent) => Reading | undefined,
  ]
> = [
  // A question for the merchant changes nothing: its numbers ("a discount for 20?") are not
  // quantities to check against the cart.
  ["a question for the merchant", merchantQuestion],
  ["quantity the cart cannot take", quantityGuard],
  ["empty the cart", clearCart],
  ["size corrected", sizeFix],
  ["a preference said", preference],
  ["positions of the list shown", listPicks],
  ["the cheapest or best-rated of a kind", superlative],
  ["another product with its variant", anotherProduct],
];

/** The policy's reading of the request, with what earlier messages said carried into it. */
export function readRequest(state: ConversationState, legacy: ShopperIntent): Reading {
  for (const [, step] of STEPS) {
    const reading = step(state, legacy);
    if (reading) return "intent" in reading ? { intent: carry(state, reading.intent) } : reading;
  }
  return { intent: carry(state, legacy) };
}

function quantityGuard(state: ConversationState, legacy: ShopperIntent): Reading | undefined {
  const q = readQuantity(state.userText);
  if (!q?.problem) return undefined;
  const cartChange = QUANTITY_KINDS.has(legacy.kind) || CART_VERB.test(state.userText);
  // "show me 2.5 litre bottles" is not a quantity; a question only gets an answer.
  if (!cartChange || (legacy.kind === "search" && !CART_VERB.test(state.userText)))
    return undefined;
  return { reply: quantityQuestion(q, state.zh) };
}

function clearCart(state: ConversationState): Reading | undefined {
  return readClearCart(state.userText) ? { intent: { kind: "clear-cart" } } : undefined;
}

function sizeFix(state: ConversationState): Reading | undefined {
  const size = readSizeFix(state.userText);
  return size === undefined
    ? undefined
    : { intent: { kind: "set-variant", query: "", ref: { kind: "it" }, size } };
}

function preference(state: ConversationState, legacy: ShopperIntent): Reading | undefined {
  const said = readPreference(state.userText);
  if (!said || !["unknown", "search", "add"].includes(legacy.kind)) return undefined;
  // "I need size 10 trail shoes" asks for something; "I'm a size 10" only says.
  if (legacy.kind !== "unknown" && readCategory(state.userText) !== undefined) return undefined;
  const { zh } = state;
  const parts = [
    said.size !== undefined ? pick(zh, `size ${said.size}`, `${said.size} 码`) : "",
    said.maxPriceCents !== undefined
      ? pick(zh, `a budget of $${said.maxPriceCents / 100}`, `预算 $${said.maxPriceCents / 100}`)
      : "",
  ].filter((p) => p !== "");
  return {
    reply: pick(
      zh,
      `Noted: ${parts.join(" and ")}; I'll use it from now on. What are you looking for?`,
      `好的，记下了：${parts.join("、")}，之后都按这个来。您想找什么？`,
    ),
  };
}

function listPicks(state: ConversationState, legacy: ShopperIntent): Reading | undefined {
  if (state.shown.length === 0) return undefined;
  const picks = readListPicks(state.userText);
  if (!picks) return undefined;
  const ids = picks.indexes.flatMap((i) => (state.shown[i] ? [state.shown[i]] : []));
  if (ids.length === 0) return undefined;
  if (readSideBySide(state.userText) || legacy.kind === "compare")
    return ids.length >= 2 ? { intent: { kind: "compare", count: ids.length } } : undefined;
  const said = withoutPositions(state.userText);
  const size = readSize(said);
  const variant = { ...readVariant(said), ...(size !== undefined ? { size } : {}) };
  const anyColor = readAnyColor(state.userText);
  // "第二双要黑色" after both were added: a change of the line already in the cart, not another.
  const inCart = new Set((state.cart ?? []).map((l) => l.productId));
  const onlyVariant =
    !EXPLICIT_ADD.test(state.userText) && (picks.colors.size > 0 || variant.size || variant.color);
  // The reading stays the same through the turn: a line this turn added is not "already there".
  const addedNow = turnExchanges(state).some(
    (x) => x.name === "add_to_cart" && x.input.productId === ids[0],
  );
  if (onlyVariant && ids.length === 1 && inCart.has(ids[0]!) && !addedNow) {
    const index = picks.indexes[0]!;
    const color = picks.colors.get(index) ?? variant.color;
    return {
      intent: {
        kind: "set-variant",
        query: "",
        id: ids[0]!,
        ...(variant.size !== undefined ? { size: variant.size } : {}),
        ...(color !== undefined ? { color } : {}),
      },
    };
  }
  // "the first two in a 10, any colour": a size or colour for products shown is an order.
  const adding =
    legacy.kind === "add" ||
    legacy.kind === "add-shown" ||
    CART_VERB.test(state.userText) ||
    variant.size !== undefined ||
    anyColor ||
    picks.colors.size > 0;
  if (!adding || isQuestion(state.userText) || isNegated(state.userText)) return undefined;
  const items = picks.indexes.flatMap((index): NamedItem[] => {
    const id = state.shown[index];
    const product = id ? productOf(id) : undefined;
    if (!id || !product) return [];
    const color =
      picks.colors.get(index) ??
      (picks.colors.size === 0 ? variant.color : undefined) ??
      (anyColor ? product.colors[0] : undefined);
    return [
      {
        query: "",
        id,
        quantity: 1,
        ...(variant.size !== undefined ? { size: variant.size } : {}),
        ...(color !== undefined ? { color } : {}),
      },
    ];
  });
  return { intent: { kind: "add", items, total: TOTAL.test(state.userText) } };
}

/** The request without its position words, so "第一双白色" gives no colour to every item. */
function withoutPositions(text: string): string {
  return text.replace(/第(一|二|三|四|五|六)(双|件|个|款)?[^，,。；;]*/g, " ");
}

function superlative(state: ConversationState, legacy: ShopperIntent): Reading | undefined {
  const best = readSuperlative(state.userText);
  // "which … is cheapest", "cheapest pair of …": one product; "your best rated shoes": a list.
  const one =
    /\b(which|what'?s|what is)\b|^(the )?(cheapest|best|highest|top|lowest)\b|\b(one|pair)\b|哪|是什么/i.test(
      state.userText.trim(),
    );
  if (!best || !one) return undefined;
  const words = chineseToEnglish(state.userText);
  const category = readCategory(words) ?? readCategory(state.userText);
  // "the cheapest one" after a list: the older reading picks from what was shown.
  if (category === undefined) return undefined;
  if (legacy.kind === "add" || legacy.kind === "add-shown") return undefined;
  const query =
    legacy.kind === "search" && legacy.query !== "" ? legacy.query : searchWordsOf(words);
  return { intent: { kind: "search", query, category, best } };
}

function searchWordsOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/\p{Script=Han}+/gu, " ")
    .replace(
      /\b(i'?d love to see|show me|find me|what'?s|what is|which|who|has|have|had|the|a|an|of|pair|pairs|your|you|do|does|get|gets|got|you'?ve|is|are|one|ones|with|cheapest|least expensive|lowest[- ]priced?|most affordable|best|highest|top|rated|reviewed|reviews?|ratings?)\b|[?？!.,]/g,
      " ",
    )
    .replace(/\s+/g, " ")
    .trim();
}

function merchantQuestion(state: ConversationState, legacy: ShopperIntent): Reading | undefined {
  if (legacy.kind === "ask-merchant") return undefined;
  const t = state.userText.toLowerCase();
  const restock =
    /\b(restock(ed|ing)?|back in stock|in stock again|coming back|be back|get(ting)? (more|new)|more .+ in\b)|补货|到货|再进货|什么时候有货/.test(
      t,
    ) && /\b(when|how soon|will|any idea)\b|什么时候|多久|何时/.test(t);
  const bulk = /\b(discount|deal|price break)\b.*\b(\d+|bulk|many)\b|\bbulk\b|批发|团购/.test(t);
  return restock || bulk
    ? { intent: { kind: "ask-merchant", question: state.userText.trim() } }
    : undefined;
}

/** "and … too", "also …": an addition to what the conversation is doing. */
const ADDITION = /^(and|also|plus|oh and|and also)\b|\b(too|as well|also)\b[.!]?$|还要|也要|再加/i;
/** "… into my cart", "…放进购物车": where the product goes says what is wanted, whatever the verb. */
const INTO_CART =
  /\b(in|into|to|inside) (my |the |our )?(cart|basket|bag|trolley)\b|(加入|加到|放进|放入|放到)(我的)?购物车/i;

/**
 * "and 2 pairs of merino socks too, size M in charcoal", "could you chuck 2 rollers into my
 * cart": a product said as wanted, with the verb unknown. The product words are what remains once
 * the words before them are dropped one by one (the verb, "could you"): the first rest that names
 * catalog products, and only those, is the request.
 */
function anotherProduct(state: ConversationState, legacy: ShopperIntent): Reading | undefined {
  if (legacy.kind !== "unknown") return undefined;
  const text = prepare(state.userText);
  if (!ADDITION.test(text) && !INTO_CART.test(text)) return undefined;
  const body = text
    .replace(new RegExp(ADDITION.source, "gi"), " ")
    .replace(new RegExp(INTO_CART.source, "gi"), " ")
    .replace(/\bpairs? of\b/gi, " ")
    .trim();
  const variant = readVariant(body);
  const words = body.split(/\s+/);
  for (let drop = 0; drop <= Math.min(4, words.length - 1); drop++) {
    const rest = words.slice(drop).join(" ");
    const items = mergeVariantOnly(namedItems(rest)).filter(
      (i) => i.query.replace(/\bsize\s+\S+|\bin\b/gi, " ").trim() !== "",
    );
    const named = items.every(
      (i) => catalogIndex().resolve(withoutVariant(i.query)).kind === "found",
    );
    if (items.length === 0 || !named) continue;
    const one = items.length === 1;
    return {
      intent: {
        kind: "add",
        items: items.map((item) => ({
          ...item,
          // One product: a size or colour said anywhere in the message is its own.
          ...(one && item.size === undefined && variant.size !== undefined
            ? { size: variant.size }
            : {}),
          ...(one && item.color === undefined && variant.color !== undefined
            ? { color: variant.color }
            : {}),
        })),
        total: TOTAL.test(state.userText),
      },
    };
  }
  return undefined;
}

/** The intent with what the shopper said earlier filled into the slots it leaves empty. */
function carry(state: ConversationState, intent: ShopperIntent): ShopperIntent {
  if (intent.kind === "add") {
    const slots = carriedSlots(state);
    const items = mergeVariantOnly(intent.items);
    return { ...intent, items: items.map((item) => carryVariant(state, item, slots)) };
  }
  if (intent.kind === "search") {
    const slots = carriedSlots(state);
    const said = readCategory(chineseToEnglish(state.userText)) ?? readCategory(state.userText);
    const category = intent.category ?? said ?? (intent.query === "" ? slots.category : undefined);
    return {
      ...intent,
      ...(intent.query === "" && category !== undefined ? { query: category.toLowerCase() } : {}),
      ...(category !== undefined ? { category } : {}),
      ...(intent.maxPriceCents === undefined &&
      intent.minPriceCents === undefined &&
      !intent.cheaper &&
      slots.maxPriceCents !== undefined
        ? { maxPriceCents: slots.maxPriceCents }
        : {}),
    };
  }
  return intent;
}

/**
 * "the aero trail runner in size 9, slate": a part that is only a size or a colour is the variant
 * of the product before it, not a product of its own.
 */
function mergeVariantOnly(items: readonly NamedItem[]): NamedItem[] {
  const merged: NamedItem[] = [];
  for (const item of items) {
    const color = readColor(item.query);
    const said = { ...readVariant(item.query), ...(color !== undefined ? { color } : {}) };
    const rest =
      color !== undefined && readVariant(item.query).color === undefined
        ? ""
        : stripFiller(withoutVariant(item.query).replace(/\b(size|colou?r|in)\b/g, " "));
    const previous = merged.at(-1);
    const only = item.ref === undefined && rest === "" && (said.size ?? said.color) !== undefined;
    if (previous && only) {
      merged[merged.length - 1] = {
        ...previous,
        ...(previous.size === undefined && said.size !== undefined ? { size: said.size } : {}),
        ...(previous.color === undefined && said.color !== undefined ? { color: said.color } : {}),
      };
    } else merged.push(item);
  }
  return merged;
}

/** A size or colour said earlier, given to an item that needs it and comes in it. */
function carryVariant(state: ConversationState, item: NamedItem, slots: CarriedSlots): NamedItem {
  if (item.size !== undefined && item.color !== undefined) return item;
  const target = resolveItem(item, state, "catalog");
  if (!target.ok) return item;
  const { product } = target;
  let next = item;
  if (item.size === undefined && product.sizes.length > 0) {
    const size = slots.sizes.find((s) => chooseVariant(product, { size: s }).ok);
    if (size !== undefined) next = { ...next, size };
  }
  if (item.color === undefined && product.colors.length > 1 && slots.color !== undefined) {
    if (chooseVariant(product, { color: slots.color }).ok) next = { ...next, color: slots.color };
  }
  return next;
}
