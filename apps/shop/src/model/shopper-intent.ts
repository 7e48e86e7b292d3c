/**
 * What a shopper asked for, read from plain English or Chinese text by rules (the phrase steps of
 * reading/phrase-steps.ts; the slot reading of reading/read-request.ts completes it). This is the
 * scripted model's "understanding": deterministic, tolerant of the way people type (lower case,
 * no punctuation, typos in the command words, mixed English and Chinese), and honest about what
 * it does not understand (`unknown`). Which product a mention means is not decided here: an item
 * carries the words (`query`) or a reference to the conversation (`ref`: "it", "both", "the
 * cheaper one"), and the policy resolves them against the catalog, the cart and what was shown.
 */

import { readPhrases } from "./reading/phrase-steps.js";
import type { ShopperIntent } from "./shopper-intents.js";

export type { ShopperIntent } from "./shopper-intents.js";

/** How many texts' readings {@link readShopperIntent} keeps (the oldest read first goes). */
const KEPT_READINGS = 512;
const readings = new Map<string, ShopperIntent>();

/**
 * Reads a shopper's request. The reading depends on the text alone (and the fixed catalog), and
 * the script asks for it several times per request and again at every request of a turn, so the
 * last texts' readings are kept, frozen: a caller that changed one would change the next one.
 */
export function readShopperIntent(raw: string): ShopperIntent {
  const known = readings.get(raw);
  if (known !== undefined) return known;
  const intent = deepFreeze(readPhrases(raw));
  if (readings.size >= KEPT_READINGS) {
    const oldest = readings.keys().next().value;
    if (oldest !== undefined) readings.delete(oldest);
  }
  readings.set(raw, intent);
  return intent;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
