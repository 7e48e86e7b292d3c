/**
 * Runs each shopper turn inside its session's demo scope (see `demo-scope.ts`), so the embedded
 * model's requests carry the session's demo headers and the tools its simulated latency. Merchant
 * turns run as they are.
 */

import type { TurnBody } from "../whole/overlap-path.js";
import type { DemoBook } from "./demo-book.js";
import { bookScope, runInDemoScope } from "./demo-scope.js";

/** `body` with shopper turns in their demo scope. */
export function demoTurnBody(book: DemoBook, modelControls: boolean, body: TurnBody): TurnBody {
  return (input) => {
    const run = body(input);
    if (input.agent.name !== "shopper") return run;
    const scope = bookScope(book, input.sessionId, modelControls);
    return (turn) => runInDemoScope(scope, () => run(turn));
  };
}
