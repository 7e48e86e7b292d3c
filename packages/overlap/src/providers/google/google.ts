/**
 * The Gemini API (Google AI, `generativelanguage.googleapis.com`) over its documented HTTP
 * streaming API: `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` with the
 * `x-goog-api-key` header, framed by the runtime's own {@link SseDecoder}. Each SSE event is one
 * `GenerateContentResponse`, translated by {@link GeminiChunkTranslator}: a function call arrives
 * whole, so it is complete on arrival and dispatched at once.
 *
 * No SDK: the official `@google/genai` needs Node 22, and this library supports Node 20. The
 * request goes through the global `fetch` (or the fetch given) and its body is read as the other
 * SSE adapters read theirs (`bodyBatches`: through its web stream, or straight from the socket
 * when the fetch is `nodeHttpFetch` of `overlap-runtime/node`).
 *
 * Typed failures, as the other adapters: a non-2xx answer before the stream throws
 * `provider_error` with the API's own message and status (after up to `maxRetries` retries for
 * 408/429/5xx, honouring `retry-after`); an `{"error": …}` event mid-stream becomes a neutral
 * `error` event (never retried); a stream that ends without a finishReason throws
 * `stream_interrupted`; an event longer than `maxEventChars` throws `limit_exceeded` (after the
 * events before it); aborting the signal ends the request and the stream quietly.
 */

import type { ModelClient, ModelRequest } from "../../agent/model-client.js";
import { OverlapError } from "../../errors.js";
import { httpProviderError, providerError, streamCut } from "../provider-errors.js";
import { retryDelayMs, sleepUnlessAborted } from "../retry-before-stream.js";
import type { FrameTranslator } from "../sse-batch-reader.js";
import { sseModel } from "../sse-model.js";
import { type GeminiChunk, GeminiChunkTranslator } from "./gemini-chunk-translator.js";
import {
  type GeminiProviderOptions,
  type GeminiRequestOptions,
  geminiRequestBody,
} from "./gemini-request.js";

/** Options of {@link geminiModel}. */
export interface GeminiModelOptions {
  /** The model, e.g. `gemini-2.5-flash` (a `models/` prefix is accepted). */
  model: string;
  /** The API key; default `GEMINI_API_KEY`, else `GOOGLE_API_KEY` from the environment. */
  apiKey?: string;
  /** The API's origin; default `https://generativelanguage.googleapis.com`. */
  baseUrl?: string;
  /** `generationConfig.maxOutputTokens` unless the request sets a limit. */
  maxTokens?: number;
  /**
   * The provider's own request fields, typed (`generationConfig` with `temperature`,
   * `thinkingConfig`...; `safetySettings`, `cachedContent`); for another set in one round, return
   * another model from `prepareRound`.
   */
  providerOptions?: GeminiProviderOptions;
  /**
   * Extra request fields, untyped (`generationConfig` is merged).
   * @deprecated Use the typed `providerOptions`; `params` stays for fields not named there, and
   * `toolChoice` replaces `params.toolConfig`.
   */
  params?: Record<string, unknown>;
  /**
   * The provider's own tools, sent beside the function declarations of the executor's tools
   * (see {@link GeminiRequestOptions.providerTools}): e.g. `[{ codeExecution: {} }]` or
   * `[{ googleSearch: {} }]`. Their calls and results come back as `server_tool_use` and
   * `gemini_tool_result` blocks (shown, never run here), grounding as citations on the text.
   */
  providerTools?: GeminiRequestOptions["providerTools"];
  /**
   * The fetch to use; default the global `fetch`. `nodeHttpFetch` (`overlap-runtime/node`) reads
   * the response straight from the socket, a fast stream's socket at most every 4 ms.
   */
  fetch?: typeof fetch;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Retries of a request answered 408, 429 or 5xx before its stream started. Default 2. */
  maxRetries?: number;
  /**
   * The most characters one SSE event of the response may take while it is received (counted as
   * `SseDecoderOptions.maxEventChars` counts them); past it the stream throws `limit_exceeded`.
   * Default 8 Mi: without a limit, a peer that never ends a line or an event would grow memory
   * without end.
   */
  maxEventChars?: number;
}

/** The default origin of the Gemini API. */
export const GEMINI_BASE_URL = "https://generativelanguage.googleapis.com";

/**
 * A ModelClient for Gemini (or any server speaking its API, like overlap-sim). Each read of the
 * body has its frames parsed and translated in one synchronous pass and handed over as one array.
 */
