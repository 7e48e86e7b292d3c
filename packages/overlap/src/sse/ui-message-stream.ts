/**
 * The AgentEvent stream as the Vercel AI SDK's UI message stream (protocol v1 of AI SDK 5 and 6,
 * header `x-vercel-ai-ui-message-stream: v1`), so a `useChat` front end can talk to an overlap
 * server unchanged. Needs no AI SDK package at run time: the chunk types are written out here
 * (checked against `ai`'s `UIMessageChunk` in the tests) and the SSE framing is the one of
 * `createUIMessageStreamResponse` (`data: <json>\n\n` frames, then `data: [DONE]\n\n`).
 *
 * The mapping (docs/protocol.md, "The AI SDK UI message stream"):
 * - the turn is one assistant message: `start` first; each round a step (`round-start` →
 *   `start-step`, `round-end` → `finish-step`); the top-level `done` → `finish` with the stop
 *   reason as a finish reason, and the stream ends; an `error` event → `error` (its masked
 *   message as `errorText`).
 * - `text-delta` / `thinking-delta` → `text-*` / `reasoning-*` parts, one per block (ids
 *   `text-<round>-<index>`); a part ends when a block of another index begins, or the round ends.
 * - moment 1 (`tool-call-start`) → `tool-input-start`; previews → `tool-input-delta`: the
 *   protocol streams argument text, which the reader parses tolerantly, while a preview is a
 *   parsed snapshot, so the snapshot is written as JSON left open on its last value
 *   (`{"sku":"SHO`); each delta extends the text sent so far, and in the rare case a snapshot does
 *   not extend it (a number's exponent) the part is restarted with a new `tool-input-start` and
 *   the whole text. Moment 2 (`tool-call`) → `tool-input-available` with the strictly parsed
 *   input, while the model is still writing; `dispatch: "invalid"` → `tool-input-error`.
 * - results, in call order after the join: `tool-result` → `tool-output-available` (output: the
 *   object the tool returned, else the result text; or `toolOutput(...)`), or `tool-output-error`
 *   when it is an error.
 * - `tool-status` cannot be a tool output (the protocol's outputs carry the output, which overlap
 *   gives after the join), so it is a data part `data-tool-status` (id: the call id, replaced in
 *   place, `{ callId, name, status, atMs, round }`): a UI can show a call done while the text
 *   still streams. `ui` events are data parts `data-ui` (`{ callId, name, ui }`).
 * - provider tools (`server-tool`) → tool parts with `providerExecuted: true`.
 * - events of delegated inner agents (with `parentCallId`) are not part of this message: left
 *   out.
 */

import type { AgentEvent } from "../protocol/agent-event.js";
import type { JsonPreview } from "../protocol/json-preview.js";
import type { StopReason } from "../protocol/stop-reason.js";
import type { UiEvent } from "../protocol/ui-event.js";

/** The AI SDK's finish reasons. */
export type UiFinishReason =
  | "stop"
  | "length"
  | "content-filter"
  | "tool-calls"
  | "error"
  | "other";

/** The UI message stream chunks this module writes (a subset of the AI SDK's `UIMessageChunk`). */
export type UiMessageChunk =
  | { type: "start"; messageId?: string; messageMetadata?: unknown }
  | { type: "start-step" }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "reasoning-start"; id: string }
  | { type: "reasoning-delta"; id: string; delta: string }
  | { type: "reasoning-end"; id: string }
  | { type: "tool-input-start"; toolCallId: string; toolName: string; providerExecuted?: boolean }
  | { type: "tool-input-delta"; toolCallId: string; inputTextDelta: string }
  | {
      type: "tool-input-available";
      toolCallId: string;
      toolName: string;
      input: unknown;
      providerExecuted?: boolean;
    }
  | {
      type: "tool-input-error";
      toolCallId: string;
      toolName: string;
      input: unknown;
      errorText: string;
    }
  | {
      type: "tool-output-available";
      toolCallId: string;
      output: unknown;
      providerExecuted?: boolean;
    }
  | { type: "tool-output-error"; toolCallId: string; errorText: string; providerExecuted?: boolean }
  | { type: `data-${string}`; id?: string; data: unknown; transient?: boolean }
  | { type: "source-url"; sourceId: string; url: string; title?: string }
  | { type: "finish-step" }
  | { type: "finish"; finishReason?: UiFinishReason; messageMetadata?: unknown }
  | { type: "error"; errorText: string };

