/**
 * The shopper's cart changes: add named items or the products shown, remove a line or part of
 * it, set or change a quantity, change a size or colour, empty the cart. A change that needs the
 * cart's lines looks at the cart first; a product that needs a size or colour is asked about.
 */

import type { SimBlock, SimScript } from "overlap-sim";
import type { ConversationState } from "./conversation-state.js";
import type { NamedItem } from "./read-mention.js";
import { call, listOf, pick, say, text, variantQuestion } from "./replies.js";
import { missingFor, named, resolveItem, variantFor, variantWords } from "./resolve-item.js";
import type { IntentOf } from "./shopper-handler.js";

/** "Let me check your cart first", with the view_cart call. */
export function lookAtCartFirst(zh: boolean): SimScript {
  return {
    blocks: [
      text(pick(zh, "Let me check your cart first.", "我先看一下您的购物车。")),
      call("view_cart", {}),
    ],
  };
}

/** The add_to_cart calls for the items that resolve; the others are asked about at the end. */
export function addItems(
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

/** The products shown last, in the order shown. */
export function addShown(state: ConversationState, intent: IntentOf<"add-shown">): SimScript {
  const { zh } = state;
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

/** A line out of the cart, or some of its units. */
export function removeLine(state: ConversationState, intent: IntentOf<"remove">): SimScript {
  const { zh } = state;
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

/** A line set to a quantity ("make it 3"); 0 removes it. */
export function setQuantity(state: ConversationState, intent: IntentOf<"set-quantity">): SimScript {
  const { zh } = state;
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

/** A line changed to another size or colour. */
export function setVariant(state: ConversationState, intent: IntentOf<"set-variant">): SimScript {
  const { zh } = state;
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

/** Every line out of the cart. */
export function clearCart(state: ConversationState): SimScript {
  const { zh } = state;
  if (state.cart?.length === 0)
    return say(pick(zh, "Your cart is already empty.", "您的购物车已经是空的。"));
  return {
    blocks: [text(pick(zh, "Emptying your cart.", "好的，清空购物车。")), call("clear_cart", {})],
  };
}
