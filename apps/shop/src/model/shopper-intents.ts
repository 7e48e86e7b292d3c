/** The requests of the shopper side, as the reading gives them to the handlers. */

import type { NamedItem, Ref } from "./read-mention.js";
import type { ProductAttribute, ShownOrder } from "./read-question.js";

/** A request of the shopper side. */
export type ShopperIntent =
  | { kind: "add"; items: NamedItem[]; total: boolean }
  /**
   * "add these two" / "把前两件商品加入购物车" / "the last two you showed": the products shown last,
   * `count` of them from the start (or the end); no count: the shopper did not say how many.
   */
  | {
      kind: "add-shown";
      count?: number;
      from?: "start" | "end";
      size?: string;
      color?: string;
      total: boolean;
    }
  /** "only keep the jacket", "别的都删掉，只留夹克": every other line out of the cart. */
  | { kind: "keep-only"; query: string; ref?: Ref }
  /** "wait, not that one, the headlamp in silver": the product just added swapped for another. */
  | { kind: "replace"; item: NamedItem }
  /** "is it waterproof?", "what's it made of", "适合下雨天吗": a question about a product's facts. */
  | { kind: "attribute"; query: string; ref?: Ref; attribute: ProductAttribute }
  /** "which one is top rated", "评分最高的是哪个": an answer about the products shown, no action. */
  | { kind: "which-shown"; by: ShownOrder }
  /** A request that wants something without saying what ("something for my dad"). */
  | { kind: "vague" }
  /** "what do you sell?": the kinds of products the shop has. */
  | { kind: "catalog-overview" }
  /** A message in a language the assistant does not write. */
  | { kind: "other-language" }
  | {
      kind: "search";
      query: string;
      maxPriceCents?: number;
      minPriceCents?: number;
      /** "cheaper ones", "便宜一点的": below what was shown last. */
      cheaper?: boolean;
      /** The catalog category the products must be of. */
      category?: string;
      /** "the cheapest", "the best reviewed": the one product of the results to show. */
      best?: "cheapest" | "best-rated";
    }
  /** Compare products named (`items`) or shown last (`count`). */
  | { kind: "compare"; count: number; items?: NamedItem[] }
  | { kind: "remove"; query: string; ref?: Ref; quantity?: number }
  /** "make it 3", "change the socks to 2", "改成3双". */
  | { kind: "set-quantity"; query: string; ref?: Ref; quantity: number }
  /** "one more", "another pair of socks", "one less", "再来一双". */
  | { kind: "change-quantity"; query: string; ref?: Ref; delta: number }
  /** "make it size 10", "in blue instead", "换成10码". */
  | {
      kind: "set-variant";
      query: string;
      ref?: Ref;
      /** The product, when the request picked it by its place in the list shown. */
      id?: string;
      size?: string;
      color?: string;
      /** "change the size": what to ask for when the request does not name it. */
      ask?: "size" | "color";
    }
  | { kind: "clear-cart" }
  /** "tell me more about …", "what sizes does it come in", "介绍一下 …". */
  | { kind: "details"; query: string; ref?: Ref }
  /** "do you have it in size 10?", "is the … in stock", "有10码吗". */
  | { kind: "availability"; query: string; ref?: Ref; size?: string; color?: string }
  /** "what did I order?", "where is my order", "我的订单". */
  | { kind: "orders"; orderId?: string }
  | { kind: "view-cart" }
  /** The cart's total; `delivery`: asked about delivery or shipping too. */
  | { kind: "total"; delivery?: boolean }
  /** `loose`: said as "I'll buy them", which could also mean the products shown. */
  | { kind: "checkout"; loose?: boolean }
  /** A mention of checking out that is negated or a question: never an order. */
  | { kind: "checkout-question" }
  /** A change the shopper asked not to make ("don't empty my cart"). */
  | { kind: "declined" }
  | { kind: "ask-merchant"; question: string }
  /** "what do reviews say about …", "网上对这双鞋评价怎么样": what the web says (`web-lookup.ts`). */
  | { kind: "web-lookup"; query: string; ref?: Ref }
  | { kind: "greeting" }
  | { kind: "thanks" }
  | { kind: "unknown" };
