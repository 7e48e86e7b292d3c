/**
 * The shopper's cart as a whole and orders: view the cart, its total, check out (never without
 * every size and colour chosen), an answer to a question about checking out, past orders.
 */

import type { SimScript } from "overlap-sim";
import { addItems, lookAtCartFirst } from "./cart-handlers.js";
import { type ConversationState, turnExchanges } from "./conversation-state.js";
import { finalAnswer } from "./final-answer.js";
import { call, pick, say, text, variantQuestion } from "./replies.js";
import { productOf } from "./resolve-item.js";
import type { IntentOf } from "./shopper-handler.js";

/** The order for everything in the cart, once every line has its size and colour. */
export function checkout(state: ConversationState, intent: IntentOf<"checkout">): SimScript {
  const { zh } = state;
  if (!state.cart) return lookAtCartFirst(zh);
  // "I'll buy them" right after products were shown may mean those products: asked.
  const cartIds = new Set(state.cart.map((l) => l.productId));
  // "buy it" added the product in view: checking out is then the shopper's next word, not ours.
  if (intent.loose && turnExchanges(state).some((x) => x.name === "add_to_cart"))
    return say(
      `${finalAnswer(state, intent)}${pick(zh, ' Say "check out" when you are ready to order.', "准备好下单时请说「结账」。")}`,
    );
  // "buy it" about a product not in the (empty) cart: that product, added.
  if (intent.loose && state.cart.length === 0 && state.focus)
    return addItems(state, [{ query: "", quantity: 1, ref: { kind: "it" } }], false);
  const inView = state.focus ? [state.focus] : state.shown;
  if (intent.loose && inView.length > 0 && !inView.some((id) => cartIds.has(id)))
    return say(
      pick(
        zh,
        "Do you want me to add the products shown to your cart, or check out what is in your cart now?",
        "您是要把刚才展示的商品加入购物车，还是为购物车里现有的商品结账？",
      ),
    );
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
  return { blocks: [call("checkout", {})] };
}

/** A negated or questioning mention of checking out: an answer, never an order. */
export function checkoutQuestion(state: ConversationState): SimScript {
  const { zh } = state;
  return say(
    pick(
      zh,
      "I won't place an order until you ask me to. When you're ready, say \"check out\" and I'll place it for everything in your cart.",
      "在您明确要求之前我不会下单。准备好后请说「结账」，我会为购物车中的全部商品下单。",
    ),
  );
}

/** The shopper's orders (or one by id). */
export function pastOrders(
  state: ConversationState,
  intent: IntentOf<"orders">,
  tools: ReadonlySet<string>,
): SimScript {
  const { zh } = state;
  if (!tools.has("my_orders"))
    return say(pick(zh, "I can't look up orders here.", "这里无法查询订单。"));
  return {
    blocks: [
      text(pick(zh, "Let me look up your orders.", "我查一下您的订单。")),
      call("my_orders", intent.orderId ? { orderId: intent.orderId } : {}),
    ],
  };
}
