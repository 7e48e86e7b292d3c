/**
 * The one place the shop watches its turns (logs and metrics): every turn body, streamed or whole
 * path, shopper or merchant, runs through {@link observedTurnBody}, which taps the turn's
 * AgentEvents on their way to the turn's log: each event feeds the metrics, each `round-end`
 * writes the round's log line, and the turn counts as active while its body runs. A body that
 * throws (answered by the registry with an `internal` error event of its own) counts as an
 * `internal` turn error. Watching never breaks a turn: a failure here is swallowed.
 */

import type { AgentEvent } from "overlap-runtime";
import type { TurnBody } from "../turns/turn-body.js";
import type { ShopMetrics } from "./metrics.js";
import { logRound } from "./round-log.js";

/** `body` (the streamed runner or the whole one) with its events observed. */
export function observedTurnBody(metrics: ShopMetrics, body: TurnBody): TurnBody {
  return (input) => {
    const run = body(input);
    return async (turn) => {
      const log = input.log.child({
        sessionId: input.sessionId,
        turnId: turn.turnId,
        agent: input.agent.name,
      });
      const emit = (event: AgentEvent) => {
        turn.emit(event);
        try {
          metrics.observe(event);
          if (event.type === "round-end") logRound(log, event);
        } catch {
          // Metrics and logs are best effort: the turn goes on.
        }
      };
      metrics.turnStarted();
      try {
        await run({ ...turn, emit });
      } catch (error) {
        metrics.turnError("internal");
        throw error;
      } finally {
        metrics.turnEnded();
      }
    };
  };
}
