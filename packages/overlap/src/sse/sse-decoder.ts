/**
 * SseDecoder: the WHATWG `text/event-stream` interpretation rules as a small synchronous object fed
 * string chunks, with no I/O (the byte-decoding stream wrapper is `decodeSseStream`). Work per
 * `push` is proportional to the chunk: line ends are searched only in the new text. What it holds
 * is bounded: an event being received may not grow past `maxEventChars` (the spec sets no limit, a
 * peer that never ends a line or an event would otherwise grow memory without end).
 */

import { OverlapError } from "../errors.js";

/** One dispatched event of an SSE stream. */
export interface SseFrame {
  /** The `event:` field; absent when the frame set none (the browser then calls it "message"). */
  event?: string;
  /** The `data:` lines of the frame joined with `\n`. */
  data: string;
  /**
   * The `id:` field given in this frame, if any (`""` when the frame reset it). The id that
   * persists across frames, as `EventSource` sees it, is {@link SseDecoder.lastEventId}.
   */
  id?: string;
  /** The `retry:` field given in this frame, in milliseconds, if any. */
  retry?: number;
}

/** The default of {@link SseDecoderOptions.maxEventChars}: 8 Mi characters. */
export const DEFAULT_MAX_SSE_EVENT_CHARS = 8 * 1024 * 1024;

/** Options of an {@link SseDecoder}. */
export interface SseDecoderOptions {
  /**
   * The most characters (UTF-16 code units) an event may take while it is received: its field lines
   * so far (comment lines aside), each with one character for its line end, plus the line being
   * read, whatever it is. Past it, `push` throws {@link OverlapError} `limit_exceeded`. Default
   * {@link DEFAULT_MAX_SSE_EVENT_CHARS}.
   */
  maxEventChars?: number;
}

const LF = 0x0a;
const CR = 0x0d;
const BOM = "\uFEFF";

/**
 * Turns text chunks into {@link SseFrame}s as their terminating blank line arrives. Chunks may split
 * the text anywhere, including between the CR and LF of a CRLF line end.
 */
export class SseDecoder {
  readonly #onFrame: (frame: SseFrame) => void;
  readonly #onComment: ((text: string) => void) | undefined;
  readonly #maxEventChars: number;
  /** Text of the current line received in earlier chunks (its end has not arrived yet). */
  #pending = "";
  /** The previous chunk ended with CR: an LF opening this chunk belongs to that line end. */
  #skipLf = false;
  #bomChecked = false;
  #data: string[] = [];
  /** Characters of the current event's field lines so far, each counted with its line end. */
  #eventChars = 0;
  /** Set once the limit was passed: the rest of this stream is refused until {@link end}. */
  #failed: OverlapError | undefined;
  #event = "";
  #frameId: string | undefined;
  #frameRetry: number | undefined;
  #lastEventId = "";
  #retry: number | undefined;

  /**
   * @param onFrame called for every dispatched frame, synchronously inside {@link push}.
   * @param onComment called with the text of each comment line (`:` lines; heartbeats), one
   *   leading space removed like a field value.
   */
  constructor(
    onFrame: (frame: SseFrame) => void,
    onComment?: (text: string) => void,
    options: SseDecoderOptions = {},
  ) {
    this.#onFrame = onFrame;
    this.#onComment = onComment;
    this.#maxEventChars = options.maxEventChars ?? DEFAULT_MAX_SSE_EVENT_CHARS;
  }

  /**
   * The last event id buffer of the spec: set by every valid `id:` field and kept across frames
   * (and across {@link end}), which is what a reconnecting client sends as `Last-Event-ID`.
   */
  get lastEventId(): string {
    return this.#lastEventId;
  }

  /**
   * The reconnection time last set by a `retry:` field, in milliseconds. The spec applies it even
   * when its frame carries no data and so is never dispatched, hence this getter.
   */
  get retry(): number | undefined {
    return this.#retry;
  }

