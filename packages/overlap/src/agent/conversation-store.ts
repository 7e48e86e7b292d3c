/**
 * Where conversations live between turns. The shop adds SQL implementations; the in-memory one
 * serves tests and single-process use.
 */

import type { Message } from "../stream/message.js";

/** Persistent conversations, one list of messages per id. */
export interface ConversationStore {
  /** The conversation's messages in order (empty for a new id). */
  load(conversationId: string): Promise<Message[]>;
  /**
   * Writes `messages` from position `from` on, replacing whatever was stored there. Appending is
   * `from === length`; a turn that merges into the last message rewrites from `length - 1`.
   */
  write(conversationId: string, from: number, messages: readonly Message[]): Promise<void>;
}

/** Conversations in memory, deep-copied on the way in and out like a real store. */
export class InMemoryConversationStore implements ConversationStore {
  readonly #conversations = new Map<string, Message[]>();

  async load(conversationId: string): Promise<Message[]> {
    return structuredClone(this.#conversations.get(conversationId) ?? []);
  }

  async write(conversationId: string, from: number, messages: readonly Message[]): Promise<void> {
    const stored = this.#conversations.get(conversationId) ?? [];
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
