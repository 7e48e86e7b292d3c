/**
 * The OpenAI Responses API side of the server (`POST /v1/responses`). Errors, request ids and
 * status faults are OpenAI's, as for Chat Completions; the request rules, the neutral request and
 * the encoders are the Responses API's own.
 */

import type { Dialect, EncodeInput } from "./dialect.js";
import { openaiDialect } from "./openai-dialect.js";
import { estimateTokens } from "./pacing.js";
import { simRequestFromResponses } from "./responses-sim-request.js";
import {
  encodeResponsesStream,
  RESPONSES_STREAM_ERROR_EVENT,
  type ResponsesWireContext,
  responsesContext,
  responsesResponseBody,
} from "./responses-wire.js";
import { isJsonObject } from "./validate-request.js";
import { validateResponsesRequest } from "./validate-responses-request.js";

function context(input: EncodeInput): ResponsesWireContext {
  return responsesContext(input.script, input.ids, {
    model: input.model,
    createdAt: Math.floor(Date.now() / 1000),
    inputTokens: responsesDialect.inputTokens(input.body),
    body: input.body,
  });
}

/** The Responses API dialect. */
export const responsesDialect: Dialect = {
  ...openaiDialect,
  api: "responses",
  validate: validateResponsesRequest,
  toSimRequest: simRequestFromResponses,
  // A reasoning effort asks for reasoning (a `reasoning` item first), as reasoning models do.
  wantsThinking: (body) =>
    isJsonObject(body.reasoning) &&
    typeof body.reasoning.effort === "string" &&
    body.reasoning.effort !== "none",
  inputTokens: (body) =>
    Math.max(
      1,
      estimateTokens(JSON.stringify([body.instructions ?? "", body.input, body.tools ?? []])),
    ),
  streamFrames: (input) => encodeResponsesStream(input.script, input.items, context(input)),
  streamErrorFrame: RESPONSES_STREAM_ERROR_EVENT,
  responseBody: (input) => responsesResponseBody(input.script, context(input)),
};
