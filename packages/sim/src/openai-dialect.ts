/** The Chat Completions side of the server (`POST /v1/chat/completions`). */

import { type ApiRejection, invalidRequest, openaiErrorBody } from "./api-rejection.js";
import type { Dialect, EncodeInput } from "./dialect.js";
import {
  encodeOpenAIStream,
  OPENAI_STREAM_ERROR_FRAME,
  type OpenAIWireContext,
  openaiCompletionBody,
} from "./openai-wire.js";
import { estimateTokens } from "./pacing.js";
import { simRequestFromOpenAI } from "./sim-request.js";
import { validateOpenAIRequest } from "./validate-openai-request.js";
import { isJsonObject } from "./validate-request.js";

const MALFORMED_JSON =
  "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library " +
  "correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble " +
  "figuring out how to fix this, please contact us through our help center at help.openai.com.)";

function context(input: EncodeInput): OpenAIWireContext {
  const options = input.body.stream_options;
  return {
    id: input.ids.openaiCompletion(),
    model: input.model,
    created: Math.floor(Date.now() / 1000),
    systemFingerprint: input.ids.systemFingerprint(),
    promptTokens: openaiDialect.inputTokens(input.body),
    includeUsage: isJsonObject(options) && options.include_usage === true,
    quirks: input.quirks,
  };
}

/** The Chat Completions dialect. */
export const openaiDialect: Dialect = {
  api: "openai",
  requestIdHeader: "x-request-id",
  requestId: (ids) => ids.openaiRequest(),
  commonHeaders: () => ({ "openai-version": "2020-10-01", "openai-processing-ms": "1" }),
  errorBody: (rejection) => openaiErrorBody(rejection),
  malformedJson: () => invalidRequest(MALFORMED_JSON),
  notFound: (method, path) => invalidRequestStatus(404, `Invalid URL (${method} ${path})`),
  statusFault(status, model): ApiRejection {
    if (status === 429) {
      return {
        status,
        type: "requests",
        message:
          `Rate limit reached for ${model} in organization org-scripted on requests per min (RPM): ` +
          "Limit 60, Used 60, Requested 1. Please try again in 1s. " +
          "Visit https://platform.openai.com/account/rate-limits to learn more.",
        code: "rate_limit_exceeded",
        param: null,
        headers: {
          "retry-after": "1",
          "x-ratelimit-limit-requests": "60",
          "x-ratelimit-remaining-requests": "0",
          "x-ratelimit-reset-requests": "1s",
        },
      };
    }
    if (status === 529) {
      return {
        status,
        type: "server_error",
        message: "The engine is currently overloaded, please try again later.",
      };
    }
    return openaiDialect.internalError();
  },
  internalError: () => ({
    status: 500,
    type: "server_error",
    message: "The server had an error while processing your request. Sorry about that!",
  }),
  validate: validateOpenAIRequest,
  toSimRequest: simRequestFromOpenAI,
  wantsThinking: () => false,
  inputTokens: (body) =>
    Math.max(1, estimateTokens(JSON.stringify([body.messages, body.tools ?? []]))),
  streamFrames: (input) => encodeOpenAIStream(input.script, input.items, context(input)),
  streamErrorFrame: OPENAI_STREAM_ERROR_FRAME,
  responseBody: (input) => openaiCompletionBody(input.script, context(input)),
};

function invalidRequestStatus(status: number, message: string): ApiRejection {
  return { ...invalidRequest(message), status };
}
