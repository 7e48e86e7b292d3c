/**
 * What a durable turn does before its first round, while its message waits for the answer
 * "accepted": restore the round a dead turn of the chat left, then store the user's message, each
 * under the conversation's version and the turn's lease. Once this resolved the message survives
 * a crash.
 */

import { appendUserText } from "../agent/repair-conversation.js";
import type { Message, ToolUseBlock, UserMessage } from "../stream/message.js";
import type { DurableStore } from "./durable-store.js";

/** The stored conversation a turn starts from. */
export interface PreparedTurn {
  messages: Message[];
  version: number;
  /** The ids of the calls a dead turn left, restored into the conversation. */
  restored: string[];
}

/**
 * Restores the chat's lost round (calls that ran keep their real results; the others get
 * `notRunText`, which says what is known of them) and appends `message`.
 */
export async function prepareDurableTurn(
  store: DurableStore,
  chatId: string,
  turnId: string,
  message: string | UserMessage,
  notRunText: (block: ToolUseBlock, idempotencyKey: string | undefined) => string,
): Promise<PreparedTurn> {
  const recovered = await store.recover(chatId, { notRunText });
  let { messages, version } = recovered;
  if (recovered.restored.length > 0) {
    version = await store.conversations.writeVersioned(
      chatId,
      recovered.from,
      recovered.messages.slice(recovered.from),
      { expectedVersion: version, lease: turnId, clearJournal: true },
    );
  }
  // A trailing user message (the results of a restored round) takes the new one in: roles must
  // alternate.
  const appended = appendUserMessage(messages, message);
  version = await store.conversations.writeVersioned(
    chatId,
    appended.from,
    appended.messages.slice(appended.from),
    { expectedVersion: version, lease: turnId },
  );
  return { messages: appended.messages, version, restored: recovered.restored };
}

/** The conversation with the user's new message appended, or merged into a trailing user one. */
function appendUserMessage(
  messages: readonly Message[],
  message: string | UserMessage,
): { messages: Message[]; from: number } {
  if (typeof message === "string") return appendUserText(messages, message);
  if (typeof message.content === "string") return appendUserText(messages, message.content);
  const repaired = appendUserText(messages, "");
  const last = repaired.messages.at(-1) as UserMessage;
  const before = typeof last.content === "string" ? [] : last.content;
  const kept = before.filter((block) => block.type !== "text" || block.text !== "");
  repaired.messages[repaired.messages.length - 1] = {
    role: "user",
    content: [...kept, ...message.content],
  };
  return repaired;
}
