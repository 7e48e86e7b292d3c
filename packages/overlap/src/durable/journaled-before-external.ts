/**
 * The durable host's round journal, which holds back the calls of tools with an external effect
 * until their journal row is written (the other calls start at once, as `RoundJournal` explains).
 */

import { OverlapError } from "../errors.js";
import type { RoundJournal } from "../round/round-journal.js";
import type { AnyTool } from "../tools/define-tool.js";

/**
 * The round journal, and a gate for tools whose effect lives elsewhere: such a call runs only once
 * its journal row is written. A tool recording its effect in the ledger's transaction needs no
 * wait (its record names its call), but an external effect leaves nothing in the database: had
 * the process died between the request and the row, a restart would not know the call existed,
 * and could not say that its outcome is unknown. A call whose row could not be written does not
 * run.
 */
export function journaledBeforeExternal(journal: RoundJournal): RoundJournal & {
  gate<C>(tool: AnyTool<C>): AnyTool<C>;
} {
  const writes = new Map<string, Promise<void>>();
  return {
    callComplete(call) {
      const write = Promise.resolve(journal.callComplete(call));
      writes.set(call.id, write);
      return write;
    },
    ...(journal.roundEnd ? { roundEnd: (round, calls) => journal.roundEnd?.(round, calls) } : {}),
    gate: (tool) => ({
      ...tool,
      run: async (input, ctx) => {
        try {
          await writes.get(ctx.callId);
        } catch (error) {
          throw new OverlapError(
            "storage_error",
            `${tool.name} was not run: its call could not be recorded first.`,
            { cause: error },
          );
        }
        return tool.run(input, ctx);
      },
    }),
  };
}
