/**
 * Incremental, tolerant JSON parser for *display previews* of tool arguments while they stream
 * (the tolerant parser: it never mixes with the strict one). It never feeds anything that executes: only `parseToolInput` on the complete
 * buffer does that. Here the goal is a cheap, never-throwing, best-effort picture of the value.
 *
 * One cohesive state machine, kept in one file although it is longer than our usual 500 lines:
 * the scanner, the container stack and the snapshots share one state that survives between chunks.
 *
 * How it works:
 * - {@link PartialJsonParser.push} only keeps the chunk; the text pushed since the last look is
 *   scanned in one go when something is asked ({@link PartialJsonParser.snapshot}, `done`,
 *   `invalid`). A stream of thousands of small deltas with a preview every 50 ms is then scanned
 *   in a few dozen long runs instead of thousands of short ones, and text after the last preview
 *   is scanned only when it reaches 16 Ki characters (the complete arguments are parsed strictly
 *   anyway, and unasked text is not held in small pieces without bound). The scan is a
 *   character-level state machine over the new text only; a whole object or array arriving at the
 *   first scan (a provider that buffers the input sends it in one delta) is parsed natively.
 *   Open containers live on an explicit stack (no recursion, so absurd nesting cannot overflow the
 *   call stack), and scanner state (inside a string, an escape, a `\u` sequence, a number, a
 *   literal) survives between chunks, so a token may be split anywhere, even between the two
 *   UTF-16 code units of one character. Runs of plain string characters are appended with one
 *   slice per run, never char by char.
 * - Each stack frame holds a private, mutable working container with the children that are
 *   already finished. A finished child is frozen once and from then on only shared, never copied.
 * - {@link PartialJsonParser.snapshot} copies only the containers on the open path (innermost open
 *   container up to the root), adds the in-progress child to each copy, freezes the copies and
 *   returns the root. Cost: the size of the open containers, independent of how much was pushed.
 *
 * Design decision, freezing: every value handed out is deeply frozen (`Object.freeze`). Finished
 * subtrees are shared by identity between consecutive snapshots, so a consumer mutating one
 * snapshot would otherwise silently corrupt the others; freezing turns that into an error in
 * strict mode. The working containers are frozen at the moment their closing bracket arrives,
 * which is exactly when they stop changing, so no copy is needed then.
 */

import type { JsonPreview } from "../protocol/json-preview.js";

// Scanner modes. Plain numbers rather than an enum: they are compared in the hot loop and
// `const enum` does not mix well with isolatedModules.
/** Expecting a value (leading whitespace skipped); `]` too when the array is still empty. */
const M_VALUE = 0;
/** After a value inside a container: expecting `,` or the matching closing bracket. */
const M_AFTER = 1;
/** Expecting an object key; `}` too when the object is still empty. */
const M_KEY = 2;
/** After an object key: expecting `:`. */
const M_COLON = 3;
/** Inside a string (value or key). */
const M_STRING = 4;
/** Just after a backslash inside a string. */
const M_ESCAPE = 5;
/** Inside a `\uXXXX` escape, collecting hex digits. */
const M_UNICODE = 6;
/** Inside a number. */
const M_NUMBER = 7;
/** Inside `true`, `false` or `null`. */
const M_LITERAL = 8;
/** The top-level value is complete: only whitespace may follow. */
const M_DONE = 9;

// Number grammar states (RFC 8259 section 6). "Terminal" states may end the number.
const N_START = 0; // nothing yet: `-` or a digit
const N_MINUS = 1; // after `-`: a digit
const N_ZERO = 2; // leading `0` (terminal): `.`, `e`, `E`
const N_INT = 3; // integer digits (terminal)
const N_DOT = 4; // after `.`: a digit
const N_FRAC = 5; // fraction digits (terminal)
const N_EXP = 6; // after `e`/`E`: sign or digit
const N_EXP_SIGN = 7; // after the exponent sign: a digit
const N_EXP_INT = 8; // exponent digits (terminal)

