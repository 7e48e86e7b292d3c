/**
 * Requests to the shop's API. Every failure becomes an {@link ApiError} whose message is safe to
 * show: the server's own (already masked, `{ error: { code, message } }`) or one of ours; the text
 * of a body we do not understand never reaches the screen (see `errorFromResponse`).
 */

import { errorFromResponse, NETWORK_ERROR } from "overlap-runtime/client";

/** A failed request, with a message meant for people. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  /** The HTTP status; 0 when the server could not be reached. */
  readonly status: number;
  readonly code: string;
  /** The facts behind the code, when the server sent them (a refused cart change's limits). */
  readonly params: Readonly<Record<string, unknown>> | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    params?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.params = params;
  }
}

/** Options of one request. */
export interface RequestOptions {
  method?: "GET" | "POST" | "PATCH" | "DELETE";
  /** A session's (or the merchant's) bearer token. */
  token?: string | undefined;
  /** Sent as a JSON body. */
  json?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
}

/** Sends a request and returns the raw response; rejects only when the network fails. */
export function request(path: string, options: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { accept: "application/json", ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.json);
  }
  return fetch(path, {
    method: options.method ?? "GET",
    headers,
    ...(body === undefined ? {} : { body }),
    ...(options.signal ? { signal: options.signal } : {}),
    cache: "no-store",
  });
}

/**
 * Sends a request and reads its JSON answer with `read` (which returns `undefined` for a shape it
 * does not accept).
 * @throws ApiError for a network failure, an error status or an unexpected answer.
 */
export async function requestJson<T>(
  path: string,
  read: (value: unknown) => T | undefined,
  options: RequestOptions = {},
): Promise<T> {
  let response: Response;
  try {
    response = await request(path, options);
  } catch (err) {
    if (options.signal?.aborted) throw err;
    throw new ApiError(0, NETWORK_ERROR.code, NETWORK_ERROR.message);
  }
  if (!response.ok) {
    const error = await errorFromResponse(response);
    throw new ApiError(response.status, error.code, error.message, error.params);
  }
  let value: unknown;
  try {
    value = await response.json();
  } catch {
    value = undefined;
  }
  const result = read(value);
  if (result === undefined) {
    throw new ApiError(
      response.status,
      "unexpected_answer",
      "The server sent an answer this page does not understand. Reload the page.",
    );
  }
  return result;
}

/** The message of any error, for people: an {@link ApiError}'s own, else a generic sentence. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return "Something went wrong. Please try again.";
}
