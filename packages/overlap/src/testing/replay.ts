/**
 * Helpers to replay recorded SSE text as neutral stream events, whole or cut into chunks the way a
 * network would deliver it. Deterministic: a failing chunking is reproduced from its seed.
 */

import { type ChatChunk, ChatChunkTranslator } from "../providers/openai/chat-chunk-translator.js";
import { SseDecoder } from "../sse/sse-decoder.js";
import type { StreamEvent } from "../stream/stream-event.js";

/**
 * A small seeded pseudo-random generator (mulberry32): the same seed gives the same sequence of
 * numbers in [0, 1) on every run and platform. Not for anything but tests.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Cuts `text` into chunks of 1..`maxChunk` UTF-16 code units, pseudo-randomly from `seed`.
 * Cuts may fall anywhere: inside a field, between CR and LF, between the halves of a surrogate
 * pair (fine for string decoding; encode the whole text first when testing byte decoding).
 */
export function splitSeeded(text: string, seed: number, maxChunk: number): string[] {
  if (!Number.isInteger(maxChunk) || maxChunk < 1) {
    throw new RangeError(`maxChunk must be a positive integer, got ${maxChunk}.`);
  }
  const random = mulberry32(seed);
  const chunks: string[] = [];
  for (let at = 0; at < text.length; ) {
    const size = 1 + Math.floor(random() * maxChunk);
    chunks.push(text.slice(at, at + size));
    at += size;
  }
  return chunks;
}

/**
 * Decodes recorded SSE text into the stream events its frames carry (each frame's data is one
 * JSON event). Throws when a frame's data is not a JSON object with a string `type`, or when the
 * frame's `event:` name disagrees with that type: either means the recording is broken.
 */
export function sseToStreamEvents(text: string): StreamEvent[] {
  return replayChunked(text, [text]);
}

/**
 * Like {@link sseToStreamEvents}, but feeds the decoder `chunks` one by one, as a network would.
 * Throws when the chunks do not join to `text` (a broken split would test nothing).
 */
export function replayChunked(text: string, chunks: readonly string[]): StreamEvent[] {
  if (chunks.join("") !== text)
    throw new Error("replayChunked: the chunks do not join to the text.");
  const events: StreamEvent[] = [];
  const decoder = new SseDecoder((frame) => {
    const event: unknown = JSON.parse(frame.data);
    if (
      event === null ||
      typeof event !== "object" ||
      typeof (event as { type?: unknown }).type !== "string"
    ) {
      throw new Error(`SSE frame data is not a stream event: ${frame.data.slice(0, 200)}`);
    }
    const type = (event as { type: string }).type;
    if (frame.event !== undefined && frame.event !== type) {
      throw new Error(`SSE frame named "${frame.event}" carries an event of type "${type}".`);
    }
    events.push(event as StreamEvent);
  });
  for (const chunk of chunks) decoder.push(chunk);
  decoder.end();
  return events;
}

/**
 * Cuts SSE text into its frames, one chunk per frame (each ending with its blank line), so a
 * replay can deliver exactly one event at a time.
 */
export function splitFrames(text: string): string[] {
  const chunks: string[] = [];
  let start = 0;
  let lineStart = 0;
  for (const match of text.matchAll(/\r\n|\r|\n/g)) {
    const end = match.index + match[0].length;
    // A line end right where a line starts ends an empty line: the frame is complete.
    if (match.index === lineStart) {
      chunks.push(text.slice(start, end));
      start = end;
    }
    lineStart = end;
  }
  if (start < text.length) chunks.push(text.slice(start));
  return chunks;
}

/**
 * Replays the SSE text of an OpenAI-compatible Chat Completions stream, delivered in `chunks`,
 * through the {@link ChatChunkTranslator}: the neutral events our OpenAI adapter would produce.
 */
export function replayChatChunks(chunks: readonly string[]): StreamEvent[] {
  const translator = new ChatChunkTranslator();
  const events: StreamEvent[] = [];
  const decoder = new SseDecoder((frame) => {
    if (frame.data === "[DONE]") return;
    events.push(...translator.push(JSON.parse(frame.data) as ChatChunk));
  });
  for (const chunk of chunks) decoder.push(chunk);
  decoder.end();
  events.push(...translator.end());
  return events;
}
