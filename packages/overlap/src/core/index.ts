/**
 * overlap-runtime/core: what a host needs to build its own adapter or its own loop from the parts
 * `runAgentTurn` is made of, and nothing more. An adapter yields neutral `StreamEvent`s (reading
 * an SSE body with `decodeSseStream`); a loop runs a `StreamedRound` per model round, or builds one
 * from the `BlockAssembler`, the strict and tolerant parsers, the `EagerDispatcher` and the
 * approval gate. Everything a host needs for an ordinary agent is in the package root; the rest of
 * the runtime's insides are not public, so they can change without breaking anyone.
 */

export { OUTPUT_TOOL_NAME, readOutput } from "../agent/structured-output.js";
export {
  type ApprovalGateResult,
  type AwaitApprovalOptions,
  awaitApproval,
  runApproved,
} from "../dispatch/approval-gate.js";
export {
  type DispatchResult,
  EagerDispatcher,
  type EagerDispatcherOptions,
} from "../dispatch/eager-dispatcher.js";
export { type ParseToolInputResult, parseToolInput } from "../json/parse-tool-input.js";
export { PartialJsonParser, parsePartialJson } from "../json/partial-json-parser.js";
export { savedMsOf } from "../protocol/round-timings.js";
export {
  AnswerToolText,
  type OutputThroughToolOptions,
  outputThroughTool,
} from "../providers/output-through-tool.js";
export {
  type RoundResult,
  StreamedRound,
  type StreamedRoundOptions,
} from "../round/streamed-round.js";
export { toolResultMessage } from "../round/tool-result-message.js";
export { decodeSseStream, type SseSource } from "../sse/decode-sse-stream.js";
export type { SseDecoderOptions, SseFrame } from "../sse/sse-decoder.js";
export {
  type AssemblerReport,
  BlockAssembler,
  type BlockAssemblerOptions,
} from "../stream/block-assembler.js";
export {
  type ContentDelta,
  normalizeStopReason,
  type StartedContentBlock,
  type StreamEvent,
} from "../stream/stream-event.js";
export { failedOutcome } from "../tools/tool-outcome.js";
