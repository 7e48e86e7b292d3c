/**
 * The one skeleton of the adapters that read an SSE body (Anthropic, OpenAI Chat and Responses,
 * Gemini): a request function and a translator make the client. The request function sends the
 * request (through the vendor's SDK or `fetch`) and owns the failures before the stream; the
 * translator turns one response's frames into neutral events; the body between them is read by
 * `bodyBatches`, one array of events per read.
 */

import type { ModelClient, ModelRequest } from "../agent/model-client.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { bodyBatches } from "./body-batches.js";
import { type FrameTranslator, SseBatchReader } from "./sse-batch-reader.js";

/** The translation of one response's SSE frames. */
export interface SseTranslation {
  /** One frame's events (see {@link FrameTranslator}). */
  frame: FrameTranslator;
  /**
   * Events to add once the body ended normally (a format whose end is implicit). It may throw
   * instead (e.g. `stream_interrupted` for a body that ended before the format's last event).
   */
  finish?: () => Iterable<StreamEvent>;
}

/** What an SSE adapter gives {@link sseModel}. */
export interface SseModelSpec {
  readonly label: string;
  /** `gen_ai.provider.name` (see `ModelClient.provider`). */
  readonly provider: string;
  /**
   * Sends one request: the response whose body streams, or undefined when `signal` was aborted
   * first. A failure before the stream rejects with a typed error (`provider_error`).
   */
  send(request: ModelRequest, signal: AbortSignal): Promise<Response | undefined>;
  /** A new translation, for one response (translators keep state across its frames). */
  translation(): SseTranslation;
  /** The longest SSE event accepted, in characters (see `SseDecoderOptions.maxEventChars`). */
  readonly maxEventChars?: number;
}

/** The ModelClient of an SSE adapter. */
export function sseModel(spec: SseModelSpec): ModelClient {
  const limit = spec.maxEventChars === undefined ? {} : { maxEventChars: spec.maxEventChars };
  return {
    label: spec.label,
    provider: spec.provider,
    stream(request, { signal }) {
      const { frame, finish } = spec.translation();
      const reader = new SseBatchReader(frame, finish ? { ...limit, finish } : limit);
      return bodyBatches(() => spec.send(request, signal), reader, signal);
    },
  };
}
