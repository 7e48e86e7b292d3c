/**
 * What differs between the two APIs the server speaks, so the request pipeline in `sim-server.ts`
 * is written once: validation, the neutral request, ids, error bodies and the encoders.
 */

import type { ApiRejection } from "./api-rejection.js";
import type { IdFactory } from "./id-factory.js";
import type { PacedItem } from "./pacing.js";
import type { SimQuirks } from "./quirks.js";
import type { ResolvedScript } from "./resolve-script.js";
import type { SimRequest } from "./sim-request.js";
import type { JsonBodyResult } from "./validate-request.js";
import type { WireFrame } from "./wire-frame.js";

/** Everything an encoder needs for one response. */
export interface EncodeInput {
  script: ResolvedScript;
  items: readonly PacedItem[];
  /** The validated request body. */
  body: Readonly<Record<string, unknown>>;
  /** The request's headers, lower-cased, without credentials (`anthropic-beta`...). */
  headers: Readonly<Record<string, string>>;
  ids: IdFactory;
  /** The `scripted-` model name to report. */
  model: string;
  quirks: SimQuirks;
}

/** One API's side of the server. */
export interface Dialect {
  readonly api: "anthropic" | "openai" | "gemini" | "responses" | "bedrock";
  /** The header carrying the request id (`request-id` / `x-request-id`). */
  readonly requestIdHeader: string;
  /** A request id in the API's style. */
  requestId(ids: IdFactory): string;
  /** Headers the API adds to every answer. */
  commonHeaders(): Record<string, string>;
  /** The error body in the API's shape. */
  errorBody(rejection: ApiRejection, requestId: string): unknown;
  /** The answer to an unparsable body. */
  malformedJson(result: Extract<JsonBodyResult, { ok: false }>): ApiRejection;
  /** The answer to an unknown route. */
  notFound(method: string, path: string): ApiRejection;
  /** The answer of the `status=…` fault. */
  statusFault(status: 429 | 529 | 500, model: string): ApiRejection;
  /** The answer to a request the policy failed on. */
  internalError(): ApiRejection;
  /** The API's request rules. */
  validate(body: unknown): ApiRejection | undefined;
  /** The neutral view of a validated body. */
  toSimRequest(
    body: Readonly<Record<string, unknown>>,
    headers: Readonly<Record<string, string>>,
  ): SimRequest;
  /** The request's own wish for a thinking block (Anthropic `thinking`). */
  wantsThinking(body: Readonly<Record<string, unknown>>): boolean;
  /** The prompt size estimate reported in usage. */
  inputTokens(body: Readonly<Record<string, unknown>>): number;
  /** The streamed frames. */
  streamFrames(input: EncodeInput): WireFrame[];
  /** The frame written by the `error-after` fault. */
  readonly streamErrorFrame: string | Uint8Array;
  /** The streamed answer's content type; default `text/event-stream; charset=utf-8` (SSE). */
  readonly streamContentType?: string;
  /** The non-streaming body. */
  responseBody(input: EncodeInput): unknown;
}
