/**
 * The browser's side of a `useChat` route, as the AI SDK itself does it: `DefaultChatTransport`
 * posts the chat (`{ id, messages, trigger, messageId }`) and parses the response's SSE into
 * `UIMessageChunk`s, and `readUIMessageStream` folds them into the assistant message `useChat`
 * shows. Only the transport's `fetch` is ours: it hands the web Request to the route directly, or
 * goes over real HTTP.
 */

import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";

/** A route handler as Next.js and Hono call it. */
export type RouteHandler = (request: Request) => Promise<Response> | Response;

/** What one `send` got back. */
export interface ChatReply {
  /** The assistant message as `useChat` holds it at the end of the stream. */
  message: UIMessage;
  /** Every chunk, in order. */
  chunks: UIMessageChunk[];
  /** Errors the reader reported (`error` chunks). */
  errors: unknown[];
}

/** A client of `useChat`'s transport posting to `handler` (or to `url` over HTTP). */
export function chatClient(target: { handler: RouteHandler } | { url: string }) {
  const fetchFn: typeof fetch =
    "handler" in target
      ? async (input, init) => target.handler(new Request(input as string, init))
      : fetch;
  const api = "url" in target ? target.url : "http://chat.test/api/chat";
  const transport = new DefaultChatTransport<UIMessage>({ api, fetch: fetchFn });
  return {
    /** Posts `messages` as useChat's submit; resolves with the assistant message read. */
    async send(
      messages: readonly UIMessage[],
      options: {
        chatId?: string;
        abortSignal?: AbortSignal;
        onChunk?: (c: UIMessageChunk) => void;
      } = {},
    ): Promise<ChatReply> {
      const stream = await transport.sendMessages({
        trigger: "submit-message",
        chatId: options.chatId ?? "chat-1",
        messageId: undefined,
        messages: [...messages],
        abortSignal: options.abortSignal,
      });
      const chunks: UIMessageChunk[] = [];
      const errors: unknown[] = [];
      const tapped = stream.pipeThrough(
        new TransformStream<UIMessageChunk, UIMessageChunk>({
          transform(chunk, controller) {
            chunks.push(chunk);
            options.onChunk?.(chunk);
            controller.enqueue(chunk);
          },
        }),
      );
      let message: UIMessage | undefined;
      for await (const snapshot of readUIMessageStream<UIMessage>({
        stream: tapped,
        onError: (error) => errors.push(error),
      })) {
        message = snapshot;
      }
      if (!message) throw new Error(`no message in the stream: ${JSON.stringify(chunks)}`);
      return { message, chunks, errors };
    },
  };
}

/** A user's UI message, as useChat's `sendMessage({ text })` makes it. */
export function userMessage(text: string, id = `user-${text.length}`): UIMessage {
  return { id, role: "user", parts: [{ type: "text", text }] };
}

/**
 * The parts of a UI message a chat is made of, to compare a streamed message with a restored
 * one: step boundaries, texts, and tool parts with their state, input and output (the data
 * parts of tool statuses and the streaming-only fields left out).
 */
export function chatParts(message: { parts: readonly unknown[] }): unknown[] {
  return message.parts.flatMap((part) => {
    const p = part as Record<string, unknown> & { type: string };
    if (p.type === "step-start") return [{ type: "step-start" }];
    if (p.type === "text") return [{ type: "text", text: p.text }];
    if (p.type.startsWith("tool-")) {
      return [
        {
          type: p.type,
          toolCallId: p.toolCallId,
          state: p.state,
          input: p.input,
          ...(p.state === "output-available" ? { output: p.output } : {}),
          ...(p.state === "output-error" ? { errorText: p.errorText } : {}),
        },
      ];
    }
    return [];
  });
}
