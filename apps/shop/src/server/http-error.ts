/**
 * Expected HTTP failures as one typed error: handlers throw it, the app's error handler turns it
 * into `{ error: { code, message } }`. Its message is meant for the caller as is, so it must never
 * carry internals; anything else that is thrown becomes a generic 500.
 */

/** Codes of the error bodies the API answers with. */
export type HttpErrorCode =
  | "invalid_json"
  | "invalid_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "payload_too_large"
  | "unsupported_media_type"
  | "turn_running"
  | "shutting_down"
  | "too_many_streams"
  | "client_aborted"
  | "request_timeout"
  | "server_busy"
  | "internal";

/** An error answer with a status, a code and a message safe to show. */
export class HttpError extends Error {
  override readonly name = "HttpError";
  readonly status: 400 | 401 | 403 | 404 | 408 | 409 | 413 | 415 | 429 | 500 | 503;
  readonly code: string;

  constructor(status: HttpError["status"], code: HttpErrorCode | (string & {}), message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The JSON body of every error answer. */
export interface ErrorBody {
  error: { code: string; message: string };
}

/** Builds an {@link ErrorBody}. */
export function errorBody(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}
