/**
 * The merchant side of the scripted model (and the read-only merchant a shopper's `ask_merchant`
 * reaches). Products are found with the same resolver as the shopper's; a request by category
 * ("inventory of trail shoes", "restock all socks") covers every product the words describe. A
 * change to more than one product is one call the merchant confirms (`restock_products`,
 * `set_discount`, `end_discount`), never a call per product. Steps that need a current number (a
 * price to raise by 10%) read it from a tool first, then act on what the tool said.
 */

import type { SimScript } from "overlap-sim";
import { type ConversationState, turnExchanges } from "./conversation-state.js";
import { finalAnswer } from "./merchant-answer.js";
import { merchantAct } from "./merchant-handlers.js";
import { readMerchantIntent } from "./merchant-intent.js";
import { merchantNumberQuestion } from "./reading/merchant-numbers.js";
import { say } from "./replies.js";

/** The merchant's next response. */
export function merchantScript(
  conversation: ConversationState,
  tools: ReadonlySet<string>,
): SimScript {
  // A merchant who writes Chinese words around English product names ("把 Aero Trail Runner
  // 改名为 …") is answered in Chinese, as the page turns Chinese for them; a quoted new name in
  // Chinese does not count.
  const unquoted = conversation.userText.replace(/["“「『][^"”」』]*["”」』]/g, " ");
  const state = conversation.zh
    ? conversation
    : { ...conversation, zh: /[\u3400-\u9fff]/.test(unquoted) };
  const done = turnExchanges(state);
  // A number no change can take is asked about before anything is read as a change.
  const numbers = done.length === 0 ? merchantNumberQuestion(state.userText, state.zh) : undefined;
  if (numbers) return say(numbers);
  const intent = readMerchantIntent(state.userText);
  const next = merchantAct(state, intent, tools, done);
  const calls = next.blocks.filter((b) => b.type === "tool_use");
  // Never call again what this turn already called: answer with what is known instead.
  if (calls.length > 0 && calls.every((c) => done.some((x) => x.name === c.name)))
    return say(finalAnswer(state, intent, done));
  return next;
}
