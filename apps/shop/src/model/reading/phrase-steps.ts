/**
 * The phrase reading: a request read by the phrasings people use, one small step per kind of
 * request, tried in order. The order is part of the meaning (a checkout mention before an add,
 * availability before attributes, a search after both), so it is one table, pinned by
 * phrase-steps.test.ts. The slot reading (read-request.ts) runs on top of it.
 */

import { isOtherLanguage } from "../intent-words.js";
import type { ShopperIntent } from "../shopper-intents.js";
import {
  attribute,
  availability,
  bareProduct,
  catalogOverview,
  compare,
  details,
  onlyPick,
  search,
  whichShown,
} from "./phrases-browse.js";
import {
  add,
  cartChange,
  changeIt,
  clearCart,
  correction,
  declinedAdd,
  keepOnly,
  remove,
  total,
  viewCart,
  wanting,
} from "./phrases-cart.js";
import { askMerchant, buyIt, checkout, orders, webLookup } from "./phrases-orders.js";
import { greeting, thanks } from "./phrases-talk.js";
import { readSaid, type Said } from "./said.js";

/** One step: the intent it reads, or undefined to pass to the next. */
export type PhraseStep = (said: Said) => ShopperIntent | undefined;

/** The steps, in the order they are tried. */
export const PHRASE_STEPS: ReadonlyArray<readonly [name: string, step: PhraseStep]> = [
  ["webLookup", webLookup],
  ["checkout", checkout],
  ["buyIt", buyIt],
  ["orders", orders],
  ["askMerchant", askMerchant],
  ["keepOnly", keepOnly],
  ["correction", correction],
  ["whichShown", whichShown],
  ["clearCart", clearCart],
  ["compare", compare],
  ["remove", remove],
  ["cartChange", cartChange],
  ["wanting", wanting],
  ["declinedAdd", declinedAdd],
  ["add", add],
  ["viewCart", viewCart],
  ["total", total],
  ["availability", availability],
  ["attribute", attribute],
  ["details", details],
  ["search", search],
  ["greeting", greeting],
  ["thanks", thanks],
  ["onlyPick", onlyPick],
  ["catalogOverview", catalogOverview],
  ["changeIt", changeIt],
  ["bareProduct", bareProduct],
];

/** A request read by its phrasings: the first step that reads it, else `unknown`. */
export function readPhrases(raw: string): ShopperIntent {
  if (isOtherLanguage(raw)) return { kind: "other-language" };
  const said = readSaid(raw);
  if (said.text === "") return { kind: "unknown" };
  for (const [, step] of PHRASE_STEPS) {
    const intent = step(said);
    if (intent) return intent;
  }
  return { kind: "unknown" };
}
