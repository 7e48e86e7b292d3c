/**
 * SseEventBound: the size limit of {@link SseDecoder} for a host that frames with another parser
 * (eventsource-parser, say, buffers an unfinished line and an unfinished event without limit; the
 * runtime itself reads every SSE stream with SseDecoder, which bounds events on its own). It sees
 * the same text first and counts what an event takes while it is received: its field lines so far
 * (comment lines aside), each with one character for its line end, plus the line being read.
 * Counting only: it keeps no text, and work is proportional to the chunk.
 */

import { OverlapError } from "../errors.js";
import { DEFAULT_MAX_SSE_EVENT_CHARS } from "./sse-decoder.js";

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const BOM = 0xfeff;

/** Counts an SSE stream's text and stops admitting it once an event passes the limit. */
export class SseEventBound {
  readonly #max: number;
  /** Characters of the line being read. */
  #line = 0;
  /** The line being read is a comment (it began with a colon). */
  #comment = false;
  /** Characters of the event's field lines so far, each with its line end. */
  #event = 0;
  /** The last character seen was a CR: an LF right after it is the same line end. */
  #afterCr = false;
  /** No text seen yet: a leading byte order mark is not part of the stream's text. */
  #atStart = true;
  #error: OverlapError | undefined;

  /** @param maxEventChars the limit; default {@link DEFAULT_MAX_SSE_EVENT_CHARS}. */
  constructor(maxEventChars: number = DEFAULT_MAX_SSE_EVENT_CHARS) {
    this.#max = maxEventChars;
  }

  /** Set once an event passed the limit; from then on nothing more is admitted. */
  get error(): OverlapError | undefined {
    return this.#error;
  }

  /**
   * Counts the next piece of the stream's text, before the parser is given it. Returns how much of
   * it the parser may be given: all of it, or, when an event passes the limit, the text before the
   * line that passed it (then {@link error} is set, and every later call returns 0).
   */
  count(text: string): number {
    if (this.#error) return 0;
    let from = 0;
    if (this.#atStart && text.length > 0) {
      this.#atStart = false;
      if (text.charCodeAt(0) === BOM) from = 1;
    }
    let lineStart = 0;
    for (let i = from; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === LF && this.#afterCr) {
        this.#afterCr = false;
        lineStart = i + 1;
        continue;
      }
      this.#afterCr = code === CR;
      if (code === LF || code === CR) {
        if (this.#passes(this.#line)) return lineStart;
        // A blank line ends the event; a comment line is not part of it.
        if (this.#line === 0) this.#event = 0;
        else if (!this.#comment) this.#event += this.#line + 1;
        this.#line = 0;
        this.#comment = false;
        lineStart = i + 1;
        continue;
      }
      if (this.#line === 0 && code === COLON) this.#comment = true;
      this.#line++;
    }
    // A line still open: the part received counts (as the decoder's pending text does).
    return this.#line > 0 && this.#passes(this.#line) ? lineStart : text.length;
  }

  #passes(line: number): boolean {
    if (line + this.#event <= this.#max) return false;
    this.#error = new OverlapError(
      "limit_exceeded",
      `An SSE event passed the limit of ${this.#max} characters (maxEventChars).`,
      { details: { limit: this.#max } },
    );
    return true;
  }
}
