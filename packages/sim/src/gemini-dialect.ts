/**
 * The Gemini API side of the server: `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`
 * (SSE) and `POST /v1beta/models/{model}:generateContent` (one JSON body). The model and whether
 * to stream are in the URL, not the body, so each request gets its own dialect object
 * ({@link geminiRoute}). Without `alt=sse` the real API streams a JSON array; the sim speaks SSE
 * only and says so with a 400.
 */

import type { ApiRejection } from "./api-rejection.js";
import type { Dialect, EncodeInput } from "./dialect.js";
import { geminiWantsThinking, simRequestFromGemini } from "./gemini-sim-request.js";
import {
  encodeGeminiStream,
  GEMINI_STREAM_ERROR_FRAME,
  type GeminiWireContext,
  geminiErrorBody,
  geminiResponseBody,
} from "./gemini-wire.js";
import { estimateTokens } from "./pacing.js";
import { geminiInvalid, validateGeminiRequest } from "./validate-gemini-request.js";

const ROUTE = /^\/(v1beta|v1)\/models\/([^/:]+):(streamGenerateContent|generateContent)$/;

/** The model name to report: the requested one when it is `scripted-`, else `scripted-sim`. */
function reported(model: string): string {
  return model.startsWith("scripted-") ? model : "scripted-sim";
}

function context(input: EncodeInput, model: string): GeminiWireContext {
  // A response id in the API's style (23 URL-safe characters), from the request's seed.
  const responseId = input.ids.openaiCall().slice(5, 28);
  return {
    responseId,
    model: reported(model),
    promptTokens: promptTokens(input.body),
    thoughtSignature: input.ids.thinkingSignature(),
    multiCallChunk: input.quirks.multiCallChunk === true,
  };
}

function promptTokens(body: Readonly<Record<string, unknown>>): number {
  const system = body.systemInstruction ?? body.system_instruction ?? "";
  return Math.max(1, estimateTokens(JSON.stringify([system, body.contents, body.tools ?? []])));
}

function status(code: number, type: string, message: string): ApiRejection {
  return { status: code, type, message };
}

/** The Gemini dialect of one route (its model and whether it streams). */
function geminiDialect(model: string, stream: boolean, sse: boolean): Dialect {
  const dialect: Dialect = {
    api: "gemini",
    requestIdHeader: "x-sim-request-id",
    requestId: (ids) => ids.openaiRequest(),
    commonHeaders: () => ({}),
    errorBody: geminiErrorBody,
    malformedJson: (r) =>
      geminiInvalid(
        `Invalid JSON payload received. ${r.reason === "Expecting value" ? "Unexpected end of string." : "Unexpected token."}`,
      ),
    notFound: () => status(404, "NOT_FOUND", "Requested entity was not found."),
    statusFault(code): ApiRejection {
      if (code === 429) {
        return {
          ...status(
            429,
            "RESOURCE_EXHAUSTED",
            `You exceeded your current quota, please check your plan and billing details. Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_requests, model: ${reported(model)}. Please retry in 1s.`,
          ),
          headers: { "retry-after": "1" },
        };
      }
      if (code === 529) {
        return status(503, "UNAVAILABLE", "The model is overloaded. Please try again later.");
      }
      return dialect.internalError();
    },
    internalError: () =>
      status(
        500,
        "INTERNAL",
        "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
      ),
    validate: (body) =>
      stream && !sse
        ? geminiInvalid(
            "overlap-sim streams Gemini responses as server-sent events only: add ?alt=sse to the URL.",
          )
        : validateGeminiRequest(body),
    toSimRequest: (body, headers) => simRequestFromGemini(body, headers, { model, stream }),
    wantsThinking: geminiWantsThinking,
    inputTokens: promptTokens,
    streamFrames: (input) => encodeGeminiStream(input.script, input.items, context(input, model)),
    streamErrorFrame: GEMINI_STREAM_ERROR_FRAME,
    responseBody: (input) => geminiResponseBody(input.script, context(input, model)),
  };
  return dialect;
}

/**
 * The dialect for a Gemini route, or undefined when `path` is not one:
 * `/v1beta/models/{model}:streamGenerateContent` (SSE with `alt=sse`) or `:generateContent`.
 */
export function geminiRoute(
  method: string,
  path: string,
  search: URLSearchParams,
): Dialect | undefined {
  const match = method === "POST" ? ROUTE.exec(path) : null;
  if (!match) return undefined;
  const model = decodeURIComponent(match[2]!);
  const stream = match[3] === "streamGenerateContent";
  return geminiDialect(model, stream, search.get("alt") === "sse");
}

/** The dialect answering unknown routes under `/v1beta/` (Google's 404 body). */
export const geminiNotFoundDialect: Dialect = geminiDialect("scripted-sim", false, false);
