/**
 * A simulated latency for the shop's services (the demo drawer's "inventory 300 ms"): each tool
 * waits the sum of the latencies of the services it calls before it runs, as if they were remote.
 * The wait is inside the tool's run, so the timeline draws it as the tool's own time, and it ends
 * at once when the call is aborted (a cancelled turn, an interrupted round). Calls that go through
 * the cart lock also wait for the earlier cart calls' waits, so a quick total never overtakes a
 * slow add (cart calls apply in call order). Outside a demo scope, or with no latency set, a
 * tool runs as it is.
 */

import { setTimeout as sleep } from "node:timers/promises";
import type { AnyTool } from "overlap-runtime";
import { currentDemoScope } from "./demo-scope.js";
import { CART_LOCK_TOOLS, callLatencyMs, TOOL_SERVICES } from "./demo-settings.js";

/** `tools` with the demo scope's simulated latency before each service call. */
export function withSimulatedLatency<C>(tools: readonly AnyTool<C>[]): AnyTool<C>[] {
  return tools.map((tool) => {
    if (TOOL_SERVICES[tool.name] === undefined) return tool;
    const cart = CART_LOCK_TOOLS.has(tool.name);
    const run: AnyTool<C>["run"] = async (input, ctx) => {
      const scope = currentDemoScope();
      if (!scope) return tool.run(input, ctx);
      const { services, ms } = callLatencyMs(tool.name, scope.serviceLatencyMs());
      if (ms > 0) scope.noteSimulated(ctx.callId, { services, ms });
      // Aborted: the rejection ends the run, and the executor reports the call as the abort says.
      const own = ms > 0 ? sleep(ms, undefined, { signal: ctx.signal }) : Promise.resolve();
      if (cart) {
        const waited = Promise.all([own, scope.cartQueue]);
        // The next cart call waits for this one's wait, whether it ends or is aborted.
        scope.cartQueue = waited.then(
          () => {},
          () => {},
        );
        await waited;
      } else {
        await own;
      }
      return tool.run(input, ctx);
    };
    return { ...tool, run };
  });
}
