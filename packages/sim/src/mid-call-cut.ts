/**
 * Where the `error-mid-call` / `drop-mid-call` faults cut a stream: halfway through the last tool
 * call's arguments, so every earlier call is complete (and a client that starts calls at their
 * end has started them) while the last one is not. Without a tool call, halfway through the last
 * block. The point is found on the paced items, then counted in the dialect's own frames, so it is
 * the same call in every wire format.
 */

import type { Dialect, EncodeInput } from "./dialect.js";

/**
 * How many frames of the stream go out before the cut (a `writeFrames` `errorAfter` /
 * `dropAfter` count), or `undefined` for a response with no block at all.
 */
export function midCallFrameCount(
  dialect: Pick<Dialect, "streamFrames">,
  input: EncodeInput,
): number | undefined {
  const blocks = input.script.blocks;
  const lastCall = blocks.findLastIndex((b) => b.type === "tool_use");
  const target = lastCall >= 0 ? lastCall : blocks.length - 1;
  if (target < 0) return undefined;
  const deltas = input.items.flatMap((item, at) =>
    item.type === "delta" && item.index === target ? [at] : [],
  );
  const start = input.items.findIndex(
    (item) => item.type === "block-start" && item.index === target,
  );
  // The last item sent: a delta before the block's middle (never its last one, so the block is
  // never complete), or its start when it has fewer than two deltas.
  const last = deltas.length >= 2 ? deltas[Math.floor(deltas.length / 2) - 1] : start;
  if (last === undefined || last < 0) return undefined;
  // Encoders emit frames item by item and their closing frames only at message-end, so the
  // frames of a prefix of the items are a prefix of the frames.
  return dialect.streamFrames({ ...input, items: input.items.slice(0, last + 1) }).length;
}
