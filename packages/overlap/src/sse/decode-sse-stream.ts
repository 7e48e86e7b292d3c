/**
 * The thin I/O layer over {@link SseDecoder}: reads a byte (or text) stream and yields its frames.
 */

import { SseDecoder, type SseDecoderOptions, type SseFrame } from "./sse-decoder.js";

/** What {@link decodeSseStream} reads: an HTTP body, a Node stream, or any chunk iterable. */
export type SseSource = AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>;

/**
 * Yields the frames of an SSE stream as they complete. Bytes are decoded as UTF-8 with a streaming
 * `TextDecoder`, so a character split across chunks decodes correctly. Stopping the iteration
 * early (break, return) cancels a `ReadableStream` source, as `for await` does for iterables.
 * @throws OverlapError `limit_exceeded` once an event passes `options.maxEventChars` (see
 *   {@link SseDecoderOptions}), after the frames completed before it; the source is cancelled.
 */
export async function* decodeSseStream(
  source: SseSource,
  options: SseDecoderOptions = {},
): AsyncGenerator<SseFrame> {
  const frames: SseFrame[] = [];
  const decoder = new SseDecoder((frame) => frames.push(frame), undefined, options);
  // ignoreBOM: pass a leading BOM through, so that SseDecoder strips exactly one, as the spec does.
  const text = new TextDecoder("utf-8", { ignoreBOM: true });
  for await (const chunk of chunksOf(source)) {
    try {
      decoder.push(typeof chunk === "string" ? chunk : text.decode(chunk, { stream: true }));
    } catch (error) {
      yield* frames.splice(0); // the frames this chunk completed before the oversized event
      throw error;
    }
    yield* frames.splice(0);
  }
  // Bytes of an unfinished character at the end become U+FFFD (spec decoding), then the
  // unterminated last event is discarded by end().
  decoder.push(text.decode());
  decoder.end();
  yield* frames.splice(0);
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
