/**
 * One kind of shopper request and what the script does for it: a handler acts (tool calls, or a
 * reply when there is nothing to call or something to ask), and names the tools whose result ends
 * the request, after which the answer is written from the turn's results.
 */

import type { SimScript } from "overlap-sim";
import type { ConversationState } from "./conversation-state.js";
import type { ShopperIntent } from "./shopper-intent.js";

/** The shopper intent of one kind. */
export type IntentOf<K extends ShopperIntent["kind"]> = Extract<ShopperIntent, { kind: K }>;

/** What the shopper script does for one kind of request. */
export interface ShopperHandler<K extends ShopperIntent["kind"] = ShopperIntent["kind"]> {
  /** The tools whose result ends the request (earlier calls only prepare it). */
  readonly finals?: readonly string[];
  /** The step for the request: tool calls with a short lead-in, or a reply. */
  act(state: ConversationState, intent: IntentOf<K>, tools: ReadonlySet<string>): SimScript;
}

/** A handler for every kind of shopper request. */
export type ShopperHandlers = { readonly [K in ShopperIntent["kind"]]: ShopperHandler<K> };
