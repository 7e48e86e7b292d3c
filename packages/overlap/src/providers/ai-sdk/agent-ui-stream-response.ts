/**
 * A `useChat` route in one call: the request as `useChat` posts it in, the turn's UI message
 * stream out, the way the AI SDK's `createAgentUIStreamResponse` reads.
 *
 * What a hand-written route tends to miss is done here: the body is read as UI messages (an
 * unreadable one is a 400 naming what is wrong, never a thrown 500); the request's signal is the
 * turn's, so the browser's Stop or a closed connection aborts the turn (its running tools see
 * their signal abort, the conversation is repaired); and the host gets the conversation the turn
 * left, in overlap's shape and as UI messages, to store before the stream ends.
 *
 * Web-standard `Request`/`Response` only: the same code serves Next.js route handlers, Hono,
 * Bun, Deno and Workers.
 */

import { fromUIMessages, toUIMessages, type UIMessageOut } from "../../agent/ai-sdk-messages.js";
import {
  type ConvertedConversation,
  outputOfText,
  type UIMessageLike,
} from "../../agent/message-shapes.js";
import {
  type AgentTurnOptions,
  type AgentTurnResult,
  runAgentTurn,
} from "../../agent/run-agent-turn.js";
import { validateConversation } from "../../agent/validate-conversation.js";
import { isOverlapError, OverlapError } from "../../errors.js";
import type { AgentEvent } from "../../protocol/agent-event.js";
import { agentEventChannel } from "../../sse/agent-event-channel.js";
import {
  type UiMessageStreamResponseInit,
  uiMessageStreamResponse,
} from "../../sse/ui-message-stream.js";
import type { Message } from "../../stream/message.js";
import type { AnyTool } from "../../tools/define-tool.js";
import { safeLog } from "../../tools/logger.js";

/** The body `useChat` (its `DefaultChatTransport`) posts, as far as the route reads it. */
export interface UIChatRequestBody {
  /** The chat's id. */
  id?: string;
  /** The whole chat, ending with the user's new message. */
  messages: readonly UIMessageLike[];
  /** `submit-message`, or `regenerate-message` (the messages then end before the answer). */
  trigger?: string;
  /** The message a regenerate replaces. */
  messageId?: string;
  /** Whatever else the client's `body` option added. */
  [key: string]: unknown;
}

/** What {@link agentUIStreamResponse} hands `onFinish` once the turn ended, however it ended. */
export interface AgentUIStreamFinish {
  /** The request's body: its `id` names the chat to store under. */
  body: UIChatRequestBody;
  /** The turn's result (after a Stop, `error.code` is `aborted`). */
  result: AgentTurnResult;
  /** The whole conversation after the turn in overlap's shape, valid to continue. */
  messages: Message[];
  /**
   * The same conversation as `useChat`'s messages (`toUIMessages`): what to send a reloaded
   * page as `useChat`'s `messages`. Its parts are the ones the stream sent (texts; tool parts
   * with their input and output), except the output of a tool that returned both a `text` and
   * other `data`: the conversation keeps what the model read, so that output is restored as the
   * text.
   */
  uiMessages: UIMessageOut[];
  /** The system prompt the request's own leading system messages held, when there were any. */
  system?: string;
}

/** Options of {@link agentUIStreamResponse}: the turn's, and the stream response's. */
export type AgentUIStreamResponseOptions<T extends AnyTool = AnyTool> = Omit<
  AgentTurnOptions<T>,
  "messages" | "sink"
> &
  UiMessageStreamResponseInit & {
    /**
     * Called once the turn ended (completed, failed or stopped), before the stream's last
     * chunk: store `messages` (or `uiMessages`) here. When it throws, the stream ends with an
     * error; when the browser has gone, the error goes to the turn's `logger`.
     */
    onFinish?: (finish: AgentUIStreamFinish) => Promise<void> | void;
    /** Also receives every AgentEvent of the turn (a `TurnEventLog`, a meter...). */
    sink?: (event: AgentEvent) => void;
  };

/**
 * Answers a `useChat` request with the turn's UI message stream:
 *
 * ```ts
 * export async function POST(request: Request) {
 *   return agentUIStreamResponse(request, { model, executor, onFinish: save });
 * }
 * ```
 *
 * The turn aborts when the request's signal does (the browser's Stop, a closed connection), when
 * `options.signal` does, or when the response body is cancelled. The chat's leading system
 * messages, if it has any, are sent after `options.system` (as the AI SDK's
 * `convertToModelMessages` keeps them) and restored in `onFinish`'s `uiMessages`; a server that
 * does not let the browser add instructions refuses such a body itself. A body that is not a chat
 * request is answered with status 400 and the reason as text (what `useChat` shows as its
 * `error.message`); the turn does not start. Tool outputs go out as the objects the tools
 * returned (`output-available`).
 */
