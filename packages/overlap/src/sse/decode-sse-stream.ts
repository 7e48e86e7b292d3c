/**
 * The thin I/O layer over {@link SseByteReader}: reads a byte (or text) stream and yields its frames.
 */

import { SseByteReader } from "./sse-byte-reader.js";
import type { SseDecoderOptions, SseFrame } from "./sse-decoder.js";

/** What {@link decodeSseStream} reads: an HTTP body, a Node stream, or any chunk iterable. */
export type SseSource = AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>;

/**
 * Yields the frames of an SSE stream as they complete. Bytes are decoded as UTF-8 across chunks,
 * so a character split across chunks decodes correctly. Stopping the iteration
 * early (break, return) cancels a `ReadableStream` source, as `for await` does for iterables.
 * @throws OverlapError `limit_exceeded` once an event passes `options.maxEventChars` (see
 *   {@link SseDecoderOptions}), after the frames completed before it; the source is cancelled.
 */
export async function* decodeSseStream(
  source: SseSource,
  options: SseDecoderOptions = {},
): AsyncGenerator<SseFrame> {
  const reader = new SseByteReader(options);
  for await (const chunk of chunksOf(source)) {
    const { frames, limit } = reader.read(chunk);
    yield* frames; // with a limit: the frames this chunk completed before the oversized event
    if (limit) throw limit;
  }
  // Bytes of an unfinished character at the end become U+FFFD (spec decoding), then the
  // unterminated last event is discarded.
  yield* reader.read(undefined).frames;
}

async function* chunksOf(source: SseSource): AsyncGenerator<Uint8Array | string> {
  if (!isReadableStream(source)) {
    yield* source;
    return;
  }
  // Read through a reader: not every runtime makes ReadableStream async-iterable.
  const reader = source.getReader();
  let done = false;
  try {
    while (true) {
      const result = await reader.read();
      if (result.done) {
        done = true;
        return;
      }
      yield result.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

function isReadableStream(source: SseSource): source is ReadableStream<Uint8Array> {
  return typeof (source as ReadableStream<Uint8Array>).getReader === "function";
}
