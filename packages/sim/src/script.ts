/**
 * What a policy answers: a script of content blocks. The server resolves it (ids, argument text,
 * faults), paces it and encodes it in the wire format of the API that was called.
 */

/** Why the response stops; the Messages API's values (mapped to `finish_reason` for OpenAI). */
export type SimStopReason =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "stop_sequence"
  | "pause_turn"
  | "refusal";

/** Visible text. */
export interface SimTextBlock {
  type: "text";
  text: string;
  /**
   * Sources the text cites, over the whole text, in each format's own shape: Messages API
   * `web_search_result_location` citations (`citations_delta` before the text), Responses
   * `url_citation` annotations, Chat Completions `url_citation` annotations (a delta after the
   * text), Gemini grounding supports in the last chunk's `groundingMetadata`, Bedrock `citation`
   * deltas with a web location.
   */
  citations?: SimCitation[];
}

/** A web page a text cites. */
export interface SimCitation {
  url: string;
  title: string;
  /** The passage of the page the text rests on (Messages API `cited_text`, Bedrock `sourceContent`); default none. */
  citedText?: string;
}

/**
 * Extended thinking (Messages API only; omitted on Chat Completions, which has no equivalent).
 * The signature is generated when absent.
 */
export interface SimThinkingBlock {
  type: "thinking";
  thinking: string;
  signature?: string;
}

/** A call of one of the client's tools. */
export interface SimToolUseBlock {
  type: "tool_use";
  /** Generated from the seed when absent, in the called API's style (`toolu_01…` / `call_…`). */
  id?: string;
  name: string;
  /**
   * The arguments. An object is serialised the way each API does; a string is sent as the raw
   * argument text, exactly as given, so it can be invalid JSON on purpose.
   */
  input: Record<string, unknown> | string;
}

/**
 * A provider-side web search call: a `server_tool_use` block in the Messages API, a
 * `web_search_call` item in the Responses API, the `webSearchQueries` of Gemini's grounding
 * metadata (Google Search grounding streams no call of its own); Bedrock (Nova's web grounding)
 * and Chat Completions (the search models) show no call either: only the text's citations. In
 * every format the search takes the server-side delay before what follows it.
 */
export interface SimServerToolUseBlock {
  type: "server_tool_use";
  id?: string;
  name: "web_search";
  input: { query: string };
}

/** One hit of a web search. */
export interface SimWebSearchResult {
  title: string;
  url: string;
  /** e.g. "April 1, 2025"; null when unknown. */
  pageAge?: string | null;
}

/**
 * The results of a web search, sent whole after the server-side delay: a
 * `web_search_tool_result` block in the Messages API (one start and one stop); the `sources` of
 * the Responses API's `web_search_call` action when the request includes
 * `web_search_call.action.sources` (the call is the whole search there); Gemini's
 * `groundingChunks`; nothing of their own in Bedrock and Chat Completions.
 */
export interface SimWebSearchToolResultBlock {
  type: "web_search_tool_result";
  /** The server_tool_use it answers; defaults to the closest one before it. */
  toolUseId?: string;
  results: SimWebSearchResult[];
}

/**
 * Provider-side code execution (Gemini API and Bedrock only; left out elsewhere): Gemini sends an
 * `executableCode` part, Bedrock a `toolUse` of `type: "server_tool_use"` named
 * `nova_code_interpreter` with the input `{ snippet }`.
 */
export interface SimCodeExecutionBlock {
  type: "code_execution";
  /** Generated when absent (Gemini: 8 characters; Bedrock: `tooluse_…`). */
  id?: string;
  code: string;
}

/**
 * The outcome of that code (Gemini API and Bedrock only), sent whole after the server-side
 * delay: Gemini's `codeExecutionResult` part (`OUTCOME_OK` / `OUTCOME_FAILED`), Bedrock's
 * streamed `toolResult` (`nova_code_interpreter_result`, `{ stdOut, stdErr, exitCode, isError }`).
 */
export interface SimCodeExecutionResultBlock {
  type: "code_execution_result";
  /** The code_execution it answers; defaults to the closest one before it. */
  toolUseId?: string;
  output: string;
  /** The code failed (exit code 1). */
  failed?: boolean;
}

/** One block of a script. */
export type SimBlock =
  | SimTextBlock
  | SimThinkingBlock
  | SimToolUseBlock
  | SimServerToolUseBlock
  | SimWebSearchToolResultBlock
  | SimCodeExecutionBlock
  | SimCodeExecutionResultBlock;

/** The policy's answer to one request. */
export interface SimScript {
  blocks: SimBlock[];
  /** Defaults to `tool_use` when the script calls a tool, `end_turn` otherwise. */
  stopReason?: SimStopReason;
}
