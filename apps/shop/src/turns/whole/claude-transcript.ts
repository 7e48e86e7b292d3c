/**
 * A stored conversation as a Claude Code session transcript, so the Claude Agent SDK continues it
 * (`resume` + a `sessionStore` whose `load` returns these entries). The shop's store stays the only
 * record of the conversation: the transcript is built afresh for every turn from what the store
 * holds (whichever path wrote it) and thrown away after the turn.
 *
 * Entries are the smallest subset of the CLI's transcript lines it resumes from: one `user` or
 * `assistant` line per message, chained by `parentUuid`, an assistant line carrying a whole
 * Messages API message (all its blocks). The line format is the CLI's own and not a public API
 * (the SDK types it only as `{ type, uuid?, timestamp?, ... }`); `whole-path.test.ts` checks
 * that the CLI still sends such a history to the model unchanged.
 */

import { randomUUID } from "node:crypto";
import type { SessionStore, SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import type { Message } from "overlap-runtime";

/** Where the transcript lives: the session's id and the directory the CLI runs in. */
export interface TranscriptTarget {
  sessionId: string;
  cwd: string;
  /** The model name an assistant line records. */
  model: string;
}

/** The transcript lines of `messages`, oldest first. */
export function transcriptEntries(
  messages: readonly Message[],
  target: TranscriptTarget,
  now: () => Date = () => new Date(),
): SessionStoreEntry[] {
  let parentUuid: string | null = null;
  return messages.map((message, i) => {
    const uuid = randomUUID();
    const common = {
      uuid,
      parentUuid,
      isSidechain: false,
      userType: "external",
      cwd: target.cwd,
      sessionId: target.sessionId,
      timestamp: now().toISOString(),
    };
    parentUuid = uuid;
    if (message.role === "user") {
      return { type: "user", ...common, message: { role: "user", content: message.content } };
    }
    const calls = message.content.some((b) => b.type === "tool_use");
    return {
      type: "assistant",
      ...common,
      message: {
        id: `msg_stored_${i}`,
        type: "message",
        role: "assistant",
        model: target.model,
        content: message.content,
        stop_reason: calls ? "tool_use" : "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    };
  });
}

/**
 * A read-only session store holding one transcript: `load` answers it for its session id,
 * `append` (the CLI mirroring what it writes) keeps nothing, since the shop stores the turn itself.
 */
export function transcriptStore(sessionId: string, entries: SessionStoreEntry[]): SessionStore {
  return {
    append: async () => {},
    load: async (key) =>
      key.sessionId === sessionId && key.subpath === undefined ? entries : null,
  };
}
