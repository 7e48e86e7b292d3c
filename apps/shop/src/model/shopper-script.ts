/**
 * The shopper side of the scripted model. Each response is one step: read the request, resolve
 * the products it mentions (by words against the catalog, or by reference against the cart and
 * the products shown last), then call the tools a careful model would call, or ask when it is
 * not sure which product is meant. When this turn's results are in, write the answer from them.
 * A request that needs the cart's contents and has none in the conversation looks at the cart
 * first (`view_cart`), then acts.
 */

import type { SimBlock, SimScript } from "overlap-sim";
import { chooseVariant, missingVariant } from "../domain/cart.js";
import type { Product } from "../domain/catalog.js";
import { formatCents } from "../domain/money.js";
import { notApprovedSentence } from "./approval-replies.js";
import {
  type ConversationState,
  lastRound,
  type ToolExchange,
  turnExchanges,
} from "./conversation-state.js";
import { catalogIndex, type Resolution } from "./product-resolver.js";
import {
  availabilitySentence,
  call,
  cartChangeSentence,
  cartSentence,
  compareSentence,
  detailsSentence,
  errorSentence,
  listedProducts,
  listOf,
  orderSentence,
  ordersSentence,
  pick,
  productFacts,
  say,
  text,
  totalSentence,
  type VariantAsk,
  variantQuestion,
} from "./replies.js";
import {
  type NamedItem,
  type Ref,
  readRef,
  readShopperIntent,
  readVariantAnswer,
  type ShopperIntent,
} from "./shop-intent.js";
import { foldText } from "./text-match.js";

/** The tool whose result ends each kind of request (earlier calls only prepare it). */
const FINAL_TOOLS: Partial<Record<ShopperIntent["kind"], readonly string[]>> = {
  add: ["add_to_cart", "cart_total"],
  "add-shown": ["add_to_cart", "cart_total"],
  search: ["show_products"],
  compare: ["compare_products"],
  remove: ["remove_from_cart", "update_cart_item"],
  "set-quantity": ["update_cart_item", "remove_from_cart"],
  "change-quantity": ["add_to_cart", "update_cart_item", "remove_from_cart"],
  "set-variant": ["update_cart_item"],
  "clear-cart": ["clear_cart"],
  details: ["get_product"],
  availability: ["get_product"],
  orders: ["my_orders"],
  "view-cart": ["view_cart"],
  total: ["cart_total"],
  checkout: ["checkout"],
  "ask-merchant": ["ask_merchant"],
};

/** The shopper's next response. */
export function shopperScript(
  conversation: ConversationState,
  tools: ReadonlySet<string>,
): SimScript {
  const { state, intent } = answeredVariantQuestion(conversation) ??
    answeredQuestion(conversation) ?? {
      state: conversation,
      intent: readShopperIntent(conversation.userText),
    };
  const done = turnExchanges(state);
  const search = lastRound(state).find((x) => x.name === "search_products");
  if (search) return searchFollowUp(state, search);
  const finals = FINAL_TOOLS[intent.kind] ?? [];
  if (done.some((x) => finals.includes(x.name))) return say(finalAnswer(state, intent));
  const next = act(state, intent, tools);
  // Never call again what this turn already called: answer with what is known instead.
  const calls = next.blocks.filter((b) => b.type === "tool_use");
  if (calls.length > 0 && calls.every((c) => done.some((x) => x.name === c.name)))
    return say(finalAnswer(state, intent));
  return next;
}

// --- which product ---------------------------------------------------------------------------

/** Where the last reply asks which product: the products it names after this are the choices. */
const QUESTION =
  /(Which one do you mean|Did you mean|The closest is|fits \d+ products|您指的是|您是指|最接近的是|符合「)/;

/**
 * "the merino ones" / "yes" / "the first one" after "Which one do you mean: A or B?": the earlier
 * request, carried out with the product chosen among the ones the question named. Undefined when
 * the request is not such an answer.
 */
