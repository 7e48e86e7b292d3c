/**
 * The synchronous core that every reader of an SSE byte stream shares (the stream decoder, the
 * browser's event reader, the Gemini adapter): bytes in, the frames they complete out.
 */

import { OverlapError } from "../errors.js";
import { SseDecoder, type SseDecoderOptions, type SseFrame } from "./sse-decoder.js";

/** What one {@link SseByteReader.read} gives. */
export interface SseRead {
  /** The frames the chunk completed, in order. */
  frames: SseFrame[];
  /**
   * Set when an event passed `maxEventChars` (`limit_exceeded`): the frames the chunk completed
   * before it are still in `frames`, and the reader refuses every later chunk.
   */
  limit?: OverlapError;
}

/**
 * Decodes UTF-8 across chunks (a character split between two chunks decodes whole; a leading
 * byte order mark reaches {@link SseDecoder}, which strips exactly one, as the spec says) and
 * splits the text into frames. No I/O: a reader awaits its chunks and hands them over.
 */
export class SseByteReader {
  readonly #frames: SseFrame[] = [];
  readonly #text = new TextDecoder("utf-8", { ignoreBOM: true });
  readonly #decoder: SseDecoder;

  constructor(options: SseDecoderOptions = {}) {
    this.#decoder = new SseDecoder((frame) => this.#frames.push(frame), undefined, options);
  }

  /**
   * Reads one chunk (bytes, or text already decoded); `undefined` ends the stream: an unfinished
   * character becomes U+FFFD and the unterminated last event is discarded (its id never applied).
   */
  read(chunk: Uint8Array | string | undefined): SseRead {
    let limit: OverlapError | undefined;
    try {
      if (chunk === undefined) {
        this.#decoder.push(this.#text.decode());
        this.#decoder.end();
      } else {
        this.#decoder.push(
          typeof chunk === "string" ? chunk : this.#text.decode(chunk, { stream: true }),
        );
      }
    } catch (err) {
      if (!(err instanceof OverlapError)) throw err;
      limit = err;
    }
    const frames = this.#frames.splice(0);
    return limit ? { frames, limit } : { frames };
  }
}
