/**
 * Reading a model's response body in batches: each read of the body (what one read held) is
 * decoded, split into messages and translated in one synchronous pass by a {@link ChunkReader},
 * and the read's events are handed over together, so the round awaits once per read instead of
 * once per event. The body is fetch's web-standard `ReadableStream`, which every JavaScript
 * runtime has; a `fetch` that reads its responses its own way (`nodeHttpFetch` of
 * `overlap-runtime/node`, straight from Node's socket) marks each `Response` with the read that
 * replaces it ({@link readBodyWith}), so that choosing that fetch is all it takes.
 */

import type { OverlapError } from "../errors.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { streamCut } from "./provider-errors.js";

/**
 * The synchronous core of a body's read: one chunk of bytes in (`undefined`: the body ended), its
 * events out, and the failure that ends the stream after them (`SseBatchReader` for SSE bodies,
 * `EventStreamBatchReader` for AWS event streams).
 */
export interface ChunkReader {
  read(bytes: Uint8Array | undefined): { events: StreamEvent[]; failure?: OverlapError };
  /** True once the stream is over: its end marker or an error the provider sent. */
  readonly over: boolean;
}

/**
 * A read of a response's body that replaces the read of its web stream: the events of `reader`,
 * one array per read, with the failures, the abort and the early leave of {@link bodyBatches}.
 */
export type BodyRead = (reader: ChunkReader, signal: AbortSignal) => AsyncGenerator<StreamEvent[]>;

const bodyReads = new WeakMap<Response, BodyRead>();

/**
 * Marks `response` as read by `read` instead of its web stream (for a fetch that has a faster
 * read of its own responses). Whoever takes the read must not read the `Response`'s body too.
 */
export function readBodyWith(response: Response, read: BodyRead): void {
  bodyReads.set(response, read);
}

/** What `reader.read()` resolves to. */
type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;

/**
 * The events of the response `open` gives (undefined: the request was aborted, ended quietly) as
 * `reader` reads its body, one array per read of the body (reads that complete no message yield
 * nothing), ending after the stream's end (its end marker, an error the provider sent, or the
 * body's end). A read that fails is `stream_interrupted`, as is a message the reader cannot read;
 * an abort ends quietly; leaving early cancels the body (closes the connection). The web stream is
 * read inside this one generator: one await per read, no delegation between generators.
 */
export async function* bodyBatches(
  open: () => Promise<Response | undefined>,
  reader: ChunkReader,
  signal: AbortSignal,
): AsyncGenerator<StreamEvent[]> {
  const response = await open();
  if (!response) return;
  const read = bodyReads.get(response);
  if (read) {
    yield* read(reader, signal);
    return;
  }
  if (!response.body) throw streamCut(undefined, "was cut: the response has no body");
  const body = response.body.getReader();
  // A fetch that does not end the body on abort (one given by the caller) still stops here.
  const cancel = (): void => {
    body.cancel(signal.reason).catch(() => {});
  };
  signal.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      let chunk: ReadResult;
      try {
        chunk = await body.read();
      } catch (err) {
        if (signal.aborted) return;
        throw streamCut(err);
      }
      if (signal.aborted) return;
      const { events, failure } = reader.read(chunk.done ? undefined : chunk.value);
      if (events.length > 0) yield events;
      if (failure) throw failure;
      if (reader.over || chunk.done) return;
    }
  } finally {
    signal.removeEventListener("abort", cancel);
    body.cancel().catch(() => {});
  }
}
