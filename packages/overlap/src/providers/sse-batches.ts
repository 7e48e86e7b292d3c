/**
 * Reading a provider's SSE response body ourselves, fast: each network chunk is decoded, split
 * into SSE frames and translated into neutral events in one synchronous pass, and the chunk's
 * events are yielded together, so the round awaits once per chunk instead of once per event (the
 * official SDKs' streams cost a line decoder, an async iterator step and an await per event: on
 * fine-grained tool streaming, thousands of events a response). The SDK still builds, signs and
 * sends the request, with its retries and its errors before the stream.
 */

import type { IncomingMessage } from "node:http";
import type { OverlapError } from "../errors.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { incomingBatches } from "./incoming-batches.js";
import { streamCut } from "./provider-errors.js";
import {
  type FrameTranslator,
  type SseBatchesOptions,
  SseBatchReader,
} from "./sse-batch-reader.js";

/** What `reader.read()` resolves to. */
type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;

/**
 * The events of an SSE body, one array per network chunk (chunks that complete no frame yield
 * nothing). `open` gives the body (it may send the request first; undefined ends quietly: the
 * request was aborted), inside this one generator, so each network chunk costs one await and
 * no delegation between generators. A Node response (from `nodeHttpFetch`) is read directly,
 * one array per burst of chunks that arrived together (`incomingBatches`). A read that fails is `stream_interrupted`, as is a frame the
 * translator cannot read (malformed JSON: what the SDKs' own streams throw there); an abort ends
 * quietly; an event past `maxEventChars` is `limit_exceeded`. Leaving early cancels the body
 * (closes the connection).
 */
export async function* sseBatches(
  open: () => Promise<ReadableStream<Uint8Array> | IncomingMessage | undefined>,
  translate: FrameTranslator,
  signal: AbortSignal,
  options: SseBatchesOptions = {},
): AsyncGenerator<StreamEvent[]> {
  const body = await open();
  if (!body) return;
  const batches = new SseBatchReader(translate, options);
  if (!(body instanceof ReadableStream)) {
    yield* incomingBatches(body, batches, signal);
    return;
  }
  const reader = body.getReader();
  // A fetch that does not end the body on abort (one given by the caller) still stops here.
  const cancel = (): void => {
    reader.cancel(signal.reason).catch(() => {});
  };
  signal.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      // Inline rather than `readUnlessAborted`: one promise less per network chunk.
      let chunk: ReadResult;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (signal.aborted) return;
        throw readFailure(err);
      }
      if (signal.aborted) return;
      const { events, failure } = batches.read(chunk.done ? undefined : chunk.value);
      if (events.length > 0) yield events;
      if (failure) throw failure;
      if (batches.over || chunk.done) return;
    }
  } finally {
    signal.removeEventListener("abort", cancel);
    reader.cancel().catch(() => {});
  }
}

/** A failed read of the body (a dropped connection). */
function readFailure(err: unknown): OverlapError {
  return streamCut(err);
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