/** Characters of unscanned text that trigger a scan without being asked. */
const SCAN_AT = 16 * 1024;

const K_ARRAY = 0;
const K_OBJECT = 1;

/** An open array: its finished elements, in order. */
interface ArrayFrame {
  readonly kind: typeof K_ARRAY;
  readonly items: JsonPreview[];
}

/** An open object: its finished members, plus the key of the member being read. */
interface ObjectFrame {
  readonly kind: typeof K_OBJECT;
  readonly members: Record<string, JsonPreview>;
  /** Key of the current member; meaningful once its closing quote has been read. */
  key: string;
}

type Frame = ArrayFrame | ObjectFrame;

/** The three literals, indexed by `#lit`: 0 = true, 1 = false, 2 = null. */
const LITERAL_WORDS = ["true", "false", "null"] as const;

/**
 * Sets an own, enumerable data property. A plain assignment of `__proto__` would call the
 * inherited setter and change the prototype instead; `JSON.parse` creates an own property, and
 * previews must deep-equal what `JSON.parse` gives.
 */
function setMember(target: Record<string, JsonPreview>, key: string, value: JsonPreview): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}

/** JSON insignificant whitespace: space, tab, line feed, carriage return. */
function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The first character of `text` that is not JSON whitespace, or -1. */
function firstNonWhitespace(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!isWhitespace(c)) return c;
  }
  return -1;
}

/** The last character of `text` that is not JSON whitespace, or -1. */
function lastNonWhitespace(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    if (!isWhitespace(c)) return c;
  }
  return -1;
}

/** Freezes every object and array of a parsed value, without recursion (nesting may be deep). */
function deepFreeze(value: JsonPreview): JsonPreview {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (item === null || typeof item !== "object") continue;
    Object.freeze(item);
    for (const child of Object.values(item)) {
      if (child !== null && typeof child === "object") pending.push(child);
    }
  }
  return value;
}

/** Value of a hex digit, or -1. */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/** True for characters that can appear in a JSON number: digits, `-`, `+`, `.`, `e`, `E`. */
function isNumberChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45
  );
}

/** Next number-grammar state after character `c`, or -1 when `c` cannot come next. */
function numberStep(state: number, c: number): number {
  const digit = c >= 0x30 && c <= 0x39;
  switch (state) {
    case N_START:
      if (c === 0x2d) return N_MINUS;
      if (c === 0x30) return N_ZERO;
      return digit ? N_INT : -1;
    case N_MINUS:
      if (c === 0x30) return N_ZERO;
      return digit ? N_INT : -1;
    case N_ZERO:
    case N_INT:
      if (digit) return state === N_INT ? N_INT : -1; // no leading zeros: `01` is invalid
      if (c === 0x2e) return N_DOT;
      return c === 0x65 || c === 0x45 ? N_EXP : -1;
    case N_DOT:
      return digit ? N_FRAC : -1;
    case N_FRAC:
      if (digit) return N_FRAC;
      return c === 0x65 || c === 0x45 ? N_EXP : -1;
    case N_EXP:
      if (c === 0x2b || c === 0x2d) return N_EXP_SIGN;
      return digit ? N_EXP_INT : -1;
    case N_EXP_SIGN:
    case N_EXP_INT:
      return digit ? N_EXP_INT : -1;
    default:
      return -1;
  }
}

/** States in which the number text so far is a complete JSON number. */
function isNumberTerminal(state: number): boolean {
  return state === N_ZERO || state === N_INT || state === N_FRAC || state === N_EXP_INT;
}