export async function agentUIStreamResponse<T extends AnyTool = AnyTool>(
  request: Request,
  options: AgentUIStreamResponseOptions<T>,
): Promise<Response> {
  let body: UIChatRequestBody;
  let conversation: ConvertedConversation;
  try {
    body = readChatRequestBody(await request.json().catch(() => undefined));
    conversation = fromUIMessages(body.messages);
  } catch (err) {
    if (isOverlapError(err, "invalid_conversation")) return badRequest(err.message);
    throw err;
  }
  // A chat the model cannot continue is the request's fault: said now, before any turn starts.
  const [violation] = validateConversation(conversation.messages);
  if (violation) return badRequest(`The chat cannot be continued: ${violation.message}`);
  const {
    onFinish,
    sink: extraSink,
    signal: hostSignal,
    status,
    statusText,
    headers,
    messageId,
    messageMetadata,
    toolStatus,
    uiEvents,
    toolOutput,
    onError,
    ...turnOptions
  } = options;

  // Aborted by the request (Stop, a closed connection), by the host, or by the reader leaving.
  const abort = new AbortController();
  const signals = [request.signal, hostSignal].filter((s): s is AbortSignal => s !== undefined);
  const forward = (event: Event) => abort.abort((event.target as AbortSignal).reason);
  for (const signal of signals) {
    if (signal.aborted) abort.abort(signal.reason);
    else signal.addEventListener("abort", forward, { once: true });
  }

  const channel = agentEventChannel();
  const system =
    [turnOptions.system, conversation.system].filter((s) => s !== undefined).join("\n\n") ||
    undefined;
  const turn = runAgentTurn({
    ...(turnOptions as Omit<AgentTurnOptions, "messages" | "sink">),
    system,
    messages: conversation.messages,
    signal: abort.signal,
    sink: (event) => {
      channel.sink(event);
      if (extraSink) {
        try {
          extraSink(event);
        } catch (err) {
          safeLog(turnOptions.logger ?? console, "error", "The turn's extra sink threw.", err);
        }
      }
    },
  });
  // A host's signal outlives many requests: no listener of this one stays on it.
  void turn.finally(() => {
    for (const signal of signals) signal.removeEventListener("abort", forward);
  });
  let readerGone = false;
  // Settles once onFinish has run; its failure is the stream's, or the logger's once no one reads.
  const finished = turn.then(async (result) => {
    await onFinish?.({
      body,
      result,
      messages: result.messages,
      uiMessages: toUIMessages(
        result.messages,
        conversation.system === undefined ? {} : { system: conversation.system },
      ),
      ...(conversation.system === undefined ? {} : { system: conversation.system }),
    });
  });
  finished.catch((err: unknown) => {
    if (readerGone) safeLog(turnOptions.logger ?? console, "error", "onFinish threw.", err);
  });

  async function* events(): AsyncGenerator<AgentEvent> {
    let done = false;
    try {
      for await (const event of channel.events) {
        if (event.type === "done" && event.parentCallId === undefined) {
          // The turn's last chunk waits for the host's store, so a reload after it sees the turn.
          await finished;
          done = true;
        }
        yield event;
      }
    } finally {
      if (!done) {
        readerGone = true;
        abort.abort(new OverlapError("aborted", "The response's reader went away."));
      }
    }
  }

  const init: UiMessageStreamResponseInit = {
    ...(status === undefined ? {} : { status }),
    ...(statusText === undefined ? {} : { statusText }),
    ...(headers === undefined ? {} : { headers }),
    ...(messageId === undefined ? {} : { messageId }),
    ...(messageMetadata === undefined ? {} : { messageMetadata }),
    ...(toolStatus === undefined ? {} : { toolStatus }),
    ...(uiEvents === undefined ? {} : { uiEvents }),
    // A text result that is the JSON of an object goes out as the object, as toUIMessages
    // restores it, so a reloaded chat shows what the stream showed.
    toolOutput: toolOutput ?? ((result) => result.output ?? outputOfText(result.resultText)),
    ...(onError === undefined ? {} : { onError }),
  };
  return uiMessageStreamResponse(events(), init);
}

/** The request's JSON as a chat request body; throws `invalid_conversation` naming what is off. */
function readChatRequestBody(json: unknown): UIChatRequestBody {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new OverlapError(
      "invalid_conversation",
      "The request body is not a chat request: expected JSON `{ messages: UIMessage[] }`, as useChat sends it.",
    );
  }
  const body = json as Record<string, unknown>;
  if (!Array.isArray(body.messages)) {
    throw new OverlapError(
      "invalid_conversation",
      "The chat request has no `messages` array (useChat's UIMessage[]).",
    );
  }
  return body as UIChatRequestBody;
}

function badRequest(message: string): Response {
  return new Response(message, {
    status: 400,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}
