/**
 * The cart belongs to the shopper, not to one chat: while a chat was idle, another chat of the
 * shopper (or the cart panel) may have changed it, and what the chat's earlier tool results said
 * of the cart is then out of date. Before a turn, {@link withCartNote} compares the cart the
 * conversation knows (read as the scripted model reads it) with the cart as it is, and when they
 * differ puts the cart as it is in front of the message as a system reminder. A chat that never
 * looked at the cart gets no note: it looks first. The conversation stays the chat's own memory.
 */

import { simRequestFromAnthropic } from "overlap-sim";
import { cartSummary } from "../agents/shop-views.js";
import type { ShopStore } from "../db/shop-store.js";
import type { CartLine } from "../domain/cart.js";
import { type KnownCartLine, readConversation } from "../model/conversation-state.js";
import { cartView } from "../views/cart-view.js";
import { cartChangedNote, withReminder } from "../views/system-reminder.js";

/** `text`, with the cart as it is in front of it when the chat's knowledge of the cart is stale. */
export async function withCartNote(
  store: ShopStore,
  sessionId: string,
  text: string,
): Promise<string> {
  const messages = await store.conversations.load(sessionId);
  if (messages.length === 0) return text;
  const known = readConversation(simRequestFromAnthropic({ messages }, {}).messages).cart;
  if (known === undefined) return text;
  const cart = await store.getCart(sessionId);
  if (sameLines(known, cart.lines)) return text;
  return withReminder(cartChangedNote(cartSummary(await cartView(store, cart))), text);
}

/** Same products, quantities and variants, in the same order (prices may have moved: not news). */
function sameLines(known: readonly KnownCartLine[], lines: readonly CartLine[]): boolean {
  return (
    known.length === lines.length &&
    known.every((k, i) => {
      const line = lines[i];
      return (
        line !== undefined &&
        k.productId === line.productId &&
        k.quantity === line.quantity &&
        (k.size ?? undefined) === line.size &&
        (k.color ?? undefined) === line.color
      );
    })
  );
}
