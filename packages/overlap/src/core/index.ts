/**
 * overlap-runtime/core: the building blocks `runAgentTurn` is made of, for hosts that assemble
 * their own loop or their own adapter: the strict and tolerant JSON parsers, the BlockAssembler
 * (a pure state machine over neutral stream events), the EagerDispatcher, one StreamedRound, the
 * approval gate, the SSE decoder and encoder pieces, and the constants the runtime answers with.
 * Everything a host needs for an ordinary agent is in the package root.
 */

export { MISSING_RESULT_TEXT } from "../agent/repair-conversation.js";
export { NOT_RUN_AFTER_RESTART } from "../agent/restore-round.js";
export {
  APPROVAL_DECLINED_TEXT,
  APPROVAL_TIMEOUT_TEXT,
  type ApprovalGateResult,
  type AwaitApprovalOptions,
  awaitApproval,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  MAX_APPROVAL_ASKS,
  runApproved,
} from "../dispatch/approval-gate.js";
export {
  CancelledError,
  type DispatchResult,
  EagerDispatcher,
  type EagerDispatcherOptions,
} from "../dispatch/eager-dispatcher.js";
export { type ParseToolInputResult, parseToolInput } from "../json/parse-tool-input.js";
export { PartialJsonParser, parsePartialJson } from "../json/partial-json-parser.js";
export { savedMsOf } from "../protocol/round-timings.js";
export { PreviewCoalescer } from "../round/preview-coalescer.js";
export {
  type RoundResult,
  StreamedRound,
  type StreamedRoundOptions,
  toolResultMessage,
} from "../round/streamed-round.js";
export { decodeSseStream, type SseSource } from "../sse/decode-sse-stream.js";
export {
  DEFAULT_MAX_SSE_EVENT_CHARS,
  SseDecoder,
  type SseDecoderOptions,
  type SseFrame,
} from "../sse/sse-decoder.js";
export { encodeSseComment, encodeSseFrame, type SseFrameInit } from "../sse/sse-encoder.js";
export { SseEventBound } from "../sse/sse-event-bound.js";
export {
  type AssemblerReport,
  BlockAssembler,
  type BlockAssemblerOptions,
  DEFAULT_MAX_BLOCK_CHARS,
  isServerToolResult,
} from "../stream/block-assembler.js";
export { isProviderCallBlock, SERVER_TOOL_RESULT_TYPES } from "../stream/message.js";
export {
  type ContentDelta,
  normalizeStopReason,
  type StartedContentBlock,
  type StreamEvent,
} from "../stream/stream-event.js";
export { defaultApprovalSummary } from "../tools/approval.js";
export { failedOutcome } from "../tools/tool-outcome.js";
