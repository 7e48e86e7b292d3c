/**
 * Turns a failed HTTP answer into an {@link AgentError} to show. The server answers every failure
 * with `{ error: { code, message } }` and its message is already masked (safe to show: no internal details), so
 * it is used as is. Anything else (a proxy's HTML page, an empty body) gets a sentence of ours:
 * a body we do not understand is never shown to the user.
 */

import type { AgentError } from "./agent-state.js";

/** Reads the error of a non-2xx `response`. Never throws. */
export async function errorFromResponse(response: Response): Promise<AgentError> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  const error = isRecord(body) ? body.error : undefined;
  if (isRecord(error) && typeof error.code === "string" && typeof error.message === "string") {
    return isRecord(error.params)
      ? { code: error.code, message: error.message, params: error.params }
      : { code: error.code, message: error.message };
  }
  return { code: `http_${response.status}`, message: fallbackMessage(response.status) };
}

function fallbackMessage(status: number): string {
  if (status === 401 || status === 403)
    return "This session could not be verified. Reload the page.";
  if (status === 429) return "Too many requests right now. Please wait a moment and try again.";
  if (status >= 500) return "The server could not answer. Please try again in a moment.";
  return `The request was refused (HTTP ${status}).`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