function answeredQuestion(
  state: ConversationState,
): { state: ConversationState; intent: ShopperIntent } | undefined {
  const previous = state.earlierTexts[0];
  const at = state.lastReply.search(QUESTION);
  if (previous === undefined || at < 0) return undefined;
  const own = readShopperIntent(state.userText);
  const answer = state.userText.trim();
  const words = answer.split(/\s+/).length;
  const short = words <= 6 && !/about|tell|more|介绍|详/.test(answer);
  if (!short || !["details", "unknown", "thanks", "add"].includes(own.kind)) return undefined;
  if (own.kind === "add" && own.items.some((i) => i.query !== "")) return undefined;
  // The choices: catalog products named in the question, in the order they were named.
  const question = state.lastReply.slice(at);
  const choices = index()
    .all()
    .filter((p) => question.includes(p.name))
    .sort((a, b) => question.indexOf(a.name) - question.indexOf(b.name));
  if (choices.length === 0) return undefined;
  const ids = choices.map((p) => p.id);
  let chosen: string | undefined;
  if (
    /^(yes|yeah|yep|yup|sure|ok|okay|correct|right|that one|是|是的|对|对的|好|好的|嗯|就是它)\b/i.test(
      answer,
    ) ||
    /^(是|对|好|嗯)/.test(answer)
  )
    chosen = choices.length === 1 ? ids[0] : undefined;
  else {
    // "the first one", "the cheaper one" pick among the choices; other answers name one.
    const pickRef = readRef(foldText(answer));
    const ref = pickRef?.kind === "pick" ? pickRef : undefined;
    const target = resolveItem(
      ref ? { query: "", ref } : { query: answer.replace(/\b(the|one|ones|please|pls)\b/gi, " ") },
      { ...state, shown: ids, focus: undefined, cart: undefined },
      "catalog",
      ids,
    );
    chosen = target.ok && ids.includes(target.product.id) ? target.product.id : undefined;
  }
  if (!chosen) return undefined;
  const before = readShopperIntent(previous);
  const resolved: ConversationState = { ...state, userText: previous, answer: chosen };
  // Of an add, only the items that were asked about: the others are in the cart already.
  const intent: ShopperIntent =
    before.kind === "add"
      ? { ...before, items: before.items.filter((i) => !resolveItem(i, state, "catalog").ok) }
      : before;
  return { state: resolved, intent };
}

/** Where the last reply asks for a size or colour (see `variantQuestion`). */
const VARIANT_QUESTION =
  /(Which (?:size and colour|size|colour) for the |要哪个(?:尺码和颜色|尺码|颜色))/;

/**
 * "the 10" / "a 9" / "size 10 in Volt" / "L号" after "Which size for the X: …?": the products the
 * question named, added (or, for lines in the cart, changed) with the size and colour given. The
 * earlier request supplies the quantities and any variant it named; earlier answers in a row
 * ("10", then "Volt") add up. Undefined when the request is not such an answer.
 */
function answeredVariantQuestion(
  state: ConversationState,
): { state: ConversationState; intent: ShopperIntent } | undefined {
  const at = state.lastReply.search(VARIANT_QUESTION);
  const answer = at < 0 ? undefined : readVariantAnswer(state.userText);
  if (!answer) return undefined;
  const question = state.lastReply;
  const names = [
    ...question.matchAll(
      /Which (?:size and colour|size|colour) for the (.+?)(?: in your cart)?[?:]|([^。？！：；]+?)(?:（购物车里的）)?要哪个/g,
    ),
  ].map((m) => (m[1] ?? m[2]!).trim());
  const pending = names.flatMap((name) =>
    index()
      .all()
      .filter((p) => p.name === name),
  );
  if (pending.length === 0) return undefined;
  // Earlier answers in a row, then the request they answer.
  const answers = [answer];
  let request: string | undefined;
  for (const earlier of state.earlierTexts) {
    const before = readVariantAnswer(earlier);
    if (!before) {
      request = earlier;
      break;
    }
    answers.unshift(before);
  }
  const before = request === undefined ? undefined : readShopperIntent(request);
  const asked = (product: Product) =>
    before?.kind === "add"
      ? before.items.find((item) => {
          const target = resolveItem(item, state, "catalog");
          return target.ok && target.product.id === product.id;
        })
      : undefined;
  const items = pending.map((product, i) => {
    const item = asked(product);
    let size = item?.size;
    let color = item?.color;
    // Each size or colour goes to the products that come in it; one answer per product asked
    // about ("10 in volt and 9 in red") goes in the order they were asked.
    const own = answer.length === pending.length && pending.length > 1 ? [answer[i]!] : answer;
    for (const part of [...answers.slice(0, -1).flat(), ...own]) {
      if (part.size !== undefined && chooseVariant(product, { size: part.size }).ok)
        size = part.size;
      if (part.color !== undefined && chooseVariant(product, { color: part.color }).ok)
        color = part.color;
    }
    return {
      query: product.name,
      quantity: item?.quantity ?? 1,
      ...(size !== undefined ? { size } : {}),
      ...(color !== undefined ? { color } : {}),
    };
  });
  if (/ in your cart|（购物车里的）/.test(question)) {
    const first = items.find((i) => i.size !== undefined || i.color !== undefined);
    if (!first) return undefined;
    return { state, intent: { kind: "set-variant", ...first } };
  }
  return { state, intent: { kind: "add", items, total: before?.kind === "add" && before.total } };
}

