/**
 * The shop's policy for the embedded scripted model: it reads the conversation like a model
 * would (the user's words, this turn's tool results, what earlier results said about the cart and
 * the products shown) and answers with text plus tool calls, in parallel where a real model would,
 * then writes the final answer from the results, in the language of the request. It knows the
 * catalog's product names (as a model that saw the catalog would) and finds the product a shopper
 * means with a fuzzy resolver (`product-resolver.ts`), asking when two are close and never acting
 * on a weak match; every fact it states about prices, stock, the cart and orders comes from tool
 * results. It is a script, not a model, and is labelled so everywhere.
 */

import type { SimPolicy } from "overlap-sim";
import { readConversation } from "./conversation-state.js";
import { merchantScript } from "./merchant-script.js";
import { shopperScript } from "./shopper-script.js";

/** The shop's policy: the merchant's script when merchant tools are offered, else the shopper's. */
export const shopPolicy: SimPolicy = (request) => {
  // The provider's own tools (web search) beside the shop's: the script uses them when offered.
  const tools = new Set([...request.tools.map((t) => t.name), ...(request.providerTools ?? [])]);
  const state = readConversation(request.messages);
  return tools.has("low_stock_report") ? merchantScript(state, tools) : shopperScript(state, tools);
};