/** A `tool-result` AgentEvent. */
export type ToolResultAgentEvent = Extract<AgentEvent, { type: "tool-result" }>;

/** Options of {@link toUIMessageStream}. */
export interface ToUiMessageStreamOptions {
  /** The assistant message's id (`start.messageId`); by default the client makes one. */
  messageId?: string;
  /** Metadata sent with `start`. */
  messageMetadata?: unknown;
  /**
   * How `tool-status` events are surfaced: `data` (default; `data-tool-status` parts in the
   * message), `transient` (only to `useChat`'s `onData`, not kept in the message), `none`.
   */
  toolStatus?: "data" | "transient" | "none";
  /** `ui` events as `data-ui` parts (`data`, default) or not at all (`none`). */
  uiEvents?: "data" | "none";
  /**
   * The `output` of a successful call; `ui` holds that call's ui events. Default: the object or
   * array the tool returned, as it returned it; else the result text (what the model reads).
   */
  toolOutput?: (result: ToolResultAgentEvent, ui: readonly UiEvent[]) => unknown;
  /** The `errorText` for a failure of the event source itself. Default "An error occurred.". */
  onError?: (error: unknown) => string;
}

/** The AgentEvents of one turn as a UI message stream (see the module comment). */
export function toUIMessageStream(
  events: AsyncIterable<AgentEvent>,
  options: ToUiMessageStreamOptions = {},
): ReadableStream<UiMessageChunk> {
  const chunks = uiMessageChunks(events, options);
  return new ReadableStream<UiMessageChunk>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}

/** The headers of a UI message stream response (the AI SDK's `UI_MESSAGE_STREAM_HEADERS`). */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
};

/** Options of {@link uiMessageStreamResponse}. */
export type UiMessageStreamResponseInit = ToUiMessageStreamOptions & {
  status?: number;
  statusText?: string;
  /** Extra headers; the stream's own are added unless set here. */
  headers?: ConstructorParameters<typeof Headers>[0];
};

/**
 * The turn as an SSE `Response` the way the AI SDK's `createUIMessageStreamResponse` writes one:
 * its headers, one `data: <json>` frame per chunk, `data: [DONE]` last.
 */
export function uiMessageStreamResponse(
  events: AsyncIterable<AgentEvent>,
  init: UiMessageStreamResponseInit = {},
): Response {
  const { status, statusText, headers: extra, ...options } = init;
  const headers = new Headers(extra);
  for (const [name, value] of Object.entries(UI_MESSAGE_STREAM_HEADERS)) {
    if (!headers.has(name)) headers.set(name, value);
  }
  const encoder = new TextEncoder();
  const body = toUIMessageStream(events, options).pipeThrough(
    new TransformStream<UiMessageChunk, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(encoder.encode(encodeUiMessageChunk(chunk)));
      },
      flush(controller) {
        controller.enqueue(encoder.encode("data: [DONE]\n\n"));
      },
    }),
  );
  return new Response(body, {
    headers,
    ...(status !== undefined ? { status } : {}),
    ...(statusText !== undefined ? { statusText } : {}),
  });
}

/** One chunk as an SSE frame (`data: <json>\n\n`; JSON has no raw line breaks). */
export function encodeUiMessageChunk(chunk: UiMessageChunk): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** The AI SDK finish reason of a stop reason. */
export function uiFinishReason(stopReason: StopReason): UiFinishReason {
  switch (stopReason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "tool_use":
      return "tool-calls";
    case "max_tokens":
      return "length";
    case "refusal":
      return "content-filter";
    case "error":
      return "error";
    default:
      return "other";
  }
}

interface ToolState {
  name: string;
  /** The argument text sent in tool-input-delta chunks so far. */
  text: string;
  ui: UiEvent[];
}

