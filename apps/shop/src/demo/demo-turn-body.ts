/**
 * Runs each shopper turn inside its session's demo scope (see `demo-scope.ts`), so the embedded
 * model's requests carry the session's demo headers and the tools its simulated latency. Merchant
 * turns, and shopper turns of a chat whose demo settings are all at their defaults (no speed, no
 * latency, no fault armed: every chat unless its drawer was used), run as they are: the scope's
 * async context would be paid on every promise of the turn for nothing.
 */

import type { TurnBody } from "../turns/turn-body.js";
import type { DemoBook } from "./demo-book.js";
import { bookScope, runInDemoScope } from "./demo-scope.js";
import { DEMO_SERVICES, type DemoSettings } from "./demo-settings.js";

/** `body` with shopper turns in their demo scope. */
export function demoTurnBody(book: DemoBook, modelControls: boolean, body: TurnBody): TurnBody {
  return (input) => {
    const run = body(input);
    if (input.agent.name !== "shopper" || hasNoEffect(book.settings(input.sessionId))) return run;
    const scope = bookScope(book, input.sessionId, modelControls);
    return (turn) => runInDemoScope(scope, () => run(turn));
  };
}

/** True when the settings change nothing: the model's own pace, no latency, no fault armed. */
export function hasNoEffect(settings: DemoSettings): boolean {
  return (
    settings.tokensPerSecond === null &&
    settings.breakNextReply === null &&
    DEMO_SERVICES.every((service) => settings.serviceLatencyMs[service] === 0)
  );
}
