/**
 * Reading a provider's SSE response body ourselves, fast: each network chunk is decoded, split
 * into SSE frames and translated into neutral events in one synchronous pass, and the chunk's
 * events are yielded together, so the round awaits once per chunk instead of once per event (the
 * official SDKs' streams cost a line decoder, an async iterator step and an await per event: on
 * fine-grained tool streaming, thousands of events a response). The SDK still builds, signs and
 * sends the request, with its retries and its errors before the stream.
 */

import { OverlapError } from "../errors.js";
import { SseDecoder, type SseFrame } from "../sse/sse-decoder.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { readUnlessAborted } from "./read-model-stream.js";

/**
 * Translates one frame into events pushed onto `out`; returns true when the stream is over (an
 * error the provider sent, its end marker).
 */
export type FrameTranslator = (frame: SseFrame, out: StreamEvent[]) => boolean | undefined;

/** Options of {@link sseBatches}. */
export interface SseBatchesOptions {
  /** The longest SSE event accepted, in characters (see `SseDecoderOptions.maxEventChars`). */
  maxEventChars?: number;
  /** Events to add once the body ended normally (a format whose end is implicit). */
  finish?: () => Iterable<StreamEvent>;
}

/**
 * The events of an SSE body, one array per network chunk (chunks that complete no frame yield
 * nothing). A read that fails is `stream_interrupted`, as is a frame the translator cannot read
 * (malformed JSON: what the SDKs' own streams throw there); an abort ends quietly; an event past
 * `maxEventChars` is `limit_exceeded`. Leaving early cancels the body (closes the connection).
 */
export async function* sseBatches(
  body: ReadableStream<Uint8Array>,
  translate: FrameTranslator,
  signal: AbortSignal,
  options: SseBatchesOptions = {},
): AsyncGenerator<StreamEvent[]> {
  let out: StreamEvent[] = [];
  let over = false;
  const decoder = new SseDecoder(
    (frame) => {
      if (!over) over = translate(frame, out) === true;
    },
    undefined,
    options.maxEventChars === undefined ? {} : { maxEventChars: options.maxEventChars },
  );
  const text = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const chunk = await readUnlessAborted(reader, signal);
      if (!chunk) return;
      // The chunk's events before a frame that cannot be read still count, as they would have
      // reached the round one by one before the failure.
      let failure: OverlapError | undefined;
      try {
        decoder.push(chunk.done ? text.decode() : text.decode(chunk.value, { stream: true }));
      } catch (err) {
        failure =
          err instanceof OverlapError
            ? err
            : new OverlapError(
                "stream_interrupted",
                `The model stream was cut: ${err instanceof Error ? err.message : String(err)}`,
                { cause: err },
              );
      }
      if (chunk.done && !over && !failure && options.finish) out.push(...options.finish());
      if (out.length > 0) {
        const batch = out;
        out = [];
        yield batch;
      }
      if (failure) throw failure;
      if (over || chunk.done) return;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/**
 * Flattens batches into single events, for readers of `ModelClient.stream`. Delegating to each
 * batch (`yield*`) keeps the microtask turns per event that the adapters' per-event readers had
 * (a tool dispatched at one event has had them to begin before the next event, e.g. an error
 * that ends the stream, reaches the round); the fast path is `streamBatches`, where the round
 * gives a started call the event loop explicitly.
 */
export async function* eachEvent(
  batches: AsyncIterable<readonly StreamEvent[]>,
): AsyncGenerator<StreamEvent> {
  for await (const batch of batches) yield* batch;
}
