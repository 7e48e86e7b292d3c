/**
 * The shopper's cart changes: add named items or the products shown, remove a line or part of
 * it, keep one line and remove the rest, swap what was just added, set or change a quantity,
 * change a size or colour, empty the cart. A change that needs the cart's lines looks at the cart
 * first; a product that needs a size or colour (or was asked in one it does not come in) is asked
 * about, never added on a guess. The calls carry no narration: the answer, written from the
 * results, says what was done, once.
 */

import type { SimBlock, SimScript } from "overlap-sim";
import type { ConversationState } from "./conversation-state.js";
import type { NamedItem } from "./read-mention.js";
import { call, pick, say, text, variantQuestion } from "./replies.js";
import { itemQuestion, resolveItem, unknownToCatalog, variantFor } from "./resolve-item.js";
import type { IntentOf } from "./shopper-handler.js";
import { chineseColorName } from "./zh-lexicon.js";

/** "Let me check your cart first", with the view_cart call. */
export function lookAtCartFirst(zh: boolean): SimScript {
  return {
    blocks: [
      text(pick(zh, "Let me check your cart first.", "我先看一下您的购物车。")),
      call("view_cart", {}),
    ],
  };
}

/** The add_to_cart calls of items ready to add: resolved, with the size and colour they need. */
function addCalls(state: ConversationState, items: readonly NamedItem[]): SimBlock[] {
  return items.flatMap((item) => {
    const target = resolveItem(item, state, "catalog");
    if (!target.ok || itemQuestion(target.product, item, state.zh) !== undefined) return [];
    const v = variantFor(target.product, item);
    return [
      call("add_to_cart", {
        productId: target.product.id,
        quantity: item.quantity,
        ...(v.size ? { size: v.size } : {}),
        ...(v.color ? { color: v.color } : {}),
      }),
    ];
  });
}

/** The add_to_cart calls for the items that resolve; the others are asked about in the answer. */
export function addItems(
  state: ConversationState,
  items: readonly NamedItem[],
  total: boolean,
): SimScript {
  const { zh } = state;
  const calls = addCalls(state, items);
  // A name the catalog the script knows lacks may be a product's new name: the catalog search
  // (which has the current names) is asked once, and the add resolves against its results.
  const unknown = items.find(
    (item) => unknownToCatalog(item) && !resolveItem(item, state, "catalog").ok,
  );
  const searched = state.rounds.flat().some((x) => x.name === "search_products");
  if (calls.length === 0 && unknown && !searched)
    return {
      blocks: [
        text(pick(zh, "Let me look that up.", "我查一下。")),
        call("search_products", { query: unknown.query, limit: 5 }),
      ],
    };
  if (calls.length === 0) {
    // Nothing can be added yet: every question at once (which product, which size).
    const questions = items.map((item) => {
      const target = resolveItem(item, state, "catalog");
      return target.ok ? (itemQuestion(target.product, item, zh) ?? "") : target.say;
    });
    return say(questions.filter((q) => q !== "").join(zh ? "" : " "));
  }
  if (total) calls.push(call("cart_total", {}));
  return { blocks: calls };
}

/** The products shown last: a run of them, each with the size and colour the request named. */
export function addShown(state: ConversationState, intent: IntentOf<"add-shown">): SimScript {
  const { zh } = state;
  if (state.shown.length === 0)
    return say(
      pick(
        zh,
        "Which products should I add? Ask me to show you some first, or tell me their names.",
        "要加入哪几件商品？可以先让我展示几款，或者告诉我商品名称。",
      ),
    );
  // "I'll take those" after six: how many is not said, so it is asked.
  if (intent.count === undefined && state.shown.length > 2)
    return say(
      pick(
        zh,
        `Which of these should I add: all ${state.shown.length}, or some of them (for example "the first two")?`,
        `要加入哪几件：全部 ${state.shown.length} 件，还是其中几件（例如「前两件」）？`,
      ),
    );
  return addItems(state, shownItems(state, intent), intent.total);
}

/** The items an "add the products shown" request stands for, in the order shown. */
export function shownItems(state: ConversationState, intent: IntentOf<"add-shown">): NamedItem[] {
  const count = intent.count ?? state.shown.length;
  const ids = intent.from === "end" ? state.shown.slice(-count) : state.shown.slice(0, count);
  return ids.map(
    (id): NamedItem => ({
      query: "",
      id,
      quantity: 1,
      ...(intent.size !== undefined ? { size: intent.size } : {}),
      ...(intent.color !== undefined ? { color: intent.color } : {}),
    }),
  );
}

/** A line out of the cart, or some of its units. */
export function removeLine(state: ConversationState, intent: IntentOf<"remove">): SimScript {
  const { zh } = state;
  if (!state.cart) return lookAtCartFirst(zh);
  const target = resolveItem(intent, state, "cart");
  if (!target.ok) return say(target.say);
  const { product } = target;
  const line = state.cart.find((l) => l.productId === product.id)!;
  if (intent.quantity !== undefined && intent.quantity < line.quantity)
    return {
      blocks: [
        call("update_cart_item", {
          productId: product.id,
          quantity: line.quantity - intent.quantity,
        }),
      ],
    };
  return { blocks: [call("remove_from_cart", { productId: product.id })] };
}

/** "Only keep the jacket": every other line out of the cart. */
export function keepOnly(state: ConversationState, intent: IntentOf<"keep-only">): SimScript {
  const { zh } = state;
  if (!state.cart) return lookAtCartFirst(zh);
  const target = resolveItem(intent, state, "cart");
  if (!target.ok) return say(target.say);
  const others = [
    ...new Set(state.cart.map((l) => l.productId).filter((id) => id !== target.product.id)),
  ];
  if (others.length === 0)
    return say(
      pick(
        zh,
        `Your cart holds only the ${target.product.name} already.`,
        `您的购物车里已经只有 ${target.product.name} 了。`,
      ),
    );
  return { blocks: others.map((id) => call("remove_from_cart", { productId: id })) };
}

