/**
 * The errors a round ends with when its stream does not end well: cancelled, cut before
 * message_stop, failed while read (a client of the host's own throws what it likes: its status
 * and words say which failure), or an error the stream itself reported.
 */

import { OverlapError } from "../errors.js";
import { errorCategoryOf } from "../protocol/error-category.js";

/** The round was cancelled (its signal aborted). */
export function abortedError(): OverlapError {
  return new OverlapError("aborted", "The round was cancelled.");
}

/** The stream ended before message_stop. */
export function streamCut(): OverlapError {
  return new OverlapError("stream_interrupted", "The model stream ended before message_stop.");
}

/** A read of the stream threw something that is not an OverlapError. */
export function streamFailure(err: unknown): OverlapError {
  const status = (err as { status?: unknown } | undefined)?.status;
  return new OverlapError("stream_interrupted", `The model stream failed: ${describe(err)}`, {
    cause: err,
    category: errorCategoryOf({
      status: typeof status === "number" ? status : undefined,
      message: describe(err),
      name: err instanceof Error ? err.name : undefined,
    }),
  });
}

/** An `error` event of the stream. */
export function reportedStreamError(errorType: string, message: string): OverlapError {
  return new OverlapError("stream_error", `The model stream reported ${errorType}: ${message}`, {
    details: { errorType },
    category: errorCategoryOf({ type: errorType, message }),
  });
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
