/** One frame of a streamed response, to be written at `start + atMs`. */
export interface WireFrame {
  atMs: number;
  /** The exact bytes of the frame (an SSE event, blank line included). */
  text: string;
  /**
   * A binary frame's exact bytes (Bedrock's event stream), written instead of `text`, which is
   * then a readable rendering of the frame for logs and tests.
   */
  bytes?: Uint8Array;
}

/** `event: <name>` then `data: <json>` then a blank line: the Messages API's framing. */
export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** `data: <json>` then a blank line (a string is written as is, e.g. `[DONE]`). */
export function sseData(data: unknown): string {
  return `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}
