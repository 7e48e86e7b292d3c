/**
 * The shop's two agents: the shopper-facing and the merchant-facing assistant. Both run on
 * the same runtime (`runAgentTurn`) with the same processing; they differ only in their prompt and
 * their tools. A session's executor carries the session, so every tool acts on that session only.
 */

import { type ModelClient, type ToolCall, ToolExecutor } from "overlap-runtime";
import { idempotencyKeyOf } from "overlap-runtime/durable";
import type { ShopStore } from "../db/shop-store.js";
import { merchantTools } from "./merchant-tools.js";
import type { ShopAgent, ShopExecutorOptions } from "./shop-agent.js";
import { shopperTools } from "./shopper-tools.js";
import type { ShopToolContext } from "./tool-context.js";

/** The shopper and merchant agents. */
export interface ShopAgents {
  shopper: ShopAgent;
  merchant: ShopAgent;
}

const SHOPPER_SYSTEM = `You are the shopping assistant of an outdoor and running store. Help the shopper find products, compare them, manage the cart and check out. Use the tools for every fact about products, prices, stock and the cart; never invent them. Prices are in US dollars. When the shopper asks for several independent actions, call the tools in parallel in one response. Call checkout only when the shopper clearly asks to buy. Use ask_merchant for questions only the merchant can answer (restock dates, bulk discounts). Answer in the shopper's language.`;

const MERCHANT_SYSTEM = `You are the merchant's assistant of an outdoor and running store. Help the merchant watch stock, restock, edit products (name, description, price), set discounts by category and follow orders and sales. Use the tools for every fact; never invent numbers. A change to more than one product is one call the merchant confirms: restock_products for several restocks (never several restock calls), set_discount or end_discount for a category. Independent reads may run in parallel in one response. Answer in the merchant's language.`;

/** Builds both agents over one store and one model. */
export function createShopAgents(deps: { store: ShopStore; model: ModelClient }): ShopAgents {
  // The tools (and the JSON Schemas generated from their zod input) are built once, not per
  // turn: they hold no session state; the executor's context carries the session.
  const merchantFull = merchantTools();
  const merchantReadOnly = merchantTools({ readOnly: true });
  const merchant: ShopAgent = {
    name: "merchant",
    system: MERCHANT_SYSTEM,
    executor: (sessionId, options) =>
      new ToolExecutor(options?.readOnly ? merchantReadOnly : merchantFull, {
        context: contextOf(sessionId, deps.store, options),
        ...keysOf(sessionId, options),
      }),
  };
  const shopperToolList = shopperTools({ model: deps.model, merchant });
  const shopper: ShopAgent = {
    name: "shopper",
    system: SHOPPER_SYSTEM,
    executor: (sessionId, options) =>
      new ToolExecutor(shopperToolList, {
        context: contextOf(sessionId, deps.store, options),
        ...keysOf(sessionId, options),
      }),
  };
  return { shopper, merchant };
}

function contextOf(
  sessionId: string,
  store: ShopStore,
  options: ShopExecutorOptions | undefined,
): ShopToolContext {
  return options?.lease === undefined
    ? { sessionId, store }
    : { sessionId, store, lease: options.lease };
}

/**
 * In a turn, each call's idempotency key is the one its journal row and ledger record keep: a
 * digest of the chat, the turn and the call's place in it (stable across a restore).
 */
function keysOf(sessionId: string, options: ShopExecutorOptions | undefined) {
  const turnId = options?.lease;
  if (turnId === undefined) return {};
  return { idempotencyKey: (call: ToolCall) => idempotencyKeyOf(sessionId, turnId, call) };
}