export function geminiModel(options: GeminiModelOptions): ModelClient {
  return sseModel({
    label: options.model.replace(/^models\//, ""),
    provider: "gcp.gemini",
    send: (request, signal) => open(request, options, signal),
    translation: () => {
      const translator = new GeminiChunkTranslator();
      return {
        frame: geminiFrame(translator),
        finish: () => {
          if (!translator.finished) throw streamCut(undefined, "ended before a finishReason");
          return translator.end();
        },
      };
    },
    ...(options.maxEventChars === undefined ? {} : { maxEventChars: options.maxEventChars }),
  });
}

/** The streaming endpoint of a model. */
export function geminiStreamUrl(options: Pick<GeminiModelOptions, "model" | "baseUrl">): string {
  const base = (options.baseUrl ?? GEMINI_BASE_URL).replace(/\/+$/, "");
  const model = options.model.replace(/^models\//, "");
  return `${base}/v1beta/models/${encodeURIComponent(model)}:streamGenerateContent?alt=sse`;
}

/**
 * One SSE frame of the stream: a `GenerateContentResponse` for the translator, or an
 * `{"error": …}` the API sent inside the stream (e.g. UNAVAILABLE), which ends it as a neutral
 * `error` event (the round repairs). A frame that is not a JSON object is `stream_protocol`.
 */
function geminiFrame(translator: GeminiChunkTranslator): FrameTranslator {
  return (frame, out) => {
    const data = parseJson(frame.data);
    if (!isObject(data)) {
      throw new OverlapError("stream_protocol", "The model stream sent an event that is not JSON.");
    }
    if (isObject(data.error)) {
      out.push({ type: "error", error: apiError(data.error) });
      return true;
    }
    for (const event of translator.push(data as GeminiChunk)) out.push(event);
    return undefined;
  };
}

/** Sends the request (retrying what may be retried); undefined when aborted. */
async function open(
  request: ModelRequest,
  options: GeminiModelOptions,
  signal: AbortSignal,
): Promise<Response | undefined> {
  // Looked up per request, and called as a plain function (some runtimes refuse another `this`).
  const fetchFn = options.fetch ?? ((input: string, init: RequestInit) => fetch(input, init));
  const env = globalThis.process?.env ?? {};
  const apiKey = options.apiKey ?? env.GEMINI_API_KEY ?? env.GOOGLE_API_KEY;
  const init: RequestInit = {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(apiKey ? { "x-goog-api-key": apiKey } : {}),
      ...options.headers,
    },
    body: JSON.stringify(geminiRequestBody(request, options)),
    signal,
  };
  const url = geminiStreamUrl(options);
  const retries = Math.max(0, options.maxRetries ?? 2);
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetchFn(url, init);
    } catch (err) {
      if (signal.aborted) return undefined;
      throw providerError(err);
    }
    if (response.ok) return response;
    const text = await response.text().catch(() => "");
    if (signal.aborted) return undefined;
    if (attempt < retries && retryable(response.status)) {
      // Only `retry-after`; without it, an exponential backoff.
      const hint = { retryAfter: response.headers.get("retry-after") };
      if (!(await sleepUnlessAborted(retryDelayMs(attempt, hint), signal))) return undefined;
      continue;
    }
    const body = parseJson(text);
    const error = isObject(body) && isObject(body.error) ? apiError(body.error) : undefined;
    const message = error?.message ?? (text.slice(0, 500) || response.statusText);
    throw httpProviderError(response.status, message, error?.type, response.headers);
  }
}

/** `{ code, message, status }` as a neutral error (`status` such as INVALID_ARGUMENT is the type). */
function apiError(error: Record<string, unknown>): { type: string; message: string } {
  return {
    type: typeof error.status === "string" ? error.status : "api_error",
    message: typeof error.message === "string" ? error.message : "The model reported an error.",
  };
}

function retryable(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export {
  GEMINI_GROUNDING,
  GEMINI_GROUNDING_CITATION,
  GEMINI_TOOL_RESULT,
  type GeminiChunk,
  GeminiChunkTranslator,
  type GeminiChunkTranslatorOptions,
  type GeminiFunctionCall,
  type GeminiGroundingBlock,
  type GeminiPart,
  type GeminiToolResultBlock,
} from "./gemini-chunk-translator.js";
export { JsonPathWriter, type PartialArg, PartialArgsOrderError } from "./gemini-partial-args.js";
export {
  type GeminiContent,
  type GeminiGenerationConfig,
  type GeminiProviderOptions,
  type GeminiRequestBody,
  type GeminiRequestOptions,
  type GeminiRequestPart,
  geminiFunctionCallingConfig,
  geminiRequestBody,
  toGeminiContents,
} from "./gemini-request.js";
