/**
 * overlap-sim: a scripted model server speaking the Anthropic Messages API and the OpenAI Chat
 * Completions API on the wire, with pacing and fault injection. Not a language model.
 */

export {
  ANTHROPIC_OVERLOADED_EVENT,
  ANTHROPIC_PING,
  type AnthropicWireContext,
  anthropicMessageBody,
  encodeAnthropicStream,
} from "./anthropic-wire.js";
export { type ApiRejection, anthropicErrorBody, openaiErrorBody } from "./api-rejection.js";
export {
  awsEvent,
  awsException,
  type DecodedEventStreamMessage,
  decodeEventStreamMessages,
  encodeEventStreamMessage,
} from "./aws-event-stream.js";
export { bedrockWantsThinking, simRequestFromBedrock } from "./bedrock-sim-request.js";
export {
  BEDROCK_STREAM_ERROR_FRAME,
  type BedrockWireContext,
  bedrockErrorBody,
  bedrockResponseBody,
  bedrockStopReason,
  encodeBedrockStream,
} from "./bedrock-wire.js";
export { addFaultBlocks, parseFaults, requestFaults, type SimFaults } from "./faults.js";
export { geminiWantsThinking, simRequestFromGemini } from "./gemini-sim-request.js";
export {
  encodeGeminiStream,
  GEMINI_STREAM_ERROR_FRAME,
  type GeminiWireContext,
  geminiErrorBody,
  geminiFinishReason,
  geminiResponseBody,
} from "./gemini-wire.js";
export { IdFactory } from "./id-factory.js";
export { midCallFrameCount } from "./mid-call-cut.js";
export {
  encodeOpenAIStream,
  finishReason,
  OPENAI_STREAM_ERROR_FRAME,
  type OpenAIWireContext,
  openaiCompletionBody,
} from "./openai-wire.js";
export {
  defaultPacing,
  estimateTokens,
  type PaceBlock,
  type PacedItem,
  type Pacing,
  paceBlocks,
  requestPacing,
  resolvePacing,
} from "./pacing.js";
export {
  answerOf,
  type CallDirective,
  genericPolicy,
  parseCallDirectives,
  type SimPolicy,
} from "./policy.js";
export { providerToolsOffered } from "./provider-tools-offered.js";
export { parseQuirks, requestQuirks, type SimQuirks } from "./quirks.js";
export { requestControls, type SimRequestControls } from "./request-controls.js";
export {
  argumentText,
  outputTokens,
  type ResolvedBlock,
  type ResolvedScript,
  type ResolveOptions,
  resolveScript,
} from "./resolve-script.js";
export { simRequestFromResponses } from "./responses-sim-request.js";
export {
  encodeResponsesStream,
  RESPONSES_STREAM_ERROR_EVENT,
  type ResponsesWireContext,
  responsesContext,
  responsesResponseBody,
  sealedItemId,
  sealReasoning,
} from "./responses-wire.js";
export { schemaExample } from "./schema-example.js";
export type {
  SimBlock,
  SimCitation,
  SimCodeExecutionBlock,
  SimCodeExecutionResultBlock,
  SimScript,
  SimServerToolUseBlock,
  SimStopReason,
  SimTextBlock,
  SimThinkingBlock,
  SimToolUseBlock,
  SimWebSearchResult,
  SimWebSearchToolResultBlock,
} from "./script.js";
export { mixSeed, SeededRandom } from "./seeded-random.js";
export {
  type SimProviderTool,
  type SimRequest,
  type SimRequestBlock,
  type SimRequestMessage,
  type SimRequestOtherBlock,
  type SimRequestText,
  type SimRequestTool,
  type SimRequestToolResult,
  type SimRequestToolUse,
  type SimToolChoice,
  simRequestFromAnthropic,
  simRequestFromOpenAI,
} from "./sim-request.js";
export { type SimServer, type SimServerOptions, startSim } from "./sim-server.js";
export { SimSpecError } from "./sim-spec-error.js";
export { validateAnthropicRequest } from "./validate-anthropic-request.js";
export { validateBedrockRequest } from "./validate-bedrock-request.js";
export { validateGeminiRequest } from "./validate-gemini-request.js";
export { validateOpenAIRequest } from "./validate-openai-request.js";
export { validateResponsesRequest } from "./validate-responses-request.js";
export type { WireFrame } from "./wire-frame.js";
