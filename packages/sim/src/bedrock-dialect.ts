/**
 * Amazon Bedrock's Converse side of the server: `POST /model/{modelId}/converse-stream` (the
 * binary event stream, `application/vnd.amazon.eventstream`) and `POST /model/{modelId}/converse`
 * (one JSON body). The model id is in the URL (URL-encoded: `anthropic.claude…%3A0`), so each
 * request gets its own dialect object ({@link bedrockRoute}). Requests are not signed-checked:
 * any SigV4 credentials (or none) are accepted.
 *
 * Errors before the stream are the service's: the status, `x-amzn-ErrorType: <Exception>:…` and
 * `{ "message": … }`, which the AWS SDK raises as its exception classes (ValidationException,
 * ThrottlingException…).
 */

import type { ApiRejection } from "./api-rejection.js";
import { bedrockWantsThinking, simRequestFromBedrock } from "./bedrock-sim-request.js";
import {
  BEDROCK_STREAM_ERROR_FRAME,
  type BedrockWireContext,
  bedrockErrorBody,
  bedrockRejection,
  bedrockResponseBody,
  encodeBedrockStream,
} from "./bedrock-wire.js";
import type { Dialect, EncodeInput } from "./dialect.js";
import type { IdFactory } from "./id-factory.js";
import { estimateTokens } from "./pacing.js";
import { validateBedrockRequest } from "./validate-bedrock-request.js";

const ROUTE = /^\/model\/([^/]+)\/(converse-stream|converse)$/;

function promptTokens(body: Readonly<Record<string, unknown>>): number {
  return Math.max(
    1,
    estimateTokens(JSON.stringify([body.system ?? [], body.messages, body.toolConfig ?? {}])),
  );
}

function context(input: EncodeInput): BedrockWireContext {
  return { promptTokens: promptTokens(input.body) };
}

/** A request id as AWS writes it (a UUID), from the request's seed. */
function requestId(ids: IdFactory): string {
  const hex = ids.openaiRequest().slice(4);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The Bedrock dialect of one route (its model id and whether it streams). */
function bedrockDialect(model: string, stream: boolean): Dialect {
  const dialect: Dialect = {
    api: "bedrock",
    requestIdHeader: "x-amzn-RequestId",
    requestId,
    commonHeaders: () => ({}),
    errorBody: bedrockErrorBody,
    malformedJson: () =>
      bedrockRejection(
        400,
        "ValidationException",
        "Malformed input request, please reformat your input and try again.",
      ),
    notFound: () =>
      bedrockRejection(
        404,
        "UnknownOperationException",
        "The requested operation is not recognized by the service.",
      ),
    statusFault(code): ApiRejection {
      if (code === 429) {
        return bedrockRejection(
          429,
          "ThrottlingException",
          "Too many requests, please wait before trying again.",
        );
      }
      if (code === 529) {
        return bedrockRejection(
          503,
          "ServiceUnavailableException",
          "Bedrock is unable to process your request.",
        );
      }
      return dialect.internalError();
    },
    internalError: () =>
      bedrockRejection(
        500,
        "InternalServerException",
        "The system encountered an unexpected error during processing. Try your request again.",
      ),
    validate: (body) => {
      const rejection = validateBedrockRequest(body);
      return rejection && bedrockRejection(rejection.status, rejection.type, rejection.message);
    },
    toSimRequest: (body, headers) => simRequestFromBedrock(body, headers, { model, stream }),
    wantsThinking: bedrockWantsThinking,
    inputTokens: promptTokens,
    streamFrames: (input) => encodeBedrockStream(input.script, input.items, context(input)),
    streamErrorFrame: BEDROCK_STREAM_ERROR_FRAME,
    streamContentType: "application/vnd.amazon.eventstream",
    responseBody: (input) =>
      bedrockResponseBody(input.script, context(input), input.items.at(-1)?.atMs ?? 0),
  };
  return dialect;
}

/**
 * The dialect for a Bedrock route, or undefined when `path` is not one:
 * `POST /model/{modelId}/converse-stream` or `/converse`.
 */
export function bedrockRoute(method: string, path: string): Dialect | undefined {
  const match = method === "POST" ? ROUTE.exec(path) : null;
  if (!match) return undefined;
  let model: string;
  try {
    model = decodeURIComponent(match[1]!);
  } catch {
    model = match[1]!;
  }
  return bedrockDialect(model, match[2] === "converse-stream");
}

/** The dialect answering unknown routes under `/model/` (the service's 404). */
export const bedrockNotFoundDialect: Dialect = bedrockDialect("scripted-sim", false);
