/**
 * What the scripted model can tell from the conversation it is sent, like a model reading its
 * context: the request to answer, the tool calls of this turn so far and their results, and what
 * earlier tool results said about the cart, the products shown and the orders placed. Facts come
 * only from tool results (their text is the tools' own, see agents/), never from memory.
 */

import type { SimRequestMessage } from "overlap-sim";
import { cartOfNote, splitReminders } from "../views/system-reminder.js";
import { isChinese } from "./intent-words.js";

/** One tool call and its result. */
export interface ToolExchange {
  id: string;
  name: string;
  input: Record<string, unknown>;
  content: string;
  isError: boolean;
}

/** A cart line as the last cart tool result described it. */
export interface KnownCartLine {
  productId: string;
  name: string;
  quantity: number;
  unitPrice: string;
  size?: string;
  color?: string;
  /** What the line still has to choose ("size to choose" in the summary). */
  missing?: ("size" | "color")[];
}

/** See the module comment. */
export interface ConversationState {
  /** The request this response answers (the user's newest text). */
  userText: string;
  /** Earlier requests of the user, newest first. */
  earlierTexts: string[];
  /** The text of the assistant's last message before the request (a question it asked...). */
  lastReply: string;
  /** The request is (mostly) Chinese: every sentence of the answer is then Chinese. */
  zh: boolean;
  /** This turn's rounds of tool calls with their results, in order (empty at the turn's start). */
  rounds: ToolExchange[][];
  /** The cart as the newest cart tool result described it; undefined when none did. */
  cart?: KnownCartLine[];
  /** Ids of the products displayed last (cards, comparison, search results, inventory). */
  shown: string[];
  /** Every product id seen in tool calls and results, newest first. */
  seen: string[];
  /** The product the conversation is about: the last one added, changed or looked at. */
  focus?: string;
  /** Newest known unit price per product id, in cents, from tool results. */
  prices: Map<string, number>;
  /** Order ids placed in this conversation, newest first. */
  orders: string[];
  /**
   * The product id the request chose in answer to the assistant's "which one?" (set by the
   * shopper script when the request is such an answer).
   */
  answer?: string;
  /**
   * Product names as tool results last gave them, by id: a product the merchant renamed is
   * known by its current name here, beside the catalog's name the script knows.
   */
  names: Map<string, string>;
  /** The searches made (their inputs), newest first. */
  searches: Array<{ query: string; maxPrice?: number; minPrice?: number }>;
}

const CART_LINE = /(\d+) × (.+?) \((p-\d{4})((?:, [^)]*)?)\) at (\$[\d,]+\.\d{2})/g;
/** "Echo Pulse Sensor (p-0017) by …" at a line's start: a product's current name. */
const NAMED_LINE = /^(?:\d+ × )?([^\n()]+?) \((p-\d{4})[,)]/gm;
const PRODUCT_LINE = /\((p-\d{4})\)(?: by [^,]+)?, (\$[\d,]+\.\d{2})/g;

/** The user's own words of a message: text blocks, without the `<system-reminder>`s before them. */
function userWords(message: SimRequestMessage): string[] {
  return message.content.flatMap((b) => {
    if (b.type !== "text") return [];
    const { notes, words } = splitReminders(b.text);
    return notes.length === 0 ? [b.text] : words === "" ? [] : [words];
  });
}

/**
 * The cart a request's "the cart changed outside this chat" note tells (the cart is the
 * shopper's: another chat or the cart panel may have changed it since this chat last looked).
 */
function cartNoted(message: SimRequestMessage | undefined): KnownCartLine[] | undefined {
  for (const b of message?.content ?? []) {
    if (b.type !== "text") continue;
    for (const note of splitReminders(b.text).notes) {
      const summary = cartOfNote(note);
      if (summary !== undefined) return cartLines(summary);
    }
  }
  return undefined;
}

/** Reads a conversation (Anthropic-shaped, as the scripted model receives every API's). */
export function readConversation(messages: readonly SimRequestMessage[]): ConversationState {
  // The newest request: a message that merged an unanswered earlier one (after a crash or a stop)
  // ends with the text the user sent last.
  const requestIndex = messages.findLastIndex((m) => m.role === "user" && userWords(m).length > 0);
  const texts = messages.flatMap((m, i) =>
    m.role === "user" && i <= requestIndex && userWords(m).length > 0
      ? [userWords(m).join("\n").trim()]
      : [],
  );
  const lastText = requestIndex >= 0 ? (userWords(messages[requestIndex]!).at(-1) ?? "") : "";
  const reply = messages
    .slice(0, Math.max(0, requestIndex))
    .findLast((m) => m.role === "assistant");
  const state: ConversationState = {
    userText: lastText,
    earlierTexts: texts.slice(0, -1).reverse(),
    lastReply: (reply?.content ?? [])
      .flatMap((b) => (b.type === "text" ? [b.text] : []))
      .join("")
      .trim(),
    zh: isChinese(lastText),
    rounds: [],
    shown: [],
    seen: [],
    prices: new Map(),
    orders: [],
    searches: [],
    names: new Map(),
  };
  const calls = new Map<string, { name: string; input: Record<string, unknown> }>();
  messages.forEach((message, index) => {
    if (index === requestIndex) {
      // What the request says the cart is now replaces what earlier results said of it.
      const noted = cartNoted(message);
      if (noted) {
        state.cart = noted;
        for (const line of noted) state.prices.set(line.productId, dollarsToCents(line.unitPrice));
      }
    }
    const round: ToolExchange[] = [];
    for (const block of message.content) {
      if (block.type === "tool_use") {
        const input =
          typeof block.input === "object" && block.input !== null
            ? (block.input as Record<string, unknown>)
            : {};
        calls.set(block.id, { name: block.name, input });
      } else if (block.type === "tool_result") {
        const call = calls.get(block.tool_use_id);
        if (!call) continue;
        const exchange: ToolExchange = {
          id: block.tool_use_id,
          ...call,
          content: block.content,
          isError: block.is_error === true,
        };
        learn(state, exchange);
        round.push(exchange);
      }
    }
    // Results after the request (in a message without new text) are this turn's.
    if (index > requestIndex && round.length > 0) state.rounds.push(round);
  });
  state.seen = [...new Set(state.seen)];
  return state;
}

