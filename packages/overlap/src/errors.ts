/**
 * One error base class with a literal code union. Expected failures (bad tool input) are values
 * (`ToolOutcome`), never exceptions; these are the unexpected ones.
 */

/** Every code an {@link OverlapError} can carry. */
export type OverlapErrorCode =
  | "stream_protocol"
  | "stream_error"
  | "stream_interrupted"
  | "aborted"
  | "invalid_conversation"
  | "max_rounds"
  | "provider_error"
  | "storage_error"
  | "conversation_conflict"
  | "invalid_tool_definition"
  /** A documented size limit was passed (an SSE event, a block of a model message). */
  | "limit_exceeded";

/** Messages safe to show a browser, per code (error details are masked toward users). */
const PUBLIC_MESSAGES: Readonly<Record<OverlapErrorCode, string>> = {
  stream_protocol: "The model's response could not be read.",
  stream_error: "The model reported an error while answering.",
  stream_interrupted: "The model's response was interrupted.",
  aborted: "The request was cancelled.",
  invalid_conversation: "The conversation could not be continued.",
  max_rounds: "The assistant stopped after too many steps.",
  provider_error: "The model service is unavailable right now.",
  storage_error: "The conversation could not be saved.",
  conversation_conflict:
    "This conversation was changed at the same time elsewhere. Reload it to continue.",
  invalid_tool_definition: "A tool is misconfigured.",
  limit_exceeded: "The response was larger than allowed.",
};

/** The typed error of overlap. `publicMessage` is what a browser may see. */
export class OverlapError extends Error {
  override readonly name = "OverlapError";
  readonly code: OverlapErrorCode;
  readonly details: unknown;

  constructor(
    code: OverlapErrorCode,
    message: string,
    options?: { cause?: unknown; details?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options?.details;
  }

  /** The masked, user-facing text for this error. */
  get publicMessage(): string {
    return PUBLIC_MESSAGES[this.code];
  }
}

/** True for an {@link OverlapError}, optionally of one code. */
export function isOverlapError(err: unknown, code?: OverlapErrorCode): err is OverlapError {
  return err instanceof OverlapError && (code === undefined || err.code === code);
}
