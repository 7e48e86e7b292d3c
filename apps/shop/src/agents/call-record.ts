/**
 * Effect and record in one transaction: a shop tool that changes state passes `recordCall(ctx,
 * reply)` to the store method that makes the change. The store builds the tool's answer from the
 * result inside the transaction and writes it to the ledger, with the call's tool_use block, in
 * that same transaction. A crash can then never leave an effect without its record (which the
 * next turn would not know about), nor a record of an effect that was rolled back. The runtime's
 * own ledger write after the tool returns finds the record and keeps it.
 *
 * A tool with an effect that is not recorded this way would make `restoreRound`'s "not run"
 * answer false after a crash: every new state-changing tool must use it.
 */

import type { ToolContext, ToolResultSpec } from "overlap-runtime";
import type { RecordOption } from "../db/shop-store.js";
import type { ShopToolContext } from "./tool-context.js";

/**
 * The `record` option writing this call's ledger record in the change's transaction. `reply`
 * builds the tool's answer from the change's result (reads through `tx` stay in the
 * transaction); it runs once, and the tool returns what it built ({@link replied}).
 */
export function recordCall<R, X>(
  ctx: ToolContext<ShopToolContext>,
  reply: (result: R, tx: X) => ToolResultSpec | Promise<ToolResultSpec>,
): RecordOption<R, X> & { replied(): ToolResultSpec | undefined } {
  let built: ToolResultSpec | undefined;
  return {
    record: async (result, tx) => {
      built = await reply(result, tx);
      return {
        sessionId: ctx.context.sessionId,
        outcome: ctx.outcome(built),
        call: ctx.call,
        idempotencyKey: ctx.idempotencyKey,
        ...(ctx.context.lease === undefined ? {} : { lease: ctx.context.lease }),
      };
    },
    replied: () => built,
  };
}