/** What a product still needs chosen for an item asking for it (none when it names a bad one). */
function missingFor(product: Product, item: { size?: string; color?: string }): VariantAsk[] {
  const v = variantFor(product, item);
  if (!v.valid) return [];
  const color = v.color ?? (product.colors.length === 1 ? product.colors[0] : undefined);
  const missing = missingVariant(product, { size: v.size, color });
  if (missing.length === 0) return [];
  return [{ name: product.name, missing, sizes: product.sizes, colors: product.colors }];
}

type Target = { ok: true; product: Product } | { ok: false; say: string };

const index = () => catalogIndex();
const productOf = (id: string) => index().get(id);
const named = (ids: readonly string[]) =>
  ids.flatMap((id) => (productOf(id) ? [productOf(id)!.name] : []));

/** Current price in cents: the newest tool result's, else the catalog's. */
function priceOf(state: ConversationState, id: string): number {
  return state.prices.get(id) ?? productOf(id)?.priceCents ?? Number.POSITIVE_INFINITY;
}

/**
 * The one product an item means. `cart`: only what is in the cart; `cart-first`: the cart,
 * then the catalog; `catalog`: the catalog, preferring what the conversation is about.
 */
function resolveItem(
  item: { query: string; ref?: Ref },
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
  item: { query: string; ref?: Ref },
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
  const ref = item.ref ?? (item.query === "" ? { kind: "it" as const } : undefined);
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
    let pool = state.shown.length > 0 ? state.shown : scope === "catalog" ? [] : cartIds;
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
  const resolution = index().resolve(item.query, {
    ...(among ? { among } : {}),
    prefer: [...state.shown, ...cartIds, ...state.seen.slice(0, 12)],
  });
  if (resolution.kind === "found") return { ok: true, product: resolution.product };
  return { ok: false, say: doubt(item.query, resolution, zh) };
}

