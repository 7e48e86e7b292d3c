/**
 * The turn registry of a server that stops gracefully: it also knows which turn bodies are still
 * running, so a shutdown can give them time to finish ({@link GracefulTurnRegistry.settle}) before
 * it cancels the rest ({@link TurnRegistry.close}, which aborts them and waits while each repairs
 * and saves its conversation).
 */

import type { TurnContext } from "../turns/turn-context.js";
import { type TurnClaim, TurnRegistry } from "./turn-registry.js";

/** A {@link TurnRegistry} that can wait for its running turns. */
export class GracefulTurnRegistry extends TurnRegistry {
  readonly #running = new Set<Promise<void>>();

  override start(sessionId: string, body: (turn: TurnContext) => Promise<void>, claim?: TurnClaim) {
    return super.start(
      sessionId,
      async (turn) => {
        const running = body(turn);
        this.#running.add(running);
        try {
          await running;
        } finally {
          this.#running.delete(running);
        }
      },
      claim,
    );
  }

  /** Turns whose body is still running. */
  get runningCount(): number {
    return this.#running.size;
  }

  /**
   * Waits until no turn body runs, or `timeoutMs` passed, whichever comes first; nothing is
   * cancelled. Resolves true when every turn finished in time. Meant for a shutdown, once new
   * turns are refused (a turn started meanwhile is waited for too, within the same time).
   */
  async settle(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.#running.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, left);
      });
      await Promise.race([Promise.allSettled([...this.#running]), timeout]);
      clearTimeout(timer);
    }
    return true;
  }
}
