import { ERROR_CATEGORY_SENTENCES, type ErrorCategory } from "./protocol/error-category.js";

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
  /** A callback of the host (such as `prepareRound`) threw. */
  | "callback_error"
  /** A documented size limit was passed (an SSE event, a block of a model message). */
  | "limit_exceeded"
  /** `toolChoice` forces a tool the round does not offer (or requires a tool where none is). */
  | "invalid_tool_choice"
  /** The model's final answer is not JSON of the turn's output schema (`details.text` holds it). */
  | "output_invalid";

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
  callback_error: "The assistant could not continue.",
  limit_exceeded: "The response was larger than allowed.",
  invalid_tool_choice: "The assistant is misconfigured.",
  output_invalid: "The model's answer did not have the expected form.",
};

/** Options of an {@link OverlapError}. */
export interface OverlapErrorOptions {
  cause?: unknown;
  details?: unknown;
  /** What kind of failure of the model service it is, when it is one. */
  category?: ErrorCategory | undefined;
  /** How long the service asked to wait before a retry (its Retry-After), in milliseconds. */
  retryAfterMs?: number | undefined;
}

/**
 * The typed error of overlap. `publicMessage` is what a browser may see: the masked text of its
 * code, or of its `category` (which says which failure without the provider's own words).
 */
export class OverlapError extends Error {
  override readonly name = "OverlapError";
  readonly code: OverlapErrorCode;
  readonly details: unknown;
  /** What kind of failure of the model service it is (absent for other errors). Safe to show. */
  readonly category: ErrorCategory | undefined;
  /** The service's Retry-After, in milliseconds, when it sent one. */
  readonly retryAfterMs: number | undefined;

  constructor(code: OverlapErrorCode, message: string, options?: OverlapErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options?.details;
    this.category = options?.category;
    this.retryAfterMs = options?.retryAfterMs;
  }

  /** The masked, user-facing text for this error. */
  get publicMessage(): string {
    const category = this.category;
    if (category === undefined) return PUBLIC_MESSAGES[this.code];
    const wait = this.retryAfterMs;
    return category === "rate_limited" && wait !== undefined && wait > 0
      ? `The model service is receiving too many requests; try again in ${Math.ceil(wait / 1000)} s.`
      : ERROR_CATEGORY_SENTENCES[category];
  }
}

/** True for an {@link OverlapError}, optionally of one code. */
export function isOverlapError(err: unknown, code?: OverlapErrorCode): err is OverlapError {
  return err instanceof OverlapError && (code === undefined || err.code === code);
}