/**
 * Incremental tolerant JSON parser for display only, never for execution.
 *
 * Feed it the argument text in whatever fragments arrive ({@link push}) and ask for a
 * best-effort value at any time ({@link snapshot}). It never throws. Invalid JSON makes it stop
 * advancing: later chunks are ignored and the snapshot stays the last good one (see
 * {@link invalid}). Inside strings it is lenient on purpose, because a preview should show what the
 * model wrote: an unknown escape such as `\x` yields the escaped character (`x`), a malformed
 * `\u` escape yields its text without the backslash, and raw control characters are kept.
 *
 * Snapshots are deeply frozen and share every finished subtree by identity with earlier
 * snapshots; see the module comment.
 */
export class PartialJsonParser {
  /** Open containers, outermost first. */
  readonly #stack: Frame[] = [];
  /** Innermost open container, kept apart to spare an index lookup per token. */
  #top: Frame | undefined = undefined;
  #mode = M_VALUE;
  /** In M_VALUE / M_KEY: the container was just opened, so it may close right away. */
  #mayClose = false;
  /** The completed top-level value (valid in M_DONE). */
  #root: JsonPreview = null;

  /** Decoded text of the string being read (value or key), escapes resolved. */
  #str = "";
  /**
   * Last UTF-16 code unit appended to {@link #str}, tracked so a snapshot can check for a
   * dangling high surrogate without reading the (possibly rope-shaped, unflattened) string.
   */
  #strLastUnit = 0;
  /** The string being read is an object key (never shown until its value starts). */
  #strIsKey = false;
  /** Hex digits collected so far in a `\u` escape. */
  #hex = "";

  /** Text of the number being read (from earlier chunks; the current run is sliced on demand). */
  #num = "";
  #numState = N_START;

  /** Index into LITERAL_WORDS of the literal being read, and how many characters matched. */
  #lit = 0;
  #litPos = 0;

  #length = 0;
  /** Text pushed but not scanned yet (see the module comment). */
  #unscanned = "";
  /** Nothing was scanned yet: a first scan of a whole document may take the native path. */
  #fresh = true;
  #invalid = false;
  /** Something visible changed since the last snapshot was built. */
  #dirty = false;
  #snapshot: JsonPreview | undefined = undefined;

  /** Number of characters (UTF-16 code units) pushed so far, including any ignored after an error. */
  get length(): number {
    return this.#length;
  }

  /**
   * True once the top-level value is complete. A top-level number is complete only once a
   * character after it (whitespace) shows that no more digits follow.
   */
  get done(): boolean {
    this.#scan();
    return this.#mode === M_DONE;
  }

  /**
   * True once invalid input was seen. From then on pushes are ignored and {@link snapshot} keeps
   * returning the last good value (the same object).
   */
  get invalid(): boolean {
    this.#scan();
    return this.#invalid;
  }

