/** The shopper's words that need no tool: a declined change, greetings, thanks, the rest. */

import type { SimScript } from "overlap-sim";
import type { ConversationState } from "./conversation-state.js";
import { call, categoryWords, listOf, pick, say, text } from "./replies.js";
import { index } from "./resolve-item.js";
import type { IntentOf } from "./shopper-handler.js";

/** A change the shopper asked not to make. */
export function declined(state: ConversationState): SimScript {
  const { zh } = state;
  return say(pick(zh, "OK, I'll leave your cart as it is.", "好的，购物车保持不变。"));
}

/** A question passed on to the merchant. */
export function askMerchant(state: ConversationState, intent: IntentOf<"ask-merchant">): SimScript {
  const { zh } = state;
  return {
    blocks: [
      text(pick(zh, "Let me ask the merchant.", "我去问一下商家。")),
      call("ask_merchant", { question: intent.question }),
    ],
  };
}

/** Who the assistant is and what it can do. */
export function greet(state: ConversationState): SimScript {
  const { zh } = state;
  return say(
    pick(
      zh,
      "Hi! I'm the store's scripted shopping assistant (a script, not a language model). Ask me to find something (\"trail shoes under 120\"), tell you about a product, add it to your cart in your size, compare two, or check out.",
      "您好！我是商店的脚本购物助手（脚本，不是语言模型）。可以帮您找商品（例如「推荐100元以下的跑鞋」）、介绍商品、按尺码加入购物车、比较商品或结账。",
    ),
  );
}

/** "You're welcome", and what else it can do. */
export function welcome(state: ConversationState): SimScript {
  const { zh } = state;
  return say(
    pick(
      zh,
      "You're welcome! Anything else: another product, your cart, or checking out?",
      "不客气！还需要什么吗？可以继续挑选商品、查看购物车或结账。",
    ),
  );
}

/** Nothing was understood: what the assistant can do, with examples. */
export function notUnderstood(state: ConversationState): SimScript {
  const { zh } = state;
  return say(
    pick(
      zh,
      'I\'m the store\'s scripted shopping assistant. I can search products ("show me running shoes under 100"), show and compare them, add them to your cart and tell you the total ("add the Aero trail runner and the wool socks to my cart and tell me the total"), check out, and ask the merchant about restocks or bulk discounts.',
      "我是商店的脚本购物助手。我可以搜索商品（例如「推荐一些跑鞋 100元以下」）、展示和比较商品、加入购物车并计算总价、结账，还可以向商家询问补货和批发折扣。",
    ),
  );
}

/** A want without a thing ("something for my dad"): what kind of product, with examples. */
export function askWhatKind(state: ConversationState): SimScript {
  return say(
    pick(
      state.zh,
      "What kind of product are you looking for? For example running shoes, a rain jacket, a water bottle or earbuds; a budget helps too.",
      "您想找哪类商品？例如跑鞋、雨衣、水壶或耳机；告诉我预算也可以。",
    ),
  );
}

/** The shop's categories, with a way to see each. */
export function catalogOverview(state: ConversationState): SimScript {
  const categories = [
    ...new Set(
      index()
        .all()
        .map((p) => p.category),
    ),
  ];
  return say(
    pick(
      state.zh,
      `We sell ${listOf(
        categories.map((c) => c.toLowerCase()),
        false,
      )}. Tell me what you're looking for, e.g. "show me running shoes under 100".`,
      `本店有${listOf(
        categories.map((c) => categoryWords(c, true)),
        true,
      )}。告诉我您想找什么，例如「推荐100美元以下的跑鞋」。`,
    ),
  );
}

/** A message in another language: a polite answer in both languages the assistant writes. */
export function otherLanguage(): SimScript {
  return say(
    "Sorry, I can only help in English or Chinese: could you write your request in one of them? 抱歉，我目前只能用英文或中文为您服务，请用英文或中文告诉我您的需求。",
  );
}
