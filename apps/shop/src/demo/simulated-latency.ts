/**
 * A simulated latency for the shop's services (the demo drawer's "search 400 ms"): each tool that
 * calls a service waits that long before it runs, as if the service were remote. The wait is
 * inside the tool's run, so the timeline draws it as the tool's own time, and it ends at once when
 * the call is aborted (a cancelled turn, an interrupted round). Outside a demo scope, or at 0 ms,
 * a tool runs as it is.
 */

import { setTimeout as sleep } from "node:timers/promises";
import type { AnyTool } from "overlap-runtime";
import { currentDemoScope } from "./demo-scope.js";
import { serviceOfTool } from "./demo-settings.js";

/** `tools` with the demo scope's simulated latency before each service call. */
export function withSimulatedLatency<C>(tools: readonly AnyTool<C>[]): AnyTool<C>[] {
  return tools.map((tool) => {
    const service = serviceOfTool(tool.name);
    if (service === undefined) return tool;
    const run: AnyTool<C>["run"] = async (input, ctx) => {
      const scope = currentDemoScope();
      const ms = scope?.serviceLatencyMs(service) ?? 0;
      if (scope && ms > 0) {
        scope.noteSimulated(ctx.callId, service, ms);
        // Aborted: the rejection ends the run, and the executor reports the call as the abort says.
        await sleep(ms, undefined, { signal: ctx.signal });
      }
      return tool.run(input, ctx);
    };
    return { ...tool, run };
  });
}
