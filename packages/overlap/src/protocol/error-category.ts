/**
 * What kind of failure of the model service ended a turn, in words a user may read: the category
 * says which without any of the provider's text (which may hold internals), so it is safe to show
 * in a browser, and a host can act on it (ask for a key, wait `retryAfterMs`, shorten the chat).
 */

/**
 * - `authentication`: the credentials were missing or refused (HTTP 401/403).
 * - `rate_limited`: too many requests or tokens for the account (HTTP 429); see `retryAfterMs`.
 * - `overloaded`: the service is over capacity (HTTP 529, 503).
 * - `network`: the service could not be reached, or the connection was cut.
 * - `bad_request`: the service refused the request as written (other 4xx: a model name it does
 *   not know, a parameter it does not take).
 * - `context_too_long`: the conversation (with the tools) is longer than the model takes.
 * - `server`: the service failed on its side (HTTP 5xx).
 */
export type ErrorCategory =
  | "authentication"
  | "rate_limited"
  | "overloaded"
  | "network"
  | "bad_request"
  | "context_too_long"
  | "server";

/** A sentence per category, safe to show a user (no provider text). */
export const ERROR_CATEGORY_SENTENCES: Readonly<Record<ErrorCategory, string>> = {
  authentication: "The model service did not accept the credentials (the API key).",
  rate_limited: "The model service is receiving too many requests; try again shortly.",
  overloaded: "The model service is overloaded right now; try again shortly.",
  network: "The model service could not be reached.",
  bad_request: "The model service refused the request.",
  context_too_long: "The conversation is too long for the model.",
  server: "The model service failed on its side; try again shortly.",
};

/** Categories worth retrying the same request for, after a wait. */
export function isRetryableCategory(category: ErrorCategory | undefined): boolean {
  return (
    category === "rate_limited" ||
    category === "overloaded" ||
    category === "server" ||
    category === "network"
  );
}

/** What is known of a failure: the HTTP status, the provider's error type and its message. */
export interface ErrorFacts {
  status?: number | undefined;
  /** `rate_limit_error`, `RESOURCE_EXHAUSTED`, `ThrottlingException`... */
  type?: string | undefined;
  message?: string | undefined;
  /** The error's name or code (`APIConnectionError`, `ECONNRESET`...). */
  name?: string | undefined;
}

const CONTEXT =
  /context.{0,20}(length|window|limit)|too long|too many tokens|maximum.{0,30}tokens|input.{0,10}(length|too large)|exceeds? the (maximum|limit)/i;
const NETWORK =
  /ECONN|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EPIPE|UND_ERR|socket hang up|fetch failed|network|connection/i;
const AUTH = /api[ _-]?key|authenticat|credential|unauthori[sz]ed|permission/i;

/**
 * The category of a failed model request, from its status, the provider's error type (each
 * provider names them its own way) and, without either, its message and name; undefined when
 * nothing says.
 */
export function errorCategoryOf(facts: ErrorFacts): ErrorCategory | undefined {
  const { status } = facts;
  const type = (facts.type ?? "").toLowerCase();
  const message = facts.message ?? "";
  if (type.includes("context_length") || type.includes("context_window")) return "context_too_long";
  if (
    status === 401 ||
    status === 403 ||
    /authentication|permission|unauthenticated|access_?denied|unrecognizedclient|invalid_api_key/.test(
      type,
    )
  ) {
    return "authentication";
  }
  if (status === 429 || /rate_limit|resource_exhausted|throttl|too_many/.test(type))
    return "rate_limited";
  if (status === 529 || status === 503 || /overloaded|unavailable|serviceunavailable/.test(type)) {
    return "overloaded";
  }
  if (
    status === 413 ||
    (status !== undefined && status >= 400 && status < 500 && CONTEXT.test(message))
  ) {
    return "context_too_long";
  }
  if (status === 408) return "network";
  if (status !== undefined && status >= 400 && status < 500) return "bad_request";
  if (status !== undefined && status >= 500) return "server";
  if (/validation|invalid_request|invalid_argument/.test(type)) {
    return CONTEXT.test(message) ? "context_too_long" : "bad_request";
  }
  if (/internal|server_error/.test(type)) return "server";
  const said = `${facts.name ?? ""} ${message}`;
  if (AUTH.test(said)) return "authentication";
  if (NETWORK.test(said) || /timeout/i.test(facts.name ?? "")) return "network";
  return undefined;
}

/** Response headers as SDKs keep them: a `Headers`, or a plain record. */
export type HeadersLike =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | string[] | undefined>>;

/** The headers an SDK error carries: `headers` (Anthropic, OpenAI), `responseHeaders` (AI SDK), `$response.headers` (AWS). */
export function headersOf(err: unknown): HeadersLike | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const e = err as {
    headers?: unknown;
    responseHeaders?: unknown;
    $response?: { headers?: unknown };
  };
  const found = e.headers ?? e.responseHeaders ?? e.$response?.headers;
  return typeof found === "object" && found !== null ? (found as HeadersLike) : undefined;
}

/**
 * The Retry-After a response asked for, in milliseconds: `retry-after-ms` first, then
 * `retry-after` in seconds or as an HTTP date; undefined when absent or unreadable.
 */
export function retryAfterMsOf(headers: HeadersLike | undefined): number | undefined {
  if (!headers) return undefined;
  const get = (name: string): string | undefined => {
    if (typeof (headers as { get?: unknown }).get === "function") {
      return (headers as { get(name: string): string | null }).get(name) ?? undefined;
    }
    const value = (headers as Record<string, string | string[] | undefined>)[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const ms = Number(get("retry-after-ms") ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const after = get("retry-after")?.trim();
  if (!after) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
