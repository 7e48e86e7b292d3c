/**
 * What the scripted shop assistant says about a call the shopper had to approve and that did not
 * run: checkout declined ("The user declined this action."), unanswered in time, or
 * cancelled while it waited. The policy reads the tool_result text as a model would.
 */

import type { ToolExchange } from "./conversation-state.js";
import { pick } from "./replies.js";

/** The sentence for a call that was not run for want of approval, or `undefined` for others. */
export function notApprovedSentence(x: ToolExchange, zh: boolean): string | undefined {
  if (!x.isError) return undefined;
  const checkout = x.name === "checkout";
  if (/^The user declined this action\./.test(x.content)) {
    return checkout
      ? pick(
          zh,
          'OK, I did not place the order. Your cart is unchanged; say "check out" whenever you are ready.',
          "好的，订单没有提交，购物车保持不变。准备好后请说「结账」。",
        )
      : pick(zh, "OK, I did not do that.", "好的，没有执行这个操作。");
  }
  if (/^No answer from the user in time/.test(x.content)) {
    return checkout
      ? pick(
          zh,
          'I did not place the order: it was not confirmed in time. Your cart is unchanged; say "check out" to try again.',
          "订单没有提交：没有及时确认。购物车保持不变，请再说一次「结账」。",
        )
      : pick(zh, "I did not do that: it was not confirmed in time.", "没有执行：没有及时确认。");
  }
  if (/waited for the user's approval/.test(x.content) && checkout) {
    return pick(zh, "The order was not placed.", "订单没有提交。");
  }
  return undefined;
}
