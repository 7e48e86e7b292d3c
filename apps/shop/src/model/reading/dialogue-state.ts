/**
 * The dialogue state the reading carries across turns: what the shopper said earlier in the chat
 * (a size, a colour, a budget, a category) that a later request leaves unsaid. It is read from
 * the shopper's earlier messages, newest first, as a model reads its context: nothing is stored
 * outside the conversation.
 */

import type { ConversationState } from "../conversation-state.js";
import { priceFilter } from "../price-filter.js";
import { readVariant } from "../read-variant.js";
import { readCategory, readPreference, readSize } from "./read-slots.js";

/** Slots said earlier in the chat. */
export interface CarriedSlots {
  /** The newest size said ("I'm a size 10", "add … in size 9"), in the shopper's words. */
  readonly sizes: readonly string[];
  /** A colour said in the request just before ("does it come in white?"). */
  readonly color?: string;
  /** The newest upper price bound said ("my budget is $80", "under 150"). */
  readonly maxPriceCents?: number;
  /** The newest category named ("hiking boots", "jackets"). */
  readonly category?: string;
}

/** How many earlier messages a slot is carried from. */
const CARRIED_FOR = 6;

/** What the earlier messages of the chat said, for the request to inherit. */
export function carriedSlots(state: ConversationState): CarriedSlots {
  const earlier = state.earlierTexts.slice(0, CARRIED_FOR);
  const sizes: string[] = [];
  let maxPriceCents: number | undefined;
  let category: string | undefined;
  for (const text of earlier) {
    const said = readPreference(text);
    const size = said?.size ?? readSize(text);
    if (size !== undefined && !sizes.includes(size)) sizes.push(size);
    maxPriceCents ??= said?.maxPriceCents ?? priceFilter(text).maxPriceCents;
    category ??= readCategory(text);
  }
  const color = earlier[0] === undefined ? undefined : readVariant(earlier[0]).color;
  return {
    sizes,
    ...(color !== undefined ? { color } : {}),
    ...(maxPriceCents !== undefined ? { maxPriceCents } : {}),
    ...(category !== undefined ? { category } : {}),
  };
}
