/**
 * The products this page already knows by name: from the cards it drew (product tiles,
 * comparisons, stock tables, orders), the carts it was sent, the results of searches and cart
 * changes, the facts of refused calls, and the cart panel. Chips and cards use it to say "Aero Trail Runner" where a call
 * only names `p-0001`. Pure: built from the client state and the cart.
 */

import type { AgentState, CallView } from "overlap-runtime/client";
import { type Cart, isRecord } from "../api/types";

/** What is known of one product. */
export interface KnownProduct {
  name: string;
  /** Its category ("Running Shoes"), when a card said it. */
  category: string | undefined;
}

export type ProductBook = ReadonlyMap<string, KnownProduct>;

type Book = Map<string, KnownProduct>;

function note(book: Book, id: unknown, name: unknown, category?: unknown): void {
  if (typeof id !== "string" || typeof name !== "string" || name === "" || name === id) return;
  const had = book.get(id);
  const cat = typeof category === "string" && category !== "" ? category : had?.category;
  book.set(id, { name, category: cat });
}

function noteProducts(book: Book, list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const p of list) if (isRecord(p)) note(book, p.id, p.name, p.category);
}

function noteLines(book: Book, lines: unknown): void {
  if (!Array.isArray(lines)) return;
  for (const l of lines) if (isRecord(l)) note(book, l.productId, l.name);
}

/**
 * Names in a tool's result text, as the shop's tools write them: "Aero Trail Runner (p-0001) by
 * Stridewell" (search results) and "1 × Aero Trail Runner (p-0001" (cart summaries).
 */
function noteText(book: Book, text: string): void {
  if (text.startsWith("{")) {
    // A product's details as JSON (get_product).
    try {
      const value: unknown = JSON.parse(text);
      if (isRecord(value)) note(book, value.id, value.name, value.category);
    } catch {
      // Not JSON after all.
    }
    return;
  }
  for (const m of text.matchAll(/^([^\n()]+?) \((p-[\w-]+)\) by /gm))
    note(book, m[2], m[1]?.trim());
  for (const m of text.matchAll(/\d+ × ([^\n();]+?) \((p-[\w-]+)[,)]/g)) {
    note(book, m[2], m[1]?.trim());
  }
}

function noteCall(book: Book, entry: CallView): void {
  for (const ui of entry.ui) {
    noteProducts(book, ui.products);
    if (isRecord(ui.product)) noteProducts(book, [ui.product]);
    if (isRecord(ui.cart)) noteLines(book, ui.cart.lines);
    if (isRecord(ui.order)) noteLines(book, ui.order.lines);
    if (Array.isArray(ui.orders)) {
      for (const o of ui.orders) if (isRecord(o)) noteLines(book, o.lines);
    }
  }
  if (entry.result && !entry.result.isError) noteText(book, entry.result.text);
  // A refused call names its product in the facts of its problem (a rule's `productId` and
  // `name`, a missing size's `choices`), so its chip can name it even when nothing showed it.
  const params = entry.result?.problem?.params;
  if (params) {
    note(book, params.productId, params.name);
    if (Array.isArray(params.choices)) {
      for (const c of params.choices) if (isRecord(c)) note(book, c.productId, c.name);
    }
  }
}

/** Every product `state` (and its delegates) and `cart` name. */
export function productBook(state: AgentState, cart?: Cart | undefined): ProductBook {
  const book: Book = new Map();
  const states = [state, ...Object.values(state.delegated)];
  for (const s of states) for (const entry of Object.values(s.calls)) noteCall(book, entry);
  if (cart) for (const line of cart.lines) note(book, line.productId, line.name);
  return book;
}

/** A call's own product name for `id`, from its cards or result (before the book has it). */
export function nameFromCall(entry: CallView, id: string): string | undefined {
  const book: Book = new Map();
  noteCall(book, entry);
  return book.get(id)?.name;
}
