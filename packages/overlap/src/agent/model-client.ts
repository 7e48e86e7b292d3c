/**
 * The model as the round loop sees it: a request in, neutral stream events out, one array per
 * read of the response. Provider adapters and test fakes implement it.
 */

import type { Message } from "../stream/message.js";
import type { StreamEvent } from "../stream/stream-event.js";
import type { ToolSpec } from "../tools/define-tool.js";
import type { ModelOutputFormat } from "./structured-output.js";
import type { ToolChoice } from "./tool-choice.js";

/** One request to the model. */
export interface ModelRequest {
  system?: string;
  messages: readonly Message[];
  tools: readonly ToolSpec[];
  maxTokens?: number;
  /** Which tool use is asked for (absent: the provider's default, `auto`). */
  toolChoice?: ToolChoice;
  /**
   * The answer must be a JSON object of this schema: asked through the provider's JSON schema
   * mode, or through a forced answer tool whose input is streamed as the answer's text. Absent:
   * free text.
   */
  output?: ModelOutputFormat;
}

/** A streaming model. */
export interface ModelClient {
  /** A short honest label for UIs and logs (e.g. "claude-sonnet-4-5", "scripted-shop"). */
  readonly label?: string;
  /**
   * The provider, as OpenTelemetry's `gen_ai.provider.name` names it (`anthropic`, `openai`,
   * `gcp.gemini`, `aws.bedrock`...), for traces; absent when unknown.
   */
  readonly provider?: string;
  /**
   * Streams one response, its events in arrays: one array per read of the response's body (what
   * one read held), so the round awaits once per read, not once per event. Errors before the
   * stream (HTTP 4xx/5xx) are thrown from the first `next()`; aborting `signal` must end the
   * request. An array may be empty; an event source with no reads of its own (a test script)
   * yields one array per event.
   */
  stream(
    request: ModelRequest,
    options: { signal: AbortSignal },
  ): AsyncIterable<readonly StreamEvent[]>;
}
