/**
 * `OVERLAP_PATH`: which turn runner the shop uses. `streamed` (the default) is overlap's own
 * runtime: tools start while the model still writes (`streamed/`). `whole` runs each turn through
 * the Claude Agent SDK with whole responses (`whole/`).
 */

import type { ShopModel } from "../model/model-from-env.js";
import { streamedShopTurn } from "./streamed/streamed-shop-turn.js";
import type { TurnBody } from "./turn-body.js";
import { wholePathEndpoint, wholeShopTurn } from "./whole/whole-shop-turn.js";

/** The two turn runners. */
export type OverlapPath = "streamed" | "whole";

/** `OVERLAP_PATH` read and checked. @throws Error naming the variable for any other value. */
export function overlapPathFromEnv(env: Readonly<Record<string, string | undefined>>): OverlapPath {
  const value = env.OVERLAP_PATH?.trim();
  if (value === undefined || value === "" || value === "streamed") return "streamed";
  if (value === "whole") return "whole";
  throw new Error(`OVERLAP_PATH must be "streamed" or "whole", not "${value}".`);
}

/**
 * The turn runner `path` asks for: the one place a body is chosen.
 * @throws Error saying why when the whole path has no Messages API endpoint of `model`.
 */
export function turnBodyFor(
  path: OverlapPath,
  model: Pick<ShopModel, "messagesApi" | "label">,
): TurnBody {
  return path === "whole" ? wholeShopTurn(wholePathEndpoint(model)) : streamedShopTurn;
}
