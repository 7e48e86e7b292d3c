/**
 * The synchronous core of overlap's read of a provider's SSE body: one read's bytes in, its
 * events out (decoded, split into frames and translated in one pass, with no I/O).
 */

import { OverlapError } from "../errors.js";
import { SseByteReader } from "../sse/sse-byte-reader.js";
import type { SseFrame } from "../sse/sse-decoder.js";
import type { StreamEvent } from "../stream/stream-event.js";
import type { ChunkReader } from "./body-batches.js";
import { streamCut } from "./provider-errors.js";

/**
 * Translates one frame into events pushed onto `out`; returns true when the stream is over (an
 * error the provider sent, its end marker).
 */
export type FrameTranslator = (frame: SseFrame, out: StreamEvent[]) => boolean | undefined;

/** Options of {@link SseBatchReader}. */
export interface SseBatchReaderOptions {
  /** The longest SSE event accepted, in characters (see `SseDecoderOptions.maxEventChars`). */
  maxEventChars?: number;
  /**
   * Events to add once the body ended normally (a format whose end is implicit). It may throw
   * instead (e.g. `stream_interrupted` for a body that ended before the format's last event).
   */
  finish?: () => Iterable<StreamEvent>;
}

/**
 * The synchronous core of an SSE body's read (a `ChunkReader`): one read's bytes in, its events out.
 */
export class SseBatchReader implements ChunkReader {
  #over = false;
  readonly #bytes: SseByteReader;
  readonly #translate: FrameTranslator;
  readonly #finish: (() => Iterable<StreamEvent>) | undefined;

  constructor(translate: FrameTranslator, options: SseBatchReaderOptions = {}) {
    this.#bytes = new SseByteReader(
      options.maxEventChars === undefined ? {} : { maxEventChars: options.maxEventChars },
    );
    this.#translate = translate;
    this.#finish = options.finish;
  }

  /** True once the stream is over: its end marker or an error the provider sent. */
  get over(): boolean {
    return this.#over;
  }

  /**
   * Reads one chunk (`undefined`: the body ended). Returns the chunk's events (possibly none)
   * and the failure that ends the stream after them: the chunk's events before a frame that
   * cannot be read still count, as they would have reached the round one by one before it.
   */
  read(bytes: Uint8Array | undefined): { events: StreamEvent[]; failure?: OverlapError } {
    const { frames, limit } = this.#bytes.read(bytes);
    const events: StreamEvent[] = [];
    let failure: OverlapError | undefined;
    for (const frame of frames) {
      if (this.#over) break;
      try {
        this.#over = this.#translate(frame, events) === true;
      } catch (err) {
        failure = err instanceof OverlapError ? err : streamCut(err);
        break;
      }
    }
    failure ??= limit;
    if (bytes === undefined && !this.#over && !failure && this.#finish) {
      try {
        for (const event of this.#finish()) events.push(event);
      } catch (err) {
        failure = err instanceof OverlapError ? err : streamCut(err);
      }
    }
    return failure ? { events, failure } : { events };
  }
}