/** The chunks of one turn, in order (see the module comment). */
export async function* uiMessageChunks(
  events: AsyncIterable<AgentEvent>,
  options: ToUiMessageStreamOptions = {},
): AsyncGenerator<UiMessageChunk> {
  const toolStatus = options.toolStatus ?? "data";
  const tools = new Map<string, ToolState>();
  let step = false;
  /** The open text or reasoning part: its chunk id, kind and block. */
  let open: { id: string; kind: "text" | "reasoning"; round: number; index: number } | undefined;

  function* closeOpen(): Generator<UiMessageChunk> {
    if (!open) return;
    yield { type: open.kind === "text" ? "text-end" : "reasoning-end", id: open.id };
    open = undefined;
  }
  function* closeOther(round: number, index: number): Generator<UiMessageChunk> {
    if (open && (open.round !== round || open.index !== index)) yield* closeOpen();
  }
  function* ensureStep(): Generator<UiMessageChunk> {
    if (step) return;
    step = true;
    yield { type: "start-step" };
  }
  function* endStep(): Generator<UiMessageChunk> {
    yield* closeOpen();
    if (!step) return;
    step = false;
    yield { type: "finish-step" };
  }
  function* part(
    kind: "text" | "reasoning",
    round: number,
    index: number,
    text: string,
  ): Generator<UiMessageChunk> {
    yield* ensureStep();
    yield* closeOther(round, index);
    if (!open) {
      open = { id: `${kind}-${round}-${index}`, kind, round, index };
      yield { type: kind === "text" ? "text-start" : "reasoning-start", id: open.id };
    }
    yield { type: kind === "text" ? "text-delta" : "reasoning-delta", id: open.id, delta: text };
  }
  function* announce(
    callId: string,
    name: string,
    providerExecuted = false,
  ): Generator<UiMessageChunk> {
    if (tools.has(callId)) return;
    tools.set(callId, { name, text: "", ui: [] });
    yield {
      type: "tool-input-start",
      toolCallId: callId,
      toolName: name,
      ...(providerExecuted ? { providerExecuted: true } : {}),
    };
  }

  yield {
    type: "start",
    ...(options.messageId !== undefined ? { messageId: options.messageId } : {}),
    ...(options.messageMetadata !== undefined ? { messageMetadata: options.messageMetadata } : {}),
  };
  let finished = false;
  try {
    for await (const event of events) {
      if (event.parentCallId !== undefined) continue; // an inner agent's: not this message
      switch (event.type) {
        case "round-start":
          yield* endStep();
          yield* ensureStep();
          break;
        case "text-delta":
          yield* part("text", event.round, event.index, event.text);
          break;
        case "thinking-delta":
          yield* part("reasoning", event.round, event.index, event.thinking);
          break;
        case "tool-call-start":
          yield* ensureStep();
          yield* closeOpen();
          yield* announce(event.callId, event.name);
          break;
        case "tool-input-preview": {
          yield* ensureStep();
          yield* closeOpen();
          yield* announce(event.callId, event.name);
          const tool = tools.get(event.callId)!;
          const text = openJson(event.preview);
          if (text === tool.text) break;
          if (!text.startsWith(tool.text)) {
            // Not an extension of what was sent: restart the part's argument text.
            tool.text = "";
            yield { type: "tool-input-start", toolCallId: event.callId, toolName: event.name };
          }
          yield {
            type: "tool-input-delta",
            toolCallId: event.callId,
            inputTextDelta: text.slice(tool.text.length),
          };
          tool.text = text;
          break;
        }
        case "tool-call":
          yield* ensureStep();
          yield* closeOpen();
          if (event.dispatch === "duplicate") break; // the same call again: shown once
          yield* announce(event.callId, event.name);
          if (event.dispatch === "invalid") {
            yield {
              type: "tool-input-error",
              toolCallId: event.callId,
              toolName: event.name,
              input: event.input,
              errorText: event.error ?? "The tool arguments are not valid.",
            };
          } else {
            yield {
              type: "tool-input-available",
              toolCallId: event.callId,
              toolName: event.name,
              input: event.input,
            };
          }
          break;
        case "tool-status":
          if (toolStatus === "none") break;
          yield* ensureStep();
          yield {
            type: "data-tool-status",
            id: event.callId,
            data: {
              callId: event.callId,
              name: event.name,
              status: event.status,
              atMs: event.atMs,
              round: event.round,
            },
            ...(toolStatus === "transient" ? { transient: true } : {}),
          };
          break;
        case "server-tool":
          yield* ensureStep();
          yield* closeOpen();
          if (event.phase === "call") {
            yield* announce(event.callId, event.name, true);
            yield {
              type: "tool-input-available",
              toolCallId: event.callId,
              toolName: event.name,
              input: event.input ?? {},
              providerExecuted: true,
            };
          } else if (tools.has(event.callId)) {
            yield {
              type: "tool-output-available",
              toolCallId: event.callId,
              output: event.result ?? null,
              providerExecuted: true,
            };
          }
          break;
        case "citations":
          yield* ensureStep();
          for (const [n, link] of event.citations.entries()) {
            yield {
              type: "source-url",
              sourceId: `${event.round}-${event.index}-${n}`,
              url: link.url,
              ...(link.title === undefined ? {} : { title: link.title }),
            };
          }
          break;
        case "ui": {
          yield* ensureStep();
          const tool = tools.get(event.callId);
          tool?.ui.push(event.ui);
          if ((options.uiEvents ?? "data") === "none") break;
          yield {
            type: "data-ui",
            id: `${event.callId}:${tool ? tool.ui.length : 1}`,
            data: { callId: event.callId, name: event.name, ui: event.ui },
          };
          break;
        }
        case "tool-result": {
          yield* ensureStep();
          yield* closeOpen();
          // A call the stream never announced (its block start was lost): shown with no input.
          if (!tools.has(event.callId)) {
            yield* announce(event.callId, event.name);
            yield {
              type: "tool-input-available",
              toolCallId: event.callId,
              toolName: event.name,
              input: {},
            };
          }
          const tool = tools.get(event.callId)!;
          if (event.isError) {
            yield {
              type: "tool-output-error",
              toolCallId: event.callId,
              errorText: event.resultText,
            };
          } else {
            yield {
              type: "tool-output-available",
              toolCallId: event.callId,
              output: options.toolOutput
                ? options.toolOutput(event, tool.ui)
                : (event.output ?? event.resultText),
            };
          }
          break;
        }
        case "round-end":
          yield* endStep();
          break;
        case "error":
          yield* endStep();
          yield { type: "error", errorText: event.message };
          break;
        case "done":
          yield* endStep();
          finished = true;
          yield { type: "finish", finishReason: uiFinishReason(event.stopReason) };
          return;
        default:
          break;
      }
    }
  } catch (err) {
    yield* endStep();
    finished = true;
    yield { type: "error", errorText: options.onError?.(err) ?? "An error occurred." };
    yield { type: "finish", finishReason: "error" };
    return;
  }
  if (!finished) {
    // The source ended without the turn's `done`: the turn did not finish.
    yield* endStep();
    yield { type: "error", errorText: "The response ended before the turn finished." };
    yield { type: "finish", finishReason: "error" };
  }
}

/**
 * A JSON preview written as JSON text left open on its last value (no closing quote or
 * brackets for it and its parents), so the text of a growing preview grows by appending, as the
 * model's own argument text does.
 */
export function openJson(value: JsonPreview | undefined): string {
  if (value === undefined) return "";
  if (typeof value === "string") return JSON.stringify(value).slice(0, -1);
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) {
    const items = value as readonly JsonPreview[];
    if (items.length === 0) return "[";
    const head = items.slice(0, -1).map((item) => `${JSON.stringify(item)},`);
    return `[${head.join("")}${openJson(items.at(-1))}`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return "{";
  const head = entries.slice(0, -1).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)},`);
  const [lastKey, lastValue] = entries.at(-1)!;
  return `{${head.join("")}${JSON.stringify(lastKey)}:${openJson(lastValue)}`;
}

export { type AgentEventChannel, agentEventChannel } from "./agent-event-channel.js";
