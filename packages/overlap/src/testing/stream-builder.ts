/**
 * Builds neutral stream events from a short script of blocks, and replays them with timing.
 * For tests of code built on overlap (and overlap's own): what a provider adapter would emit.
 */

import type { ModelClient, ModelRequest } from "../agent/model-client.js";
import type { Citation } from "../stream/message.js";
import type { StreamEvent } from "../stream/stream-event.js";

/** One block of a scripted response. */
export type ScriptBlock =
  | { type: "text"; text: string; citations?: Citation[] }
  | { type: "thinking"; thinking: string; signature: string }
  | {
      type: "tool_use" | "server_tool_use";
      id: string;
      name: string;
      /** The arguments: an object (serialised) or raw JSON text (possibly invalid, for faults). */
      input: Record<string, unknown> | string;
    }
  | { type: "web_search_tool_result"; tool_use_id: string; content: unknown };

/** Options of {@link buildStreamEvents}. */
export interface BuildOptions {
  stopReason?: string;
  /** Characters per delta. Default 8. */
  chunkSize?: number;
  messageId?: string;
  model?: string;
  /** Leave the message unfinished after this many events (simulates a cut stream). */
  cutAfter?: number;
}

/** The Messages-API event sequence for the scripted blocks. */
export function buildStreamEvents(
  blocks: readonly ScriptBlock[],
  options: BuildOptions = {},
): StreamEvent[] {
  const size = Math.max(1, options.chunkSize ?? 8);
  const events: StreamEvent[] = [
    {
      type: "message_start",
      message: {
        id: options.messageId ?? "msg_test",
        model: options.model ?? "scripted-test",
        role: "assistant",
        content: [],
        stop_reason: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    },
  ];
  let outputTokens = 1;
  blocks.forEach((block, index) => {
    switch (block.type) {
      case "text":
        events.push({
          type: "content_block_start",
          index,
          content_block: { type: "text", text: "" },
        });
        for (const piece of chunk(block.text, size)) {
          events.push({
            type: "content_block_delta",
            index,
            delta: { type: "text_delta", text: piece },
          });
        }
        for (const citation of block.citations ?? []) {
          events.push({
            type: "content_block_delta",
            index,
            delta: { type: "citations_delta", citation },
          });
        }
        break;
      case "thinking":
        events.push({
          type: "content_block_start",
          index,
          content_block: { type: "thinking", thinking: "", signature: "" },
        });
        for (const piece of chunk(block.thinking, size)) {
          events.push({
            type: "content_block_delta",
            index,
            delta: { type: "thinking_delta", thinking: piece },
          });
        }
        events.push({
          type: "content_block_delta",
          index,
          delta: { type: "signature_delta", signature: block.signature },
        });
        break;
      case "tool_use":
      case "server_tool_use": {
        events.push({
          type: "content_block_start",
          index,
          content_block: { type: block.type, id: block.id, name: block.name, input: {} },
        });
        const raw = typeof block.input === "string" ? block.input : JSON.stringify(block.input);
        events.push({
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: "" },
        });
        for (const piece of chunk(raw, size)) {
          events.push({
            type: "content_block_delta",
            index,
            delta: { type: "input_json_delta", partial_json: piece },
          });
        }
        break;
      }
      case "web_search_tool_result":
        events.push({ type: "content_block_start", index, content_block: { ...block } });
        break;
    }
    events.push({ type: "content_block_stop", index });
    outputTokens += 10;
  });
  events.push({
    type: "message_delta",
    delta: {
      stop_reason:
        options.stopReason ?? (blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn"),
    },
    usage: { output_tokens: outputTokens },
  });
  events.push({ type: "message_stop" });
  return options.cutAfter === undefined ? events : events.slice(0, options.cutAfter);
}

/** Options of {@link replayEvents}. */
export interface ReplayOptions {
  /** Milliseconds to wait before each event: a constant or per event. Default 0 (no wait). */
  delayMs?: number | ((event: StreamEvent, index: number) => number);
  /** Ends the replay (like an aborted HTTP request) with an AbortError. */
  signal?: AbortSignal;
  /** Throws this error after the last event (a dropped connection). */
  failWith?: unknown;
}

/**
 * Replays events as a model's stream, with optional pacing: each event in an array of its own,
 * as if each came in a read of its own.
 */
export async function* replayEvents(
  events: readonly StreamEvent[],
  options: ReplayOptions = {},
): AsyncGenerator<readonly StreamEvent[]> {
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    const delay =
      typeof options.delayMs === "function" ? options.delayMs(event, i) : (options.delayMs ?? 0);
    if (delay > 0) await sleep(delay, options.signal);
    if (options.signal?.aborted) throw abortError();
    yield [event];
  }
  if (options.failWith !== undefined) throw options.failWith;
}

/** A model that answers each request with the next scripted response. Records the requests. */
export interface FakeModel extends ModelClient {
  readonly requests: ModelRequest[];
}

/** A response of a {@link fakeModel}: events, or a function of the request producing them. */
export type FakeResponse =
  | readonly StreamEvent[]
  | ((request: ModelRequest) => readonly StreamEvent[]);

/** A fake streaming model for tests of agents and rounds. */
export function fakeModel(
  responses: readonly FakeResponse[],
  replay: Omit<ReplayOptions, "signal"> = {},
): FakeModel {
  const requests: ModelRequest[] = [];
  return {
    label: "scripted-fake",
    requests,
    stream(request, { signal }) {
      requests.push(structuredClone(request));
      const response = responses[requests.length - 1];
      if (response === undefined)
        throw new Error(`fakeModel: no response scripted for request ${requests.length}`);
      const events = typeof response === "function" ? response(request) : response;
      return replayEvents(events, { ...replay, signal });
    },
  };
}

function* chunk(text: string, size: number): Generator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function abortError(): Error {
  return new DOMException("The request was aborted.", "AbortError");
}
