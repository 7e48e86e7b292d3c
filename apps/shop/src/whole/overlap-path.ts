/**
 * `OVERLAP_PATH`: which turn runner the shop uses. `streamed` (the default) is overlap's own
 * runtime: tools start while the model still writes. `whole` runs each turn through the Claude
 * Agent SDK with whole responses (see `agent-sdk-turn.ts`).
 */

import type { ShopTurnInput } from "../server/run-shop-turn.js";
import type { TurnContext } from "../server/turn-registry.js";

/** The two turn runners. */
export type OverlapPath = "streamed" | "whole";

/** A turn runner: the body of one turn, for `TurnRegistry.start`. */
export type TurnBody = (input: ShopTurnInput) => (turn: TurnContext) => Promise<void>;

/** `OVERLAP_PATH` read and checked. @throws Error naming the variable for any other value. */
export function overlapPathFromEnv(env: Readonly<Record<string, string | undefined>>): OverlapPath {
  const value = env.OVERLAP_PATH?.trim();
  if (value === undefined || value === "" || value === "streamed") return "streamed";
  if (value === "whole") return "whole";
  throw new Error(`OVERLAP_PATH must be "streamed" or "whole", not "${value}".`);
}
