/**
 * `overlap-runtime/ai-sdk`: the Vercel AI SDK on both sides of overlap.
 *
 * - Models: {@link aiSdkModel} makes any AI SDK provider model (`LanguageModelV3`, e.g.
 *   `createAnthropic(...)("claude-…")`, `createOpenAI(...).chat("gpt-…")`) a `ModelClient`, its
 *   `doStream` parts translated by {@link AiSdkStreamTranslator}; the request is built by
 *   {@link toLanguageModelV3Prompt} and {@link toLanguageModelV3Tools}. The specification's types
 *   are declared in language-model-v3.ts, so neither running nor type-checking this entry point
 *   needs `@ai-sdk/provider`.
 * - Front ends: {@link toUIMessageStream} / {@link uiMessageStreamResponse} write a turn's
 *   AgentEvents as the AI SDK's UI message stream, so `useChat` talks to an overlap server
 *   unchanged. No AI SDK package is needed at run time. {@link agentUIStreamResponse} is a whole
 *   `useChat` route: the request's UI messages in, the request's abort wired to the turn, the
 *   conversation handed to `onFinish` to store.
 */

export {
  type AgentEventChannel,
  agentEventChannel,
  encodeUiMessageChunk,
  openJson,
  type ToolResultAgentEvent,
  type ToUiMessageStreamOptions,
  toUIMessageStream,
  UI_MESSAGE_STREAM_HEADERS,
  type UiFinishReason,
  type UiMessageChunk,
  type UiMessageStreamResponseInit,
  uiFinishReason,
  uiMessageChunks,
  uiMessageStreamResponse,
} from "../../sse/ui-message-stream.js";
export {
  type AgentUIStreamFinish,
  type AgentUIStreamResponseOptions,
  agentUIStreamResponse,
  type UIChatRequestBody,
} from "./agent-ui-stream-response.js";
export {
  type AiSdkCallOptions,
  type AiSdkModelOptions,
  aiSdkCallOptions,
  aiSdkModel,
  reasoningKeyOf,
} from "./ai-sdk-model.js";
export {
  type AiSdkPromptOptions,
  toLanguageModelV3Prompt,
  toLanguageModelV3Tools,
} from "./ai-sdk-prompt.js";
export {
  AI_SDK_METADATA_FIELD,
  AI_SDK_TOOL_RESULT,
  AiSdkStreamTranslator,
  type AiSdkStreamTranslatorOptions,
  type AiSdkToolResultBlock,
} from "./ai-sdk-stream-translator.js";