/** "Wait, not that one, the headlamp": the product just added out, the one meant in. */
export function replaceLine(state: ConversationState, intent: IntentOf<"replace">): SimScript {
  const { zh } = state;
  if (!state.cart) return lookAtCartFirst(zh);
  // Nothing in the cart to swap: the product meant is simply added.
  if (state.cart.length === 0) return addItems(state, [intent.item], false);
  const wanted = resolveItem(intent.item, state, "catalog");
  if (!wanted.ok) return say(wanted.say);
  // The new product first needs its size or colour: asked before anything is removed.
  const question = itemQuestion(wanted.product, intent.item, zh);
  if (question) return say(question);
  const old = resolveItem({ query: "", ref: { kind: "it" } }, state, "cart");
  if (!old.ok) return say(old.say);
  if (old.product.id === wanted.product.id) return addItems(state, [intent.item], false);
  return {
    blocks: [
      call("remove_from_cart", { productId: old.product.id }),
      ...addCalls(state, [intent.item]),
    ],
  };
}

/** A line set to a quantity ("make it 3"); 0 removes it. */
export function setQuantity(state: ConversationState, intent: IntentOf<"set-quantity">): SimScript {
  const { zh } = state;
  if (!state.cart) return lookAtCartFirst(zh);
  const target = resolveItem(intent, state, "cart");
  if (!target.ok) return say(target.say);
  return {
    blocks: [call("update_cart_item", { productId: target.product.id, quantity: intent.quantity })],
  };
}

/** "One more" / "one less" of a line (one more: in that line's size and colour). */
export function changeQuantity(
  state: ConversationState,
  intent: IntentOf<"change-quantity">,
): SimScript {
  const { zh } = state;
  const needsCart = intent.delta < 0 || (intent.query === "" && !state.focus);
  if (needsCart && !state.cart) return lookAtCartFirst(zh);
  const target = resolveItem(intent, state, intent.delta < 0 ? "cart" : "cart-first");
  if (!target.ok) return say(target.say);
  const { product } = target;
  const held = state.cart?.filter((l) => l.productId === product.id) ?? [];
  const same = held.length === 1 ? held[0] : undefined;
  if (intent.delta > 0) {
    // More of a product not in the cart yet needs its size and colour like any add.
    if (!same) return addItems(state, [{ query: product.name, quantity: intent.delta }], false);
    return {
      blocks: [
        call("add_to_cart", {
          productId: product.id,
          quantity: intent.delta,
          ...(same.size ? { size: same.size } : {}),
          ...(same.color ? { color: same.color } : {}),
        }),
      ],
    };
  }
  const line = state.cart!.find((l) => l.productId === product.id)!;
  const quantity = Math.max(0, line.quantity + intent.delta);
  return {
    blocks: [
      quantity === 0
        ? call("remove_from_cart", { productId: product.id })
        : call("update_cart_item", { productId: product.id, quantity }),
    ],
  };
}

/** A line changed to another size or colour; "change the size" asks which. */
export function setVariant(state: ConversationState, intent: IntentOf<"set-variant">): SimScript {
  const { zh } = state;
  if (!state.cart) return lookAtCartFirst(zh);
  const target = resolveItem(intent, state, "cart");
  if (!target.ok) return say(target.say);
  const { product } = target;
  if (intent.size === undefined && intent.color === undefined && intent.ask === undefined)
    return say(
      pick(
        zh,
        `What should I change on the ${product.name}: the size, the colour or the quantity?`,
        `${product.name} 要改什么：尺码、颜色还是数量？`,
      ),
    );
  if (intent.size === undefined && intent.color === undefined) {
    const missing = intent.ask === "color" || product.sizes.length === 0 ? "color" : "size";
    if (missing === "color" && product.colors.length <= 1)
      return say(
        pick(
          zh,
          `The ${product.name} comes in ${product.colors.join("") || "one colour"} only.`,
          `${product.name} 只有 ${product.colors.map(chineseColorName).join("") || "一种颜色"}。`,
        ),
      );
    return say(
      variantQuestion(
        [{ name: product.name, missing: [missing], sizes: product.sizes, colors: product.colors }],
        zh,
        true,
      ),
    );
  }
  const question = itemQuestion(
    product,
    { ...intent, ...lineVariant(state, product.id, intent) },
    zh,
  );
  if (question && !variantFor(product, intent).valid) return say(question);
  const v = variantFor(product, intent);
  return {
    blocks: [
      call("update_cart_item", {
        productId: product.id,
        ...(v.size ? { size: v.size } : {}),
        ...(v.color ? { color: v.color } : {}),
      }),
    ],
  };
}

/** The size and colour of the product's line in the cart, filling what a change leaves out. */
function lineVariant(
  state: ConversationState,
  id: string,
  change: { size?: string; color?: string },
): { size?: string; color?: string } {
  const line = state.cart?.find((l) => l.productId === id);
  const size = change.size ?? line?.size;
  const color = change.color ?? line?.color;
  return { ...(size ? { size } : {}), ...(color ? { color } : {}) };
}

/** Every line out of the cart. */
export function clearCart(state: ConversationState): SimScript {
  const { zh } = state;
  if (state.cart?.length === 0)
    return say(pick(zh, "Your cart is already empty.", "您的购物车已经是空的。"));
  return { blocks: [call("clear_cart", {})] };
}
