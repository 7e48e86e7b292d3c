/**
 * Reading a model's response stream chunk by chunk, shared by the adapters that read a
 * `ReadableStream` themselves (`aiSdkModel`, `geminiModel`).
 */

import { streamCut } from "./provider-errors.js";

/** What `reader.read()` resolves to. */
type ReadResult<T> = Awaited<ReturnType<ReadableStreamDefaultReader<T>["read"]>>;

/**
 * The next chunk of `reader`, or undefined once `signal` is aborted (also when the read failed
 * because of the abort): the caller then ends quietly. A read that fails otherwise (a dropped
 * connection) throws `stream_interrupted`.
 */
export async function readUnlessAborted<T>(
  reader: ReadableStreamDefaultReader<T>,
  signal: AbortSignal,
): Promise<ReadResult<T> | undefined> {
  let chunk: ReadResult<T>;
  try {
    chunk = await reader.read();
  } catch (err) {
    if (signal.aborted) return undefined;
    throw streamCut(err);
  }
  return signal.aborted ? undefined : chunk;
}
