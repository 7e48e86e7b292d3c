/**
 * What both turn bodies, the streamed one (`streamed/`) and the whole-response one (`whole/`),
 * take and give: the turn's input, and the body `TurnRegistry.start` runs.
 */

import type { ModelClient } from "overlap-runtime";
import type { Logger } from "pino";
import type { ShopAgent } from "../agents/shop-agent.js";
import type { ShopStore } from "../db/shop-store.js";
import type { TurnContext } from "./turn-context.js";

/** What a turn needs. */
export interface ShopTurnInput {
  store: ShopStore;
  /** The model the streamed path talks to (the whole path gets its endpoint when built). */
  model: ModelClient;
  agent: ShopAgent;
  sessionId: string;
  /** The user's new message, already checked (non-blank, bounded). */
  text: string;
  log: Logger;
}

/** A turn runner: the body of one turn, for `TurnRegistry.start`. */
export type TurnBody = (input: ShopTurnInput) => (turn: TurnContext) => Promise<void>;
