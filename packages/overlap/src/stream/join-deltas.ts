/**
 * Joins the deltas of one block that came in one network read. On a fine-grained stream a tool's
 * arguments arrive a few characters per event, and a read of a fast stream holds dozens of them
 * back to back; handed to the round as one delta, they cost one pass of the assembler, the
 * preview and the sink instead of one each. The provider could have sent them so: a delta's
 * boundaries carry no meaning (the real-stream tests replay every recording in many chunkings).
 */

import type { StreamEvent } from "./stream-event.js";

type BlockDelta = Extract<StreamEvent, { type: "content_block_delta" }>;

/** The field holding the string of each kind of delta that joins. */
const FIELDS: Readonly<Record<string, string>> = {
  text_delta: "text",
  input_json_delta: "partial_json",
  thinking_delta: "thinking",
};

/** The deltas each joined delta was made of, for a reader that must apply them one by one. */
const parts = new WeakMap<StreamEvent, readonly StreamEvent[]>();

/**
 * The string `event` adds to its block when it is a delta that joins (a text, argument or
 * thinking delta with a string and a numeric index), else undefined. A stream's events may be
 * anything (a frame whose data is `null`): only such objects join.
 */
function piece(event: StreamEvent): string | undefined {
  if (typeof event !== "object" || event === null || event.type !== "content_block_delta") {
    return undefined;
  }
  const field = FIELDS[event.delta?.type];
  if (field === undefined || typeof event.index !== "number") return undefined;
  const value = (event.delta as unknown as Record<string, unknown>)[field];
  return typeof value === "string" ? value : undefined;
}

/**
 * `events` with every run of consecutive text, argument or thinking deltas of the same block
 * (same index, same kind) replaced by one delta carrying their strings joined, in order. Every
 * other event, and any delta a check would refuse (a missing string, an index that is not a
 * number), stays as it is, where it is. Returns `events` itself when nothing joins.
 */
export function joinDeltas(events: readonly StreamEvent[]): readonly StreamEvent[] {
  let out: StreamEvent[] | undefined;
  let i = 0;
  while (i < events.length) {
    const event = events[i]!;
    let text = piece(event);
    let end = i + 1;
    if (text !== undefined) {
      const { index, delta } = event as BlockDelta;
      for (; end < events.length; end++) {
        const next = events[end]!;
        const more = piece(next);
        if (more === undefined) break;
        const { index: nextIndex, delta: nextDelta } = next as BlockDelta;
        if (nextIndex !== index || nextDelta.type !== delta.type) break;
        text += more;
      }
    }
    if (end - i > 1) {
      const first = event as BlockDelta;
      const delta = {
        type: "content_block_delta",
        index: first.index,
        delta: { ...first.delta, [FIELDS[first.delta.type]!]: text },
      } as BlockDelta;
      parts.set(delta, events.slice(i, end));
      out ??= events.slice(0, i);
      out.push(delta);
    } else if (out) {
      out.push(event);
    }
    i = end;
  }
  return out ?? events;
}

/**
 * The deltas `event` was joined from by {@link joinDeltas}, in order; undefined for any other
 * event. A reader whose check refuses a joined delta (a block's size limit, which the run crosses
 * somewhere) applies them one by one instead, so that what came before the refusal is kept, as
 * it would have been had they come apart.
 */
export function deltasJoinedIn(event: StreamEvent): readonly StreamEvent[] | undefined {
  return parts.get(event);
}