  /**
   * Appends a chunk of the document; it is scanned at the next question asked of the parser.
   * Work is proportional to the chunk: the text pushed before is never scanned again. Never
   * throws: a chunk that makes the document invalid stops the parser (see {@link invalid}); a
   * non-string chunk from an untyped caller is ignored.
   */
  push(chunk: string): void {
    if (typeof chunk !== "string") return;
    this.#length += chunk.length;
    if (this.#invalid || chunk.length === 0) return;
    try {
      this.#unscanned += chunk;
      // Scanned by the way past a bound, so unasked text is not held in thousands of pieces.
      if (this.#unscanned.length >= SCAN_AT) this.#scan();
    } catch {
      // The text outgrew V8's maximum string length: stop, as the scan itself would.
      this.#scan();
      this.#invalid = true;
    }
  }

  /** Scans the text pushed since the last scan. */
  #scan(): void {
    const text = this.#unscanned;
    if (text === "") return;
    this.#unscanned = "";
    if (this.#invalid) return;
    const fresh = this.#fresh;
    this.#fresh = false;
    if (fresh && this.#whole(text)) return;
    try {
      this.#consume(text);
    } catch {
      // Defense in depth: the state machine has no known throwing path, but the engine can still
      // throw (e.g. a string beyond V8's maximum length). A preview must never break the stream
      // that carries it, so stop here and keep the last good snapshot.
      this.#invalid = true;
    }
  }

  /**
   * The best-effort value so far, or `undefined` when nothing is known yet (only whitespace, or an
   * unfinished top-level number or literal).
   *
   * - Open arrays and objects appear closed.
   * - An unfinished string shows its complete characters; an unfinished escape (`\`, `\u12`) and a
   *   high surrogate whose low half has not arrived are left out.
   * - An unfinished number or literal is left out; so is an object member whose key is unfinished,
   *   whose `:` or value has not arrived, or whose value is an unfinished number or literal.
   *
   * The result is deeply frozen. It is the very same object as last time when nothing visible
   * changed (in particular when nothing was pushed); otherwise only the open containers are new.
   */
  snapshot(): JsonPreview | undefined {
    this.#scan();
    if (!this.#dirty) return this.#snapshot;
    try {
      this.#snapshot = this.#build();
      this.#dirty = false;
    } catch {
      // Same defense as in push: keep the previous snapshot rather than throw.
    }
    return this.#snapshot;
  }

  /**
   * The native path for a document that arrives whole at the first scan (providers that buffer a
   * call's input send it in one delta): an object or array that `JSON.parse` accepts is the same
   * value the state machine would build, at a fraction of the cost. Anything else (unfinished,
   * lenient, or a bare number that could still grow) is left to the state machine.
   */
  #whole(text: string): boolean {
    const first = firstNonWhitespace(text);
    const last = lastNonWhitespace(text);
    if (!((first === 0x7b && last === 0x7d) || (first === 0x5b && last === 0x5d))) return false;
    let value: JsonPreview;
    try {
      value = deepFreeze(JSON.parse(text) as JsonPreview);
    } catch {
      return false;
    }
    this.#root = value;
    this.#mode = M_DONE;
    this.#dirty = true;
    return true;
  }

  /** Builds a fresh snapshot: copies of the open path, innermost first, sharing finished values. */
  #build(): JsonPreview | undefined {
    const inValueString =
      (this.#mode === M_STRING || this.#mode === M_ESCAPE || this.#mode === M_UNICODE) &&
      !this.#strIsKey;
    let child: JsonPreview | undefined = inValueString ? this.#visibleString() : undefined;
    const stack = this.#stack;
    if (stack.length === 0) {
      return this.#mode === M_DONE ? this.#root : child;
    }
    for (let d = stack.length - 1; d >= 0; d--) {
      const frame = stack[d]!;
      if (frame.kind === K_ARRAY) {
        const copy = frame.items.slice();
        if (child !== undefined) copy.push(child);
        child = Object.freeze(copy);
      } else {
        // Spread defines own data properties, so an own `__proto__` member is copied as such.
        const copy: Record<string, JsonPreview> = { ...frame.members };
        if (child !== undefined) setMember(copy, frame.key, child);
        child = Object.freeze(copy);
      }
    }
    return child;
  }

  /** The unfinished string's text up to its last complete character. */
  #visibleString(): string {
    const last = this.#strLastUnit;
    // A trailing high surrogate is half a character: its low half may be in the next chunk.
    return last >= 0xd800 && last <= 0xdbff ? this.#str.slice(0, -1) : this.#str;
  }

  /** Appends decoded string text whose last code unit is `lastUnit`. */
  #append(text: string, lastUnit: number): void {
    this.#str += text;
    this.#strLastUnit = lastUnit;
    if (!this.#strIsKey) this.#dirty = true;
  }

  /** Stops the parser: the state is left as it was before the offending character. */
  #fail(): void {
    this.#invalid = true;
  }

  /** Records a finished value in the innermost container (or as the top-level value). */
  #emit(value: JsonPreview): void {
    this.#dirty = true;
    const top = this.#top;
    if (top === undefined) {
      this.#root = value;
      this.#mode = M_DONE;
      return;
    }
    if (top.kind === K_ARRAY) top.items.push(value);
    else setMember(top.members, top.key, value);
    this.#mode = M_AFTER;
  }

