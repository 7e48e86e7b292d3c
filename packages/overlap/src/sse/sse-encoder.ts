/**
 * The server side of the event stream: AgentEvents written as `text/event-stream` frames, resumable by id. A value that could
 * end a line inside `event:`, `id:` or a comment is refused, because it would let that value write
 * frames of its own (injection); `data` is split into several `data:` lines instead.
 */

import type { AgentEvent } from "../protocol/agent-event.js";

/** The fields of one frame to write; see {@link encodeSseFrame}. */
export interface SseFrameInit {
  /** The event name; omitted when undefined or empty (both mean the default, "message"). */
  event?: string | undefined;
  /** Any text; each line becomes one `data:` line and the reader joins them with `\n`. */
  data: string;
  /** The event id a reconnecting client sends back as `Last-Event-ID` (`""` resets it). */
  id?: string | undefined;
  /** The reconnection delay to suggest to the client, in milliseconds. */
  retry?: number | undefined;
}

const LINE_BREAK = /\r\n|\r|\n/;

/**
 * Encodes one frame, ending with the blank line that dispatches it. The reader gets `data` back
 * with every line end (CRLF, CR or LF) turned into `\n`: SSE cannot carry the difference.
 * @throws TypeError when `event` or `id` contains CR or LF, `id` contains NUL (readers ignore such
 *   an id), or `retry` is not a non-negative integer.
 */
export function encodeSseFrame(frame: SseFrameInit): string {
  let out = "";
  if (frame.event !== undefined && frame.event !== "") {
    assertSingleLine("event", frame.event);
    out += `event: ${frame.event}\n`;
  }
  if (frame.id !== undefined) {
    assertSingleLine("id", frame.id);
    if (frame.id.includes("\0")) {
      throw new TypeError("SSE id must not contain NUL: readers would silently ignore it.");
    }
    out += `id: ${frame.id}\n`;
  }
  if (frame.retry !== undefined) {
    if (!Number.isSafeInteger(frame.retry) || frame.retry < 0) {
      throw new TypeError(`SSE retry must be a non-negative integer, got ${frame.retry}.`);
    }
    out += `retry: ${frame.retry}\n`;
  }
  for (const line of frame.data.split(LINE_BREAK)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/**
 * Encodes a comment line (`: text`), which readers skip: used for heartbeats that keep proxies
 * from closing an idle connection.
 * @throws TypeError when `text` contains CR or LF.
 */
export function encodeSseComment(text: string): string {
  assertSingleLine("comment", text);
  return `: ${text}\n`;
}

/**
 * Encodes an {@link AgentEvent} as one frame: its `type` as the event name, the whole event
 * (including `type`) as JSON data, and `id` so a reconnecting reader resumes after it.
 * @throws TypeError when `id` could inject lines (see {@link encodeSseFrame}).
 */
export function encodeAgentEvent(event: AgentEvent, id: string): string {
  const type: string = event.type;
  // The frame written directly (every event of every stream comes here): JSON.stringify escapes
  // CR and LF, so the data is always exactly one line. A name or id that needs a check's error
  // (or leaves the name out) takes encodeSseFrame's way, which writes the same frame otherwise.
  if (type === "" || hasLineBreak(type) || hasLineBreak(id) || id.includes("\0")) {
    return encodeSseFrame({ event: type, data: JSON.stringify(event), id });
  }
  return `event: ${type}\nid: ${id}\ndata: ${JSON.stringify(event)}\n\n`;
}

function hasLineBreak(value: string): boolean {
  return value.includes("\n") || value.includes("\r");
}

function assertSingleLine(what: string, value: string): void {
  if (/[\r\n]/.test(value)) {
    throw new TypeError(
      `SSE ${what} must not contain CR or LF (it would start a new line and could inject frames): ${JSON.stringify(value)}.`,
    );
  }
}