/** "Which one do you mean: the A or the B?" */
function whichOf(names: readonly string[], zh: boolean): string {
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
function variantFor(product: Product, item: { size?: string; color?: string }) {
  const chosen = chooseVariant(product, item);
  if (!chosen.ok) return { valid: false, size: item.size, color: item.color };
  return { valid: true, size: chosen.size, color: chosen.color };
}

function variantWords(v: { size?: string; color?: string }, zh: boolean): string {
  const parts = [v.size ? pick(zh, `size ${v.size}`, `尺码 ${v.size}`) : "", v.color ?? ""].filter(
    (p) => p !== "",
  );
  if (parts.length === 0) return "";
  return zh ? `（${parts.join("，")}）` : ` (${parts.join(", ")})`;
}

// --- the step ------------------------------------------------------------------------------

function lookAtCartFirst(zh: boolean): SimScript {
  return {
    blocks: [
      text(pick(zh, "Let me check your cart first.", "我先看一下您的购物车。")),
      call("view_cart", {}),
    ],
  };
}

function act(
  state: ConversationState,
  intent: ShopperIntent,
  tools: ReadonlySet<string>,
): SimScript {
  const { zh } = state;
  switch (intent.kind) {
    case "add":
      return addItems(state, intent.items, intent.total);
    case "add-shown": {
      const ids = state.shown.slice(0, intent.count);
      if (ids.length === 0)
        return say(
          pick(
            zh,
            "Which products should I add? Ask me to show you some first, or tell me their names.",
            "要加入哪几件商品？可以先让我展示几款，或者告诉我商品名称。",
          ),
        );
      const blocks = [
        text(
          pick(
            zh,
            `Adding ${listOf(named(ids), false)} to your cart${intent.total ? ", then the total" : ""}.`,
            `好的，把${listOf(named(ids), true)}加入购物车${intent.total ? "，再算一下总价" : ""}。`,
          ),
        ),
        ...ids.map((id) => call("add_to_cart", { productId: id, quantity: 1 })),
      ];
      if (intent.total) blocks.push(call("cart_total", {}));
      return { blocks };
    }
    case "search":
      return search(state, intent);
    case "compare":
      return compare(state, intent);
    case "remove": {
      if (!state.cart) return lookAtCartFirst(zh);
      const target = resolveItem(intent, state, "cart");
      if (!target.ok) return say(target.say);
      const { product } = target;
      const line = state.cart.find((l) => l.productId === product.id)!;
      if (intent.quantity !== undefined && intent.quantity < line.quantity) {
        return {
          blocks: [
            text(
              pick(
                zh,
                `Taking ${intent.quantity} × ${product.name} out of your cart.`,
                `好的，从购物车减掉 ${intent.quantity} 件 ${product.name}。`,
              ),
            ),
            call("update_cart_item", {
              productId: product.id,
              quantity: line.quantity - intent.quantity,
            }),
          ],
        };
      }
      return {
        blocks: [
          text(
            pick(
              zh,
              `Removing the ${product.name} from your cart.`,
              `好的，把 ${product.name} 从购物车删除。`,
            ),
          ),
          call("remove_from_cart", { productId: product.id }),
        ],
      };
    }
    case "set-quantity": {
      if (!state.cart) return lookAtCartFirst(zh);
      const target = resolveItem(intent, state, "cart");
      if (!target.ok) return say(target.say);
      const { product } = target;
      return {
        blocks: [
          text(
            intent.quantity === 0
              ? pick(zh, `Removing the ${product.name}.`, `好的，删除 ${product.name}。`)
              : pick(
                  zh,
                  `Setting the ${product.name} to ${intent.quantity}.`,
                  `好的，把 ${product.name} 改为 ${intent.quantity} 件。`,
                ),
          ),
          call("update_cart_item", { productId: product.id, quantity: intent.quantity }),
        ],
      };
    }
    case "change-quantity": {
      const needsCart = intent.delta < 0 || (intent.query === "" && !state.focus);
      if (needsCart && !state.cart) return lookAtCartFirst(zh);
      const target = resolveItem(intent, state, intent.delta < 0 ? "cart" : "cart-first");
      if (!target.ok) return say(target.say);
      const { product } = target;
      // "one more" of a line: in that line's size and colour.
      const held = state.cart?.filter((l) => l.productId === product.id) ?? [];
      const same = held.length === 1 ? held[0] : undefined;
      if (intent.delta > 0)
        return {
          blocks: [
            text(
              pick(
                zh,
                `Adding ${intent.delta} more × ${product.name}.`,
                `好的，再加 ${intent.delta} 件 ${product.name}。`,
              ),
            ),
            call("add_to_cart", {
              productId: product.id,
              quantity: intent.delta,
              ...(same?.size ? { size: same.size } : {}),
              ...(same?.color ? { color: same.color } : {}),
            }),
          ],
        };
      const line = state.cart!.find((l) => l.productId === product.id)!;
      const quantity = Math.max(0, line.quantity + intent.delta);
      return {
        blocks: [
          text(
            pick(
              zh,
              quantity === 0
                ? `Removing the ${product.name}.`
                : `Setting the ${product.name} to ${quantity}.`,
              quantity === 0
                ? `好的，删除 ${product.name}。`
                : `好的，把 ${product.name} 改为 ${quantity} 件。`,
            ),
          ),
          quantity === 0
            ? call("remove_from_cart", { productId: product.id })
            : call("update_cart_item", { productId: product.id, quantity }),
        ],
      };
    }
    case "set-variant": {
      if (!state.cart) return lookAtCartFirst(zh);
      const target = resolveItem(intent, state, "cart");
      if (!target.ok) return say(target.say);
      const { product } = target;
      const v = variantFor(product, intent);
      return {
        blocks: [
          text(
            pick(
              zh,
              `Changing the ${product.name} to${variantWords(v, false).replace(/^ \((.*)\)$/, " $1")}.`,
              `好的，把 ${product.name} 换成${variantWords(v, true).replace(/^（(.*)）$/, "$1")}。`,
            ),
          ),
          call("update_cart_item", {
            productId: product.id,
            ...(v.size ? { size: v.size } : {}),
            ...(v.color ? { color: v.color } : {}),
          }),
        ],
      };
    }
    case "clear-cart":
      if (state.cart?.length === 0)
        return say(pick(zh, "Your cart is already empty.", "您的购物车已经是空的。"));
      return {
        blocks: [
          text(pick(zh, "Emptying your cart.", "好的，清空购物车。")),
          call("clear_cart", {}),
        ],
      };
    case "details":
    case "availability": {
      const target = resolveItem(intent, state, "catalog");
      if (!target.ok) return say(target.say);
      return {
        blocks: [
          text(
            pick(
              zh,
              `Let me look up the ${target.product.name}.`,
              `我查一下 ${target.product.name}。`,
            ),
          ),
          call("get_product", { productId: target.product.id }),
        ],
      };
    }
    case "orders":
      if (!tools.has("my_orders"))
        return say(pick(zh, "I can't look up orders here.", "这里无法查询订单。"));
      return {
        blocks: [
          text(pick(zh, "Let me look up your orders.", "我查一下您的订单。")),
          call("my_orders", intent.orderId ? { orderId: intent.orderId } : {}),
        ],
      };
    case "view-cart":
      return { blocks: [call("view_cart", {})] };
    case "total":
      return { blocks: [call("cart_total", {})] };
    case "checkout": {
      if (!state.cart) return lookAtCartFirst(zh);
      if (state.cart.length === 0)
        return say(
          pick(
            zh,
            'Your cart is empty, so there is nothing to check out yet. Add something first, for example "add the Aero trail runner".',
            "您的购物车是空的，还没有可以结账的商品。请先添加商品，例如「把Aero越野跑鞋加入购物车」。",
          ),
        );
      // A line without its size (or colour) cannot be ordered: ask for it first.
      const incomplete = state.cart.flatMap((l) => {
        const product = productOf(l.productId);
        return product && l.missing?.length
          ? [
              {
                name: product.name,
                missing: l.missing,
                sizes: product.sizes,
                colors: product.colors,
              },
            ]
          : [];
      });
      if (incomplete.length > 0) return say(variantQuestion(incomplete, zh, true));
      const items = state.cart.reduce((n, l) => n + l.quantity, 0);
      return {
        blocks: [
          text(
            pick(
              zh,
              `Placing your order for the ${items} item${items === 1 ? "" : "s"} in your cart.`,
              `正在为购物车中的 ${items} 件商品下单。`,
            ),
          ),
          call("checkout", {}),
        ],
      };
    }
    case "checkout-question":
      return say(
        pick(
          zh,
          "I won't place an order until you ask me to. When you're ready, say \"check out\" and I'll place it for everything in your cart.",
          "在您明确要求之前我不会下单。准备好后请说「结账」，我会为购物车中的全部商品下单。",
        ),
      );
    case "declined":
      return say(pick(zh, "OK, I'll leave your cart as it is.", "好的，购物车保持不变。"));
    case "ask-merchant":
      return {
        blocks: [
          text(pick(zh, "Let me ask the merchant.", "我去问一下商家。")),
          call("ask_merchant", { question: intent.question }),
        ],
      };
    case "greeting":
      return say(
        pick(
          zh,
          "Hi! I'm the store's scripted shopping assistant (a script, not a language model). Ask me to find something (\"trail shoes under 120\"), tell you about a product, add it to your cart in your size, compare two, or check out.",
          "您好！我是商店的脚本购物助手（脚本，不是语言模型）。可以帮您找商品（例如「推荐100元以下的跑鞋」）、介绍商品、按尺码加入购物车、比较商品或结账。",
        ),
      );
    case "thanks":
      return say(
        pick(
          zh,
          "You're welcome! Anything else: another product, your cart, or checking out?",
          "不客气！还需要什么吗？可以继续挑选商品、查看购物车或结账。",
        ),
      );
    default:
      return say(
        pick(
          zh,
          'I\'m the store\'s scripted shopping assistant. I can search products ("show me running shoes under 100"), show and compare them, add them to your cart and tell you the total ("add the Aero trail runner and the wool socks to my cart and tell me the total"), check out, and ask the merchant about restocks or bulk discounts.',
          "我是商店的脚本购物助手。我可以搜索商品（例如「推荐一些跑鞋 100元以下」）、展示和比较商品、加入购物车并计算总价、结账，还可以向商家询问补货和批发折扣。",
        ),
      );
  }
}

/** The add_to_cart calls for the items that resolve; the others are asked about at the end. */
function addItems(
  state: ConversationState,
  items: readonly NamedItem[],
  total: boolean,
): SimScript {
  const { zh } = state;
  const resolved = items.map((item) => ({ item, target: resolveItem(item, state, "catalog") }));
  const known = resolved.flatMap((r) =>
    r.target.ok ? [{ item: r.item, product: r.target.product }] : [],
  );
  if (known.length === 0)
    return say(
      resolved
        .map((r) => (r.target.ok ? "" : r.target.say))
        .join(" ")
        .trim(),
    );
  const calls: SimBlock[] = [];
  const names: string[] = [];
  // A product with sizes (or several colours) is not added without them: asked instead.
  const asks = known.flatMap(({ item, product }) => missingFor(product, item));
  if (asks.length === known.length) {
    const unresolved = resolved.flatMap((r) => (r.target.ok ? [] : [r.target.say]));
    return say([variantQuestion(asks, zh), ...unresolved].join(zh ? "" : " "));
  }
  for (const { item, product } of known) {
    if (missingFor(product, item).length > 0) continue;
    const v = variantFor(product, item);
    const words = variantWords(v, zh);
    names.push(
      item.quantity === 1 && !words
        ? product.name
        : zh
          ? `${product.name} × ${item.quantity}${words}`
          : `${item.quantity} × ${product.name}${words}`,
    );
    calls.push(
      call("add_to_cart", {
        productId: product.id,
        quantity: item.quantity,
        ...(v.size ? { size: v.size } : {}),
        ...(v.color ? { color: v.color } : {}),
      }),
    );
  }
  if (total) calls.push(call("cart_total", {}));
  return {
    blocks: [
      text(
        pick(
          zh,
          `I'll add ${names.join(" and ")} to your cart${total ? " and then check the total" : ""}.`,
          `好的，我把${names.join("和")}加入购物车${total ? "，然后算一下总价" : ""}。`,
        ),
      ),
      ...calls,
    ],
  };
}

function search(
  state: ConversationState,
  intent: Extract<ShopperIntent, { kind: "search" }>,
): SimScript {
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
        `我找一下低于 ${formatCents(cheapest)} 的${query ? `「${query}」` : "商品"}。`,
      );
    }
  } else if (query !== "" && input.maxPrice === undefined && input.minPrice === undefined) {
    // "show me the swift road racer" names one product: its card, not a list of look-alikes.
    const named = index().resolve(query);
    if (named.kind === "found" && named.unmatched.length === 0)
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

function compare(
  state: ConversationState,
  intent: Extract<ShopperIntent, { kind: "compare" }>,
): SimScript {
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
function searchFollowUp(state: ConversationState, search: ToolExchange): SimScript {
  const { zh } = state;
  const query = typeof search.input.query === "string" ? search.input.query : "";
  if (search.isError) return say(errorSentence(search, zh));
  const ids = [...search.content.matchAll(/\((p-\d{4})\)/g)].map((m) => m[1]!).slice(0, 6);
  if (ids.length === 0)
    return say(
      pick(
        zh,
        `Nothing in the catalog matches${query ? ` "${query}"` : ""}${priceWords(search, false)}. Try other words or a wider price range?`,
        `目录里没有符合${query ? `「${query}」` : ""}${priceWords(search, true)}的商品，换个说法或放宽价格试试？`,
      ),
    );
  const title = pick(
    zh,
    `Results for "${query || "everything"}"${priceWords(search, false)}`,
    `「${query || "全部商品"}」${priceWords(search, true)}的搜索结果`,
  );
  return {
    blocks: [
      text(pick(zh, `I found ${ids.length}. Here they are:`, `找到 ${ids.length} 款，如下：`)),
      call("show_products", { title, productIds: ids }),
    ],
  };
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

// --- the answer ----------------------------------------------------------------------------

/** The final answer of a turn, from every result of the turn. */
function finalAnswer(state: ConversationState, intent: ShopperIntent): string {
  const { zh } = state;
  const xs = turnExchanges(state);
  const parts: string[] = [];
  const adds = xs.filter((x) => x.name === "add_to_cart" && !x.isError);
  if (zh && adds.length > 1) {
    parts.push(
      `已加入购物车：${adds.map((x) => cartChangeSentence(x, true).replace(/^已加入购物车：|。$/g, "")).join("、")}。`,
    );
  }
  for (const x of xs) {
    if (x.isError) {
      // A refused look at the cart before acting is reported; other refusals always are.
      parts.push(notApprovedSentence(x, zh) ?? errorSentence(x, zh));
      continue;
    }
    switch (x.name) {
      case "add_to_cart":
        if (!(zh && adds.length > 1)) parts.push(cartChangeSentence(x, zh));
        break;
      case "update_cart_item":
      case "remove_from_cart":
      case "clear_cart":
        parts.push(cartChangeSentence(x, zh));
        break;
      case "cart_total":
        parts.push(totalSentence(x.content, zh));
        break;
      case "view_cart":
        if (intent.kind === "view-cart") parts.push(cartSentence(x.content, zh));
        break;
      case "checkout":
        parts.push(orderSentence(x.content, zh));
        break;
      case "my_orders":
        parts.push(ordersSentence(x.content, zh));
        break;
      case "get_product": {
        const facts = productFacts(x.content);
        if (!facts) parts.push(x.content);
        else if (intent.kind === "availability") {
          const product = productOf(facts.id);
          const v = product ? chooseVariant(product, intent) : undefined;
          parts.push(
            availabilitySentence(
              facts,
              {
                ...intent,
                ...(v?.ok && v.size ? { sizeName: v.size } : {}),
                ...(v?.ok && v.color ? { colorName: v.color } : {}),
              },
              zh,
            ),
          );
        } else parts.push(detailsSentence(facts, zh));
        break;
      }
      case "compare_products":
        parts.push(compareSentence(x.content, zh));
        break;
      case "show_products": {
        const ids = x.input.productIds;
        const one = Array.isArray(ids) && ids.length === 1 ? productOf(String(ids[0])) : undefined;
        parts.push(
          one
            ? pick(
                zh,
                `That's the ${one.name}. Want me to add it to your cart, or tell you more about it?`,
                `这就是 ${one.name}。要加入购物车，还是想了解更多？`,
              )
            : shownSentence(xs, zh),
        );
        break;
      }
      case "ask_merchant":
        parts.push(x.content);
        break;
      default:
        break;
    }
  }
  // After a change without a total: where the cart stands now.
  const lastChange = xs
    .filter((x) => !x.isError && /^(add_to_cart|update_cart_item|remove_from_cart)$/.test(x.name))
    .at(-1);
  if (lastChange && !xs.some((x) => x.name === "cart_total")) {
    const totals = lastChange.content.match(/(\d+) items?, total (\$[\d,]+\.\d{2})/);
    if (totals)
      parts.push(
        pick(
          zh,
          `Your cart now holds ${totals[1]} item${totals[1] === "1" ? "" : "s"}, total ${totals[2]}.`,
          `购物车现有 ${totals[1]} 件，合计 ${totals[2]}。`,
        ),
      );
    else if (/The cart is empty/.test(lastChange.content))
      parts.push(pick(zh, "Your cart is now empty.", "购物车现在是空的。"));
  }
  // Items of an add that could not be resolved, or need a size or colour: asked about, never guessed.
  if (intent.kind === "add") {
    const asks: VariantAsk[] = [];
    for (const item of intent.items) {
      const target = resolveItem(item, state, "catalog");
      if (!target.ok) parts.push(target.say);
      else asks.push(...missingFor(target.product, item));
    }
    if (asks.length > 0) parts.push(variantQuestion(asks, zh));
  }
  return parts.join(zh ? "" : " ") || pick(zh, "Done.", "完成了。");
}

/** After cards were shown: a sentence on what they are, prices from the search result. */
function shownSentence(xs: readonly ToolExchange[], zh: boolean): string {
  const search = xs.find((x) => x.name === "search_products" && !x.isError);
  const listed = search ? listedProducts(search.content).slice(0, 6) : [];
  if (listed.length < 2)
    return pick(
      zh,
      "Those are the best matches; want me to add any, or compare two?",
      "这些是最匹配的商品；要加入购物车还是比较两款？",
    );
  const prices = listed.map((p) => Math.round(Number(p.price.replace(/[$,]/g, "")) * 100));
  const low = formatCents(Math.min(...prices));
  const high = formatCents(Math.max(...prices));
  return pick(
    zh,
    `Those are the ${listed.length} best matches, from ${low} to ${high}; want me to add any, or compare two?`,
    `这是最匹配的 ${listed.length} 款，价格从 ${low} 到 ${high}；要加入购物车还是比较两款？`,
  );
}
