/**
 * overlap: start each tool call the moment its arguments are complete, while the model is still
 * generating, with every tool run exactly once, results in call order and a valid conversation.
 *
 * This entry point holds what a host needs to build an agent: defining tools, the executor,
 * `runAgentTurn`, the conversation helpers, the in-memory stores, the errors and the SSE writer,
 * with the types they speak. The building blocks they are made of (the assembler, the
 * dispatcher, the round, the parsers, the SSE decoder...) are in `overlap-runtime/core`.
 *
 * Layers, from the bottom (each imports only the ones below it; `npm run depcheck` holds it so):
 * protocol (the AgentEvent vocabulary and the types every layer and the browser share), json (two
 * parsers that never mix), sse (wire encoding), stream (neutral events and the BlockAssembler),
 * tools (defineTool, ToolExecutor), dispatch (EagerDispatcher), round (StreamedRound), agent (the
 * round loop, repair, validator, stores), then providers, mcp and testing.
 */

export type { ModelMediaPartOut, UIFilePartOut } from "./agent/ai-sdk-media.js";
export {
  fromModelMessages,
  fromUIMessages,
  type ModelMessageOut,
  type ModelMessagePartOut,
  type ToUIMessagesOptions,
  toModelMessages,
  toUIMessages,
  type UIMessageOut,
  type UIMessagePartOut,
} from "./agent/ai-sdk-messages.js";
export {
  assertExpectedLength,
  type ConversationStore,
  type ConversationWriteOptions,
  InMemoryConversationStore,
} from "./agent/conversation-store.js";
export {
  type DelegateAgent,
  type DelegateToolConfig,
  defineDelegateTool,
} from "./agent/define-delegate-tool.js";
export {
  type GeneratedTurn,
  type GenerateTurnOptions,
  generateTurn,
} from "./agent/generate-turn.js";
export type {
  ConvertedConversation,
  MessageInput,
  ModelMessageLike,
  ModelMessagePartLike,
  OpenAIChatContentPartLike,
  OpenAIChatMessageLike,
  OpenAIChatToolCallLike,
  UIMessageLike,
  UIMessagePartLike,
} from "./agent/message-shapes.js";
export type { ModelClient, ModelRequest } from "./agent/model-client.js";
export {
  fromOpenAIChatMessages,
  type OpenAIChatMessageOut,
  type OpenAIChatUserPartOut,
  toOpenAIChatMessages,
} from "./agent/openai-chat-messages.js";
export { appendUserText, repairConversation } from "./agent/repair-conversation.js";
export {
  notRunAfterRestartText,
  type RecordedCall,
  type RestoredRound,
  type RestoreRoundInput,
  type RestoreRoundOptions,
  restoreRound,
  type StoredCall,
} from "./agent/restore-round.js";
export type { RetrySettings } from "./agent/retry-before-output.js";
export {
  type AgentTurnOptions,
  type AgentTurnResult,
  runAgentTurn,
} from "./agent/run-agent-turn.js";
export type { ModelOutputFormat, OutputOf, OutputSchema } from "./agent/structured-output.js";
export type { ToolChoice } from "./agent/tool-choice.js";
export {
  hasToolCall,
  type PrepareRound,
  type RoundPreparation,
  roundCountIs,
  type StopCondition,
  type TurnState,
} from "./agent/turn-control.js";
export {
  assertValidConversation,
  type ConversationViolation,
  type ConversationViolationCode,
  type ValidateConversationOptions,
  validateConversation,
} from "./agent/validate-conversation.js";
export { type DecideResult, InMemoryApprovals } from "./dispatch/in-memory-approvals.js";
export { InMemoryToolLedger, type ToolLedger } from "./dispatch/tool-ledger.js";
export {
  isOverlapError,
  OverlapError,
  type OverlapErrorCode,
  type OverlapErrorOptions,
} from "./errors.js";
export type { ParseToolInputResult, ToolInput } from "./json/parse-tool-input.js";
export type {
  AgentEvent,
  AgentEventBase,
  AgentEventSink,
  AgentEventType,
  DispatchDecision,
  ToolCallState,
} from "./protocol/agent-event.js";
export type {
  ApprovalDecision,
  ApprovalRequest,
  ApprovalResolution,
  ApprovalResolved,
  ApprovalSource,
  EffectChange,
} from "./protocol/approval.js";
export type { CitationLink } from "./protocol/citation-links.js";
export type { ErrorCategory } from "./protocol/error-category.js";
export type { JsonPreview } from "./protocol/json-preview.js";
export type { BlockTiming, RoundTimings, ToolTiming } from "./protocol/round-timings.js";
export type { StopReason } from "./protocol/stop-reason.js";
export type { InputIssue, ToolProblem } from "./protocol/tool-problem.js";
export type { UiEvent } from "./protocol/ui-event.js";
export type { Usage } from "./protocol/usage.js";
export { InMemoryRoundJournal, type RoundJournal } from "./round/round-journal.js";
export { encodeAgentEvent } from "./sse/sse-encoder.js";
export { type SseResponseBodyOptions, sseResponseBody } from "./sse/sse-response-body.js";
export { type LoggedEvent, TurnEventLog } from "./sse/turn-event-log.js";
export type {
  AssistantContentBlock,
  AssistantMessage,
  CallBlock,
  Citation,
  DocumentBlock,
  FileSource,
  GeminiThoughtSignature,
  ImageBlock,
  McpToolUseBlock,
  Message,
  OpenAIItemFields,
  OpenAIReasoningBlock,
  OpenAIToolResultBlock,
  RedactedThinkingBlock,
  ServerToolResultBlock,
  ServerToolResultType,
  ServerToolUseBlock,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolUseBlock,
  UserContentBlock,
  UserMessage,
} from "./stream/message.js";
export { isCallBlock } from "./stream/message.js";
export { type ToolCall, toolCallOf } from "./stream/tool-call.js";
export type { ApprovalNeed, ApprovalPolicy, ApprovalSummary } from "./tools/approval.js";
export {
  type ApprovedEffect,
  canonicalJson,
  EffectChangedError,
  effectChanges,
  effectDigest,
  sameEffect,
} from "./tools/approved-effect.js";
export {
  defineJsonSchemaTool,
  type JsonObject,
  type JsonObjectSchema,
  type JsonSchemaInput,
  type JsonSchemaToolConfig,
} from "./tools/define-json-schema-tool.js";
export {
  type AnyTool,
  type ContextNeed,
  type ContextOfTools,
  type DispatchPolicy,
  defineTool,
  type Tool,
  type ToolConfig,
  type ToolContext,
  type ToolEffects,
  type ToolInputSchema,
  type ToolKind,
  type ToolOutput,
  type ToolOutputOf,
  type ToolResultSpec,
  type ToolReturn,
  type ToolSpec,
  toolSpec,
} from "./tools/define-tool.js";
export type { Logger } from "./tools/logger.js";
export { ToolError } from "./tools/tool-error.js";
export type { AgentEventOf, AgentEventSinkOf } from "./tools/tool-events.js";
export {
  type ExecuteOptions,
  ToolExecutor,
  type ToolExecutorOptions,
  type ToolExecutorOptionsArg,
} from "./tools/tool-executor.js";
export type { ToolOutcome, ToolOutcomeStatus } from "./tools/tool-outcome.js";
