/**
 * Joins the deltas of one block that came in one network read. On a fine-grained stream a tool's
 * arguments arrive a few characters per event, and a read of a fast stream holds dozens of them
 * back to back; handed to the round as one delta, they cost one pass of the assembler, the
 * preview and the sink instead of one each. The provider could have sent them so: a delta's
 * boundaries carry no meaning (the real-stream tests replay every recording in many chunkings).
 */

import type { ContentDelta, StreamEvent } from "./stream-event.js";

type BlockDelta = Extract<StreamEvent, { type: "content_block_delta" }>;

/** The string a delta of a joinable kind carries, or undefined when it is not one. */
function piece(delta: ContentDelta | undefined): string | undefined {
  switch (delta?.type) {
    case "text_delta":
      return typeof delta.text === "string" ? delta.text : undefined;
    case "input_json_delta":
      return typeof delta.partial_json === "string" ? delta.partial_json : undefined;
    case "thinking_delta":
      return typeof delta.thinking === "string" ? delta.thinking : undefined;
    default:
      return undefined;
  }
}

/** The deltas each joined delta was made of, for a reader that must apply them one by one. */
const parts = new WeakMap<StreamEvent, readonly StreamEvent[]>();

function joinable(event: StreamEvent): event is BlockDelta {
  // A stream's events may be anything (a frame whose data is `null`): only objects join.
  return (
    typeof event === "object" &&
    event !== null &&
    event.type === "content_block_delta" &&
    typeof event.index === "number" &&
    piece(event.delta) !== undefined
  );
}

function joined(first: BlockDelta, text: string): BlockDelta {
  const delta = first.delta;
  switch (delta.type) {
    case "text_delta":
      return { type: "content_block_delta", index: first.index, delta: { ...delta, text } };
    case "input_json_delta":
      return {
        type: "content_block_delta",
        index: first.index,
        delta: { ...delta, partial_json: text },
      };
    default:
      return {
        type: "content_block_delta",
        index: first.index,
        delta: { ...delta, thinking: text } as ContentDelta,
      };
  }
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
    let end = i + 1;
    if (joinable(event)) {
      while (end < events.length) {
        const next = events[end]!;
        if (!joinable(next) || next.index !== event.index || next.delta.type !== event.delta.type) {
          break;
        }
        end++;
      }
    }
    if (end - i > 1) {
      out ??= events.slice(0, i);
      let text = "";
      for (let k = i; k < end; k++) text += piece((events[k] as BlockDelta).delta)!;
      const delta = joined(event as BlockDelta, text);
      parts.set(delta, events.slice(i, end));
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
