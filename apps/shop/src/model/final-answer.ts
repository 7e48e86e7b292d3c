/** The final answer of a shopper turn, written from every result of the turn. */

import { chooseVariant } from "../domain/cart.js";
import { formatCents } from "../domain/money.js";
import { notApprovedSentence } from "./approval-replies.js";
import { shownItems } from "./cart-handlers.js";
import { type ConversationState, type ToolExchange, turnExchanges } from "./conversation-state.js";
import { attributeSentence } from "./question-handlers.js";
import {
  availabilitySentence,
  cartChangeSentence,
  cartSentence,
  compareSentence,
  detailsSentence,
  errorSentence,
  listedProducts,
  orderSentence,
  ordersSentence,
  pick,
  productFacts,
  totalSentence,
} from "./replies.js";
import { itemQuestion, productOf, resolveItem } from "./resolve-item.js";
import type { ShopperIntent } from "./shopper-intent.js";

/** The final answer of a turn, from every result of the turn. */
export function finalAnswer(state: ConversationState, intent: ShopperIntent): string {
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
        if (intent.kind === "total" && intent.delivery)
          parts.push(
            pick(
              zh,
              "This shop lists no separate delivery charge: shipping is free, an order is charged its items' prices only, so the cart total is what you pay.",
              "本店没有单独列出运费：免运费，订单只收商品的价格，购物车总价就是您要付的金额。",
            ),
          );
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
        else if (intent.kind === "attribute")
          parts.push(
            attributeSentence(facts, productOf(facts.id)?.tags ?? [], intent.attribute, zh),
          );
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
        // The merchant's answer shows in the call's own card as it is written: repeating it
        // here would print it twice.
        parts.push(
          pick(
            zh,
            "That's the merchant's answer, above. Anything else I can help with?",
            "商家的回答在上面。还有什么可以帮您？",
          ),
        );
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
  if (intent.kind === "add" || intent.kind === "add-shown") {
    const items = intent.kind === "add" ? intent.items : shownItems(state, intent);
    for (const item of items) {
      const target = resolveItem(item, state, "catalog");
      const question = target.ok ? itemQuestion(target.product, item, zh) : target.say;
      if (question) parts.push(question);
    }
  }
  return parts.join(zh ? "" : " ") || pick(zh, "Done.", "完成了。");
}

/** After cards were shown: a sentence on what they are, prices from the search result. */
function shownSentence(xs: readonly ToolExchange[], zh: boolean): string {
  const search = xs.find((x) => x.name === "search_products" && !x.isError);
  // The products the cards show, which may be fewer than the search listed (constraints).
  const shown = xs.findLast((x) => x.name === "show_products")?.input.productIds;
  const ids = new Set(Array.isArray(shown) ? shown.map(String) : []);
  const listed = search
    ? listedProducts(search.content)
        .filter((p) => ids.size === 0 || ids.has(p.id))
        .slice(0, 6)
    : [];
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
