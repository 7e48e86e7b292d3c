/**
 * Reads the SDK's messages into the turn's rounds: the message-level stream events say when each
 * response starts and ends (never a content delta is read), the assistant messages bring each
 * response's blocks whole, the user messages the results the CLI handed the model, and the result
 * message how the run ended. Messages of a delegate's inner agent are left out.
 */

import type { SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import { type AssistantContentBlock, OverlapError, type Usage } from "overlap-runtime";
import { normalizeStopReason } from "overlap-runtime/core";
import type { CallGates } from "./call-gates.js";
import { localBlock } from "./shop-mcp-server.js";
import type { TurnStatus } from "./turn-status.js";
import type { WholeRounds } from "./whole-rounds.js";

/** A message-level stream event: a response's start (id, usage), delta (stop reason) or end. */
interface StreamEventLike {
  type: string;
  [key: string]: unknown;
}

/** Maps the SDK's messages to the rounds (which emit the AgentEvents). */
export class SdkMessages {
  readonly #rounds: WholeRounds;
  readonly #gates: CallGates;
  readonly #status: TurnStatus;

  constructor(rounds: WholeRounds, gates: CallGates, status: TurnStatus) {
    this.#rounds = rounds;
    this.#gates = gates;
    this.#status = status;
  }

  /** Takes in one message of the SDK's stream, in order. */
  async read(message: SDKMessage): Promise<void> {
    if ("parent_tool_use_id" in message && message.parent_tool_use_id) return;
    switch (message.type) {
      case "stream_event":
        return this.#onStreamEvent(message.event as unknown as StreamEventLike);
      case "assistant":
        return this.#onAssistant(message);
      case "user":
        return this.#onUser(message);
      case "result":
        return this.#onResult(message);
      default:
        return;
    }
  }

  async #onStreamEvent(event: StreamEventLike): Promise<void> {
    const rounds = this.#rounds;
    if (event.type === "message_start") {
      const previous = rounds.last();
      if (previous && !previous.closed) await rounds.close(previous, "tool_use");
      if (this.#status.error) return;
      const round = rounds.open();
      const start = event.message as { id?: string; usage?: Usage } | undefined;
      if (start?.id) round.messageId = start.id;
      if (start?.usage) round.usage = { ...start.usage };
      round.firstEventMs = rounds.ms(round);
      return;
    }
    const round = rounds.last();
    if (!round || round.ended) return;
    if (event.type === "message_delta") {
      const delta = event.delta as { stop_reason?: string | null } | undefined;
      const reason = normalizeStopReason(delta?.stop_reason);
      if (reason) round.stopReason = reason;
      const usage = event.usage as Partial<Usage> | undefined;
      if (usage) round.usage = { ...round.usage, ...withoutNulls(usage) };
    } else if (event.type === "message_stop") {
      rounds.endResponse(round, round.stopReason ?? "end_turn");
      if (round.calls.size === 0) await rounds.close(round, round.stopReason ?? "end_turn");
    }
  }

  #onAssistant(message: Extract<SDKMessage, { type: "assistant" }>): void {
    const model = (message.message as { model?: string }).model;
    if (message.error || model === "<synthetic>") {
      // The CLI's own message about a failed request, not the model's words.
      const text = textOf(message.message.content as unknown[]);
      this.#status.fail(
        new OverlapError("provider_error", text || String(message.error), {
          details: { error: message.error },
        }),
      );
      return;
    }
    const rounds = this.#rounds;
    let round = rounds.last();
    if (!round || round.closed || (round.ended && round.messageId !== message.message.id)) {
      round = rounds.open();
      round.messageId = message.message.id;
    }
    for (const raw of message.message.content as unknown as AssistantContentBlock[]) {
      const block = localBlock(raw);
      round.blocks.push({ block, atMs: rounds.ms(round) });
      const index = round.blocks.length - 1;
      if (block.type === "tool_use") {
        round.calls.set(block.id, { block, index, name: block.name });
        // A block after the end (not expected): emitted and released at once.
        if (round.ended) {
          rounds.emitBlock(round, block, index);
          this.#gates.of(block.id).open(true);
        }
      } else if (round.ended) {
        rounds.emitBlock(round, block, index);
      }
    }
  }

  #onUser(message: Extract<SDKMessage, { type: "user" }>): Promise<void> | undefined {
    const content = message.message.content;
    if (!Array.isArray(content)) return;
    const round = this.#rounds.last();
    if (!round || round.closed) return;
    for (const block of content as unknown as Array<Record<string, unknown>>) {
      if (block.type !== "tool_result" || typeof block.tool_use_id !== "string") continue;
      round.answered.set(block.tool_use_id, {
        text: textOf(block.content),
        isError: block.is_error === true,
      });
    }
    if ([...round.calls.keys()].every((id) => round.answered.has(id))) {
      return this.#rounds.close(round, round.stopReason ?? "tool_use");
    }
    return;
  }

  #onResult(message: Extract<SDKMessage, { type: "result" }>): void {
    if (message.subtype === "success" && !message.is_error) {
      const last = this.#rounds.last();
      if (last?.stopReason) this.#status.stopReason = last.stopReason;
      return;
    }
    if (message.subtype === "error_max_turns") {
      this.#status.fail(new OverlapError("max_rounds", "The turn stopped after too many rounds."));
      return;
    }
    const text = "result" in message ? message.result : (message.errors ?? []).join("; ");
    this.#status.fail(
      new OverlapError("provider_error", text || message.subtype, {
        details: { subtype: message.subtype },
      }),
    );
  }
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .flatMap((b) =>
      b && typeof b === "object" && (b as { type?: unknown }).type === "text"
        ? [String((b as { text?: unknown }).text ?? "")]
        : [],
    )
    .join("\n");
}

function withoutNulls(usage: Partial<Usage>): Partial<Usage> {
  return Object.fromEntries(Object.entries(usage).filter(([, v]) => v !== null)) as Partial<Usage>;
}