/** The results of the newest round (what the response being written follows), if any. */
export function lastRound(state: ConversationState): ToolExchange[] {
  return state.rounds.at(-1) ?? [];
}

/** Every exchange of this turn, in order. */
export function turnExchanges(state: ConversationState): ToolExchange[] {
  return state.rounds.flat();
}

/** Updates the state with one tool result. */
function learn(state: ConversationState, x: ToolExchange): void {
  const id = typeof x.input.productId === "string" ? x.input.productId : undefined;
  const inputIds = Array.isArray(x.input.productIds)
    ? x.input.productIds.filter((v): v is string => typeof v === "string")
    : [];
  const mention = (...ids: string[]) => state.seen.unshift(...ids);
  for (const m of x.content.matchAll(PRODUCT_LINE)) state.prices.set(m[1]!, dollarsToCents(m[2]!));
  for (const m of x.content.matchAll(NAMED_LINE)) state.names.set(m[2]!, m[1]!.trim());
  if (x.isError) {
    if (x.name === "checkout" && /cart is empty/i.test(x.content)) state.cart = [];
    return;
  }
  if (x.name === "search_products") {
    state.searches.unshift({
      query: typeof x.input.query === "string" ? x.input.query : "",
      ...(typeof x.input.maxPrice === "number" ? { maxPrice: x.input.maxPrice } : {}),
      ...(typeof x.input.minPrice === "number" ? { minPrice: x.input.minPrice } : {}),
    });
  }
  switch (x.name) {
    case "add_to_cart":
    case "update_cart_item":
    case "remove_from_cart":
    case "view_cart":
    case "clear_cart": {
      state.cart = cartLines(x.content);
      for (const line of state.cart) mention(line.productId);
      if (id && x.name !== "remove_from_cart") {
        state.focus = id;
        mention(id);
      } else if (id && state.focus === id) state.focus = undefined;
      break;
    }
    case "cart_total":
      if (/ for 0 items/.test(x.content)) state.cart = [];
      break;
    case "checkout": {
      state.cart = [];
      const order = x.content.match(/Order (o-[\w-]+) placed/)?.[1];
      if (order) state.orders.unshift(order);
      break;
    }
    case "search_products":
    case "low_stock_report": {
      const ids = [...x.content.matchAll(/\((p-\d{4})\)/g)].map((m) => m[1]!);
      if (ids.length > 0) state.shown = ids;
      mention(...ids);
      break;
    }
    case "show_inventory": {
      const ids = [...x.content.matchAll(/\((p-\d{4})\)/g)].map((m) => m[1]!);
      state.shown = ids.length > 0 ? ids : inputIds;
      mention(...state.shown);
      break;
    }
    case "show_products":
    case "compare_products":
      state.shown = inputIds;
      mention(...inputIds);
      if (inputIds.length === 1) state.focus = inputIds[0];
      break;
    case "get_product":
    case "restock_eta":
    case "bulk_discount":
    case "restock":
    case "set_price":
      if (id) {
        state.focus = id;
        mention(id);
      }
      if (x.name === "get_product") {
        const cents = x.content.match(/"priceCents":(\d+)/)?.[1];
        if (id && cents) state.prices.set(id, Number(cents));
      }
      break;
    default:
      break;
  }
  for (const line of state.cart ?? [])
    state.prices.set(line.productId, dollarsToCents(line.unitPrice));
}

/** The lines of a cart summary ("Cart: 1 × Name (p-0001, size US 10) at $89.00 = ..."). */
export function cartLines(summary: string): KnownCartLine[] {
  const lines: KnownCartLine[] = [];
  for (const m of summary.matchAll(CART_LINE)) {
    const line: KnownCartLine = {
      quantity: Number(m[1]),
      name: m[2]!,
      productId: m[3]!,
      unitPrice: m[5]!,
    };
    for (const part of (m[4] ?? "").split(", ").filter((p) => p !== "")) {
      if (part === "size to choose" || part === "colour to choose")
        line.missing = [...(line.missing ?? []), part === "size to choose" ? "size" : "color"];
      else if (part.startsWith("size ")) line.size = part.slice(5);
      else line.color = part;
    }
    lines.push(line);
  }
  return lines;
}

/** "$1,234.50" → 123450. */
export function dollarsToCents(text: string): number {
  return Math.round(Number(text.replace(/[$,]/g, "")) * 100);
}
