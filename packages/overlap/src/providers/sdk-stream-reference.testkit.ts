/**
 * The official SDKs' own streams, read one item at a time and translated by the adapters'
 * translators: the reference overlap's read of the body is compared with (same events, same
 * failures). Not a read path of the library: the adapters read the body themselves.
 */

import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import type { ModelClient, ModelRequest } from "../agent/model-client.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { anthropicParams } from "./anthropic/anthropic.js";
import { type ChatChunk, ChatChunkTranslator } from "./openai/chat-chunk-translator.js";
import { chatParams } from "./openai/openai.js";
import { responsesParams } from "./openai/openai-responses.js";
import {
  ResponsesEventTranslator,
  type ResponsesStreamEvent,
} from "./openai/responses-event-translator.js";
import { streamCut } from "./provider-errors.js";
import { sdkProviderError, sentErrorEvent } from "./sdk-errors.js";

/** Each SDK item's events in an array, then `finish()`'s, with the adapters' failures. */
async function* sdkItems<T>(
  open: () => Promise<AsyncIterable<T>>,
  translate: (item: T) => Iterable<StreamEvent>,
  finish: () => Iterable<StreamEvent>,
  signal: AbortSignal,
): AsyncGenerator<StreamEvent[]> {
  let items: AsyncIterable<T>;
  try {
    items = await open();
  } catch (err) {
    if (signal.aborted) return;
    throw sdkProviderError(err);
  }
  try {
    for await (const item of items) {
      const events = [...translate(item)];
      if (events.length > 0) yield events;
    }
  } catch (err) {
    if (signal.aborted) return;
    const sent = sentErrorEvent(err);
    if (sent) {
      yield [sent];
      return;
    }
    throw streamCut(err);
  }
  const last = [...finish()];
  if (last.length > 0) yield last;
}

/** `anthropicModel` as read through the SDK's own stream. */
export function anthropicSdkReference(client: Anthropic, model: string): ModelClient {
  return {
    stream: (request: ModelRequest, { signal }) =>
      sdkItems(
        async () =>
          client.messages.create(
            { ...anthropicParams(request, { model }), stream: true },
            { signal },
          ) as unknown as Promise<AsyncIterable<StreamEvent>>,
        (event) => [event],
        () => [],
        signal,
      ),
  };
}

/** `openaiChatModel` as read through the SDK's own stream. */
export function chatSdkReference(client: OpenAI, model: string): ModelClient {
  return {
    stream(request: ModelRequest, { signal }) {
      const translator = new ChatChunkTranslator();
      return sdkItems(
        async () => client.chat.completions.create(chatParams(request, { model }), { signal }),
        (chunk) => translator.push(chunk as ChatChunk),
        () => translator.end(),
        signal,
      );
    },
  };
}

/** `openaiResponsesModel` as read through the SDK's own stream. */
export function responsesSdkReference(client: OpenAI, model: string): ModelClient {
  return {
    stream(request: ModelRequest, { signal }) {
      const translator = new ResponsesEventTranslator();
      return sdkItems(
        async () =>
          client.responses.create(
            { ...responsesParams(request, { model }), stream: true },
            { signal },
          ),
        (event) => translator.push(event as ResponsesStreamEvent),
        () => translator.end(),
        signal,
      );
    },
  };
}
