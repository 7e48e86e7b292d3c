/** The Messages API side of the server (`POST /v1/messages`). */

import {
  ANTHROPIC_OVERLOADED_EVENT,
  anthropicMessageBody,
  encodeAnthropicStream,
} from "./anthropic-wire.js";
import { type ApiRejection, anthropicErrorBody, invalidRequest } from "./api-rejection.js";
import type { Dialect, EncodeInput } from "./dialect.js";
import { estimateTokens } from "./pacing.js";
import { simRequestFromAnthropic } from "./sim-request.js";
import { bufferToolInput, eagerInputTools } from "./tool-input-buffering.js";
import { validateAnthropicRequest } from "./validate-anthropic-request.js";
import { isJsonObject } from "./validate-request.js";

const RATE_LIMIT_MESSAGE =
  "Number of request tokens has exceeded your per-minute rate limit (https://docs.claude.com/en/api/rate-limits); " +
  "see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, " +
  "or try again later.";

function context(input: EncodeInput) {
  return {
    messageId: input.ids.anthropicMessage(),
    model: input.model,
    inputTokens: anthropicDialect.inputTokens(input.body),
  };
}

/** The Messages API dialect. */
export const anthropicDialect: Dialect = {
  api: "anthropic",
  requestIdHeader: "request-id",
  requestId: (ids) => ids.anthropicRequest(),
  commonHeaders: () => ({}),
  errorBody: anthropicErrorBody,
  malformedJson: (r) =>
    invalidRequest(
      `The request body is not valid JSON: ${r.reason}: line ${r.line} column ${r.column} (char ${r.char})`,
    ),
  notFound: () => ({ status: 404, type: "not_found_error", message: "Not Found" }),
  statusFault(status): ApiRejection {
    const retry = { "x-should-retry": "true" };
    if (status === 429) {
      return {
        status,
        type: "rate_limit_error",
        message: RATE_LIMIT_MESSAGE,
        headers: { ...retry, "retry-after": "1" },
      };
    }
    if (status === 529)
      return { status, type: "overloaded_error", message: "Overloaded", headers: retry };
    return { status, type: "api_error", message: "Internal server error", headers: retry };
  },
  internalError: () => ({ status: 500, type: "api_error", message: "Internal server error" }),
  validate: validateAnthropicRequest,
  toSimRequest: simRequestFromAnthropic,
  wantsThinking: (body) =>
    isJsonObject(body.thinking) &&
    (body.thinking.type === "enabled" || body.thinking.type === "adaptive"),
  inputTokens: (body) =>
    Math.max(
      1,
      estimateTokens(JSON.stringify([body.system ?? "", body.messages, body.tools ?? []])),
    ),
  // Tools without eager_input_streaming get their input buffered, as the API does.
  streamFrames: (input) =>
    encodeAnthropicStream(
      input.script,
      bufferToolInput(input.script, input.items, eagerInputTools(input.body, input.headers)),
      context(input),
    ),
  streamErrorFrame: ANTHROPIC_OVERLOADED_EVENT,
  responseBody: (input) => anthropicMessageBody(input.script, context(input)),
};