  /**
   * Feeds the next piece of the stream's text. Frames completed by it are passed to `onFrame`
   * before this returns. An exception thrown by a callback propagates, and the rest of the chunk
   * is then not read.
   * @throws OverlapError `limit_exceeded` when the event being received passes `maxEventChars`;
   *   the event is dropped (never dispatched) and every later `push` throws too, until
   *   {@link end} starts a new stream (what follows an oversized line cannot be framed safely).
   */
  push(chunk: string): void {
    if (this.#failed) throw this.#failed;
    let text = chunk;
    if (!this.#bomChecked && text.length > 0) {
      this.#bomChecked = true;
      // The spec's decoding step strips exactly one leading byte order mark.
      if (text.startsWith(BOM)) text = text.slice(1);
    }
    let start = 0;
    if (this.#skipLf && text.length > 0) {
      this.#skipLf = false;
      if (text.charCodeAt(0) === LF) start = 1;
    }
    for (let i = start; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code !== LF && code !== CR) continue;
      this.#bound(this.#pending.length + (i - start));
      const piece = text.slice(start, i);
      const line = this.#pending === "" ? piece : this.#pending + piece;
      this.#pending = "";
      if (code === CR) {
        // A CR ends the line by itself; if an LF follows, it is part of the same line end.
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === LF) i++;
        } else {
          this.#skipLf = true;
        }
      }
      start = i + 1;
      this.#line(line);
    }
    if (start < text.length) {
      this.#bound(this.#pending.length + (text.length - start));
      this.#pending += text.slice(start);
    }
  }

  /**
   * Marks the end of the stream. Per the spec, an event not yet terminated by a blank line is
   * discarded, never dispatched. The decoder is then ready for a new stream (a reconnection);
   * {@link lastEventId} and {@link retry} are kept, as the spec keeps them across reconnections.
   */
  end(): void {
    this.#pending = "";
    this.#skipLf = false;
    this.#bomChecked = false;
    this.#failed = undefined;
    this.#resetFrame();
  }

  /** Fails the stream when a line of `lineChars` would make the event pass the limit. */
  #bound(lineChars: number): void {
    if (lineChars + this.#eventChars <= this.#maxEventChars) return;
    this.#pending = "";
    this.#skipLf = false;
    this.#resetFrame();
    this.#failed = new OverlapError(
      "limit_exceeded",
      `An SSE event passed the limit of ${this.#maxEventChars} characters (maxEventChars).`,
      { details: { limit: this.#maxEventChars } },
    );
    throw this.#failed;
  }

  #line(line: string): void {
    if (line === "") {
      this.#dispatch();
      return;
    }
    const colon = line.indexOf(":");
    if (colon === 0) {
      this.#onComment?.(stripSpace(line.slice(1)));
      return;
    }
    this.#eventChars += line.length + 1;
    // A line without a colon is a field name with an empty value.
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : stripSpace(line.slice(colon + 1));
    switch (field) {
      case "event":
        this.#event = value;
        break;
      case "data":
        this.#data.push(value);
        break;
      case "id":
        // An id with NUL is ignored entirely: it could not be sent back as a header.
        if (!value.includes("\0")) {
          this.#frameId = value;
          this.#lastEventId = value;
        }
        break;
      case "retry":
        if (/^[0-9]+$/.test(value)) {
          this.#frameRetry = Number.parseInt(value, 10);
          this.#retry = this.#frameRetry;
        }
        break;
      default:
        // Unknown fields are ignored, so the format can grow.
        break;
    }
  }

  #dispatch(): void {
    if (this.#data.length === 0) {
      // No data line: nothing is dispatched, and the event type is forgotten (spec).
      this.#resetFrame();
      return;
    }
    const frame: SseFrame = { data: this.#data.join("\n") };
    if (this.#event !== "") frame.event = this.#event;
    if (this.#frameId !== undefined) frame.id = this.#frameId;
    if (this.#frameRetry !== undefined) frame.retry = this.#frameRetry;
    // Reset before calling out, so a throwing callback leaves a consistent decoder.
    this.#resetFrame();
    this.#onFrame(frame);
  }

  #resetFrame(): void {
    this.#data = [];
    this.#eventChars = 0;
    this.#event = "";
    this.#frameId = undefined;
    this.#frameRetry = undefined;
  }
}

function stripSpace(value: string): string {
  return value.startsWith(" ") ? value.slice(1) : value;
}
