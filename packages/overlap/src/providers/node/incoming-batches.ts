/**
 * The events of a provider's body read straight from a Node stream (a response of
 * `node-http-fetch.ts`, or the body an SDK's Node handler received): the pieces of body that one
 * socket read delivers (Node's HTTP parser hands over each chunk of a chunked body on its own: one
 * per SSE frame on a fine-grained stream) are gathered, then decoded, split and translated in one
 * synchronous pass, and their events handed over as one array, with one await per batch. No web
 * stream sits between the socket and the reader.
 */

import type { Readable } from "node:stream";
import type { OverlapError } from "../../errors.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import type { ChunkReader } from "../body-batches.js";
import { streamCut } from "../provider-errors.js";

/**
 * Events not yet taken by the round beyond which the body is paused until it takes them: a
 * round that stops taking events (a slow sink) holds the connection back, not memory.
 */
const MAX_WAITING_EVENTS = 4_096;

/**
 * Yields the events of `incoming` as `batches` reads them, one array per burst of chunks, ending
 * after the stream's end (its end marker, an error the provider sent, or the body's end). A
 * connection that fails is `stream_interrupted`; an abort ends quietly; leaving early destroys
 * the response (closes the connection) unless its whole body came, which is then drained.
 */
export async function* incomingBatches(
  incoming: Readable,
  batches: ChunkReader,
  signal: AbortSignal,
  /** Bytes of the body already read from `incoming` (by whoever looked at its start). */
  first?: Uint8Array,
): AsyncGenerator<StreamEvent[]> {
  let waiting: StreamEvent[] = [];
  let failure: OverlapError | undefined;
  let ended = false;
  let wake: (() => void) | undefined;
  // A Node response knows when its whole body came (read or not); another stream, once it ended.
  const complete = (): boolean =>
    (incoming as Readable & { complete?: boolean }).complete ?? incoming.readableEnded;
  const notify = (): void => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  const take = (bytes: Uint8Array | undefined): void => {
    if (ended || failure) return;
    const read = batches.read(bytes);
    for (const event of read.events) waiting.push(event);
    if (read.failure) failure = read.failure;
    if (batches.over || bytes === undefined) ended = true;
    notify();
  };
  // The stream stays paused: the pieces of body that arrive together wait in its buffer (no
  // event each), and one `readable` hands them over joined, in one read (a stream in object mode
  // gives one piece a read: read until it has none).
  const onReadable = (): void => {
    while (waiting.length < MAX_WAITING_EVENTS && !ended && !failure) {
      const bytes = incoming.read() as Uint8Array | null;
      if (bytes === null) return;
      take(bytes);
    }
  };
  const onEnd = (): void => {
    take(undefined);
  };
  // An abort destroys the body (the fetch or the SDK's handler does): that ends quietly.
  const onError = (err: Error): void => {
    if (!failure && !ended && !signal.aborted) failure = streamCut(err);
    notify();
  };
  const onClose = (): void => {
    // A connection closed before the body's end (no `end`): the read failed.
    if (!ended && !failure && !complete() && !signal.aborted) failure = streamCut(undefined);
    notify();
  };
  if (signal.aborted) {
    incoming.destroy();
    return;
  }
  if (first !== undefined && first.length > 0) take(first);
  // A body handed over already over: ended, or destroyed before its end.
  if (incoming.readableEnded) take(undefined);
  else if (incoming.destroyed && !complete()) failure = streamCut(undefined);
  incoming.on("readable", onReadable);
  incoming.once("end", onEnd);
  incoming.on("error", onError);
  incoming.once("close", onClose);
  signal.addEventListener("abort", notify, { once: true });
  try {
    for (;;) {
      if (waiting.length === 0 && !ended && !failure) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
      if (signal.aborted) return;
      if (waiting.length > 0) {
        const events = waiting;
        waiting = [];
        yield events;
        if (signal.aborted) return;
        // Taken: what waited in the stream's buffer meanwhile (or its end) is read now, and its
        // events go out before a failure that came after them.
        if (!ended && !failure) onReadable();
        continue;
      }
      if (failure) throw failure;
      if (ended) return;
    }
  } finally {
    signal.removeEventListener("abort", notify);
    incoming.off("readable", onReadable);
    incoming.off("end", onEnd);
    incoming.off("error", onError);
    incoming.off("close", onClose);
    // Left before the body's end: the connection is closed. A body that came whole but was not
    // all read is drained instead, so that its connection goes back to the pool.
    if (!complete()) incoming.destroy();
    else if (!incoming.readableEnded) incoming.resume();
  }
}
