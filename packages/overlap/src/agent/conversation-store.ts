/**
 * Where conversations live between turns. The shop adds SQL implementations; the in-memory one
 * serves tests and single-process use.
 */

import { OverlapError } from "../errors.js";
import type { Message } from "../stream/message.js";

/** Options of {@link ConversationStore.write}. */
export interface ConversationWriteOptions {
  /**
   * The length the writer last saw. When another writer changed the conversation since (two
   * server processes running turns of one session), the write fails with an
   * `OverlapError("conversation_conflict")` instead of replacing that writer's messages.
   */
  expectedLength?: number;
}

/** Throws `conversation_conflict` when the stored length is not the expected one. */
export function assertExpectedLength(
  conversationId: string,
  length: number,
  options: ConversationWriteOptions | undefined,
): void {
  if (options?.expectedLength !== undefined && options.expectedLength !== length) {
    throw new OverlapError(
      "conversation_conflict",
      `Conversation ${conversationId} has ${length} messages, the writer expected ${options.expectedLength}: another writer changed it.`,
    );
  }
}

/** Persistent conversations, one list of messages per id. */
export interface ConversationStore {
  /** The conversation's messages in order (empty for a new id). */
  load(conversationId: string): Promise<Message[]>;
  /**
   * Writes `messages` from position `from` on, replacing whatever was stored there. Appending is
   * `from === length`; a turn that merges into the last message rewrites from `length - 1`.
   */
  write(
    conversationId: string,
    from: number,
    messages: readonly Message[],
    options?: ConversationWriteOptions,
  ): Promise<void>;
}

/** Conversations in memory, deep-copied on the way in and out like a real store. */
export class InMemoryConversationStore implements ConversationStore {
  readonly #conversations = new Map<string, Message[]>();

  async load(conversationId: string): Promise<Message[]> {
    return structuredClone(this.#conversations.get(conversationId) ?? []);
  }

  async write(
    conversationId: string,
    from: number,
    messages: readonly Message[],
    options?: ConversationWriteOptions,
  ): Promise<void> {
    const stored = this.#conversations.get(conversationId) ?? [];
    assertExpectedLength(conversationId, stored.length, options);
    if (from < 0 || from > stored.length) {
      throw new RangeError(
        `Cannot write at ${from}: the conversation has ${stored.length} messages.`,
      );
    }
    this.#conversations.set(conversationId, [
      ...stored.slice(0, from),
      ...structuredClone(messages),
    ]);
  }
}
