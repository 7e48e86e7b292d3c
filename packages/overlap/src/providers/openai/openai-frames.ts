/**
 * The OpenAI SDK's reading of an SSE frame, for overlap's own read of the body (Chat Completions
 * and the Responses API share it): the frames after `[DONE]` are skipped, every other frame's data
 * is JSON (unreadable JSON fails the stream as the SDK's stream does), a chunk carrying `error` is
 * the provider's error inside the stream and ends it, and `thread.*` frames come as
 * `{ event, data }`. The error is built as the SDK's own `APIError`, so its neutral event says
 * exactly what the SDK's stream path says.
 */

import OpenAI from "openai";
import type { SseFrame } from "../../sse/sse-decoder.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { sentErrorEvent } from "../sdk-errors.js";
import type { FrameTranslator } from "../sse-batch-reader.js";

/**
 * A frame translator feeding each SDK item (what the SDK's stream would yield) to `translate`.
 * One per response: it remembers `[DONE]`.
 */
export function openaiFrames(translate: (item: unknown) => Iterable<StreamEvent>): FrameTranslator {
  let done = false;
  return (frame: SseFrame, out: StreamEvent[]) => {
    if (done) return undefined;
    if (frame.data.startsWith("[DONE]")) {
      // The SDK reads on to the end of the body (a cut there still fails), yielding nothing.
      done = true;
      return undefined;
    }
    const data = JSON.parse(frame.data) as { error?: unknown } | null;
    if (frame.event === undefined || !frame.event.startsWith("thread.")) {
      if (data?.error) {
        out.push(
          sentErrorEvent(
            new OpenAI.APIError(undefined, data.error as object, undefined, undefined),
          )!,
        );
        return true;
      }
      for (const event of translate(data)) out.push(event);
      return undefined;
    }
    for (const event of translate({ event: frame.event, data })) out.push(event);
    return undefined;
  };
}
