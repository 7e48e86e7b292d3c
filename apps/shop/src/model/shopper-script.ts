/**
 * The shopper side of the scripted model. Each response is one step: read the request, resolve
 * the products it mentions (by words against the catalog, or by reference against the cart and
 * the products shown last), then call the tools a careful model would call, or ask when it is
 * not sure which product is meant. When this turn's results are in, write the answer from them.
 * A request that needs the cart's contents and has none in the conversation looks at the cart
 * first (`view_cart`), then acts.
 */

import type { SimScript } from "overlap-sim";
import { answeredQuestion, answeredVariantQuestion } from "./answered-question.js";
import { searchFollowUp } from "./browse-handlers.js";
import { type ConversationState, lastRound, turnExchanges } from "./conversation-state.js";
import { finalAnswer } from "./final-answer.js";
import { readRequest } from "./reading/read-request.js";
import { say } from "./replies.js";
import type { ShopperHandler } from "./shopper-handler.js";
import { SHOPPER_HANDLERS } from "./shopper-handlers.js";
import { readShopperIntent, type ShopperIntent } from "./shopper-intent.js";

/** The shopper's next response. */
export function shopperScript(
  conversation: ConversationState,
  tools: ReadonlySet<string>,
): SimScript {
  const answered = answeredVariantQuestion(conversation) ?? answeredQuestion(conversation);
  let state = conversation;
  let intent: ShopperIntent;
  if (answered) ({ state, intent } = answered);
  else {
    // The slot reading and the dialogue state refine the phrase reading (see reading/).
    const reading = readRequest(conversation, readShopperIntent(conversation.userText));
    if ("reply" in reading) return say(reading.reply);
    intent = reading.intent;
  }
  const done = turnExchanges(state);
  const search = lastRound(state).find((x) => x.name === "search_products");
  // A search made to find a product to add (by a name the script did not know) is not a browse.
  if (search && intent.kind !== "add") return searchFollowUp(state, search);
  // Each kind's handler, looked up by the kind it is registered under.
  const handler = SHOPPER_HANDLERS[intent.kind] as ShopperHandler;
  const finals = handler.finals ?? [];
  if (done.some((x) => finals.includes(x.name))) return say(finalAnswer(state, intent));
  const next = handler.act(state, intent, tools);
  // Never call again what this turn already called: answer with what is known instead.
  const calls = next.blocks.filter((b) => b.type === "tool_use");
  if (calls.length > 0 && calls.every((c) => done.some((x) => x.name === c.name)))
    return say(finalAnswer(state, intent));
  return next;
}