  #open(frame: Frame): void {
    this.#stack.push(frame);
    this.#top = frame;
    this.#mayClose = true;
    this.#dirty = true; // the (empty) container becomes visible
    this.#mode = frame.kind === K_ARRAY ? M_VALUE : M_KEY;
  }

  /** Closes the innermost container; its working copy becomes a finished, frozen value. */
  #close(): void {
    const frame = this.#stack.pop()!;
    this.#top = this.#stack[this.#stack.length - 1];
    this.#emit(Object.freeze(frame.kind === K_ARRAY ? frame.items : frame.members));
  }

  /** True when `c` may directly follow a number in the current context. */
  #endsNumber(c: number): boolean {
    if (isWhitespace(c)) return true;
    const top = this.#top;
    if (top === undefined) return false;
    return c === 0x2c || c === (top.kind === K_ARRAY ? 0x5d : 0x7d);
  }

  /** The state machine. Each branch consumes as much of its run as it can in one go. */
  #consume(chunk: string): void {
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      switch (this.#mode) {
        case M_STRING: {
          // Hot path: one scan to the next quote or backslash, one slice for the whole run.
          let j = i;
          let c = 0;
          while (j < n) {
            c = chunk.charCodeAt(j);
            if (c === 0x22 || c === 0x5c) break;
            j++;
          }
          if (j > i) this.#append(chunk.slice(i, j), chunk.charCodeAt(j - 1));
          if (j === n) return;
          i = j + 1;
          if (c === 0x5c) {
            this.#mode = M_ESCAPE;
          } else {
            const text = this.#str;
            this.#str = "";
            this.#strLastUnit = 0;
            if (this.#strIsKey) {
              (this.#top as ObjectFrame).key = text;
              this.#mode = M_COLON;
            } else {
              this.#emit(text);
            }
          }
          break;
        }

        case M_ESCAPE: {
          const c = chunk.charCodeAt(i++);
          this.#mode = M_STRING;
          switch (c) {
            case 0x62: // b
              this.#append("\b", 0x08);
              break;
            case 0x66: // f
              this.#append("\f", 0x0c);
              break;
            case 0x6e: // n
              this.#append("\n", 0x0a);
              break;
            case 0x72: // r
              this.#append("\r", 0x0d);
              break;
            case 0x74: // t
              this.#append("\t", 0x09);
              break;
            case 0x75: // u
              this.#mode = M_UNICODE;
              this.#hex = "";
              break;
            default:
              // `\"`, `\\`, `\/`, and (tolerated) any unknown escape: the character itself.
              this.#append(chunk[i - 1]!, c);
          }
          break;
        }

        case M_UNICODE: {
          while (i < n && this.#hex.length < 4) {
            const c = chunk.charCodeAt(i);
            if (hexValue(c) < 0) break;
            this.#hex += chunk[i]!;
            i++;
          }
          if (this.#hex.length === 4) {
            const unit = Number.parseInt(this.#hex, 16);
            this.#mode = M_STRING;
            this.#append(String.fromCharCode(unit), unit);
          } else if (i < n) {
            // Malformed escape (tolerated): keep its text without the backslash, then read the
            // offending character as ordinary string content (it may be the closing quote).
            const text = `u${this.#hex}`;
            this.#mode = M_STRING;
            this.#append(text, text.charCodeAt(text.length - 1));
          }
          break;
        }

        case M_NUMBER: {
          let state = this.#numState;
          const start = i;
          while (i < n) {
            const c = chunk.charCodeAt(i);
            if (!isNumberChar(c)) break;
            state = numberStep(state, c);
            if (state < 0) {
              this.#fail();
              return;
            }
            i++;
          }
          this.#numState = state;
          if (i === n) {
            this.#num += chunk.slice(start, i);
            return;
          }
          // A character that cannot be part of a number ends it, if the context allows it there.
          if (!isNumberTerminal(state) || !this.#endsNumber(chunk.charCodeAt(i))) {
            this.#fail();
            return;
          }
          const text = this.#num + chunk.slice(start, i);
          this.#num = "";
          // Same conversion as JSON.parse for every string of the JSON number grammar
          // (including `-0`, overflow to ±Infinity and underflow to ±0).
          this.#emit(Number(text));
          break;
        }

        case M_LITERAL: {
          const word = LITERAL_WORDS[this.#lit]!;
          let pos = this.#litPos;
          while (i < n && pos < word.length) {
            if (chunk.charCodeAt(i) !== word.charCodeAt(pos)) {
              this.#fail();
              return;
            }
            i++;
            pos++;
          }
          this.#litPos = pos;
          if (pos === word.length)
            this.#emit(this.#lit === 0 ? true : this.#lit === 1 ? false : null);
          break;
        }

        case M_VALUE: {
          const c = chunk.charCodeAt(i);
          if (isWhitespace(c)) {
            i++;
            break;
          }
          if (c === 0x5d && this.#mayClose && this.#top?.kind === K_ARRAY) {
            i++;
            this.#close();
            break;
          }
          this.#mayClose = false;
          if (c === 0x22) {
            i++;
            this.#strIsKey = false;
            this.#mode = M_STRING;
            this.#dirty = true; // the empty string becomes visible
          } else if (c === 0x7b) {
            i++;
            this.#open({ kind: K_OBJECT, members: {}, key: "" });
          } else if (c === 0x5b) {
            i++;
            this.#open({ kind: K_ARRAY, items: [] });
          } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
            this.#mode = M_NUMBER;
            this.#numState = N_START;
            this.#num = "";
          } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
            this.#mode = M_LITERAL;
            this.#lit = c === 0x74 ? 0 : c === 0x66 ? 1 : 2;
            this.#litPos = 0;
          } else {
            this.#fail();
            return;
          }
          break;
        }

        case M_AFTER: {
          const c = chunk.charCodeAt(i);
          const top = this.#top!;
          if (isWhitespace(c)) {
            i++;
          } else if (c === 0x2c) {
            i++;
            this.#mayClose = false;
            this.#mode = top.kind === K_ARRAY ? M_VALUE : M_KEY;
          } else if (c === (top.kind === K_ARRAY ? 0x5d : 0x7d)) {
            i++;
            this.#close();
          } else {
            this.#fail();
            return;
          }
          break;
        }

        case M_KEY: {
          const c = chunk.charCodeAt(i);
          if (isWhitespace(c)) {
            i++;
          } else if (c === 0x22) {
            i++;
            this.#mayClose = false;
            this.#strIsKey = true;
            this.#mode = M_STRING;
          } else if (c === 0x7d && this.#mayClose) {
            i++;
            this.#close();
          } else {
            this.#fail();
            return;
          }
          break;
        }

        case M_COLON: {
          const c = chunk.charCodeAt(i);
          if (isWhitespace(c)) {
            i++;
          } else if (c === 0x3a) {
            i++;
            this.#mode = M_VALUE;
          } else {
            this.#fail();
            return;
          }
          break;
        }

        default: {
          // M_DONE: only trailing whitespace is allowed after the top-level value.
          if (!isWhitespace(chunk.charCodeAt(i))) {
            this.#fail();
            return;
          }
          i++;
        }
      }
    }
  }
}

/**
 * One-shot tolerant parse of a (possibly unfinished) JSON document: the snapshot of a
 * {@link PartialJsonParser} fed `text` at once. Never throws. Note that a bare top-level number is
 * `undefined` here, since more digits could still follow.
 */
export function parsePartialJson(text: string): JsonPreview | undefined {
  const parser = new PartialJsonParser();
  parser.push(text);
  return parser.snapshot();
}
