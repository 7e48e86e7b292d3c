/**
 * ChatChunkTranslator: a pure state machine that turns OpenAI Chat Completions stream
 * chunks into the neutral stream events. Chat Completions has no per-call end event, so this is
 * where the end-of-call signal is synthesised: a call is complete when a later call starts (a
 * higher index, or a new id at the same index, as some servers send every parallel call at index
 * 0) and a chunk brings nothing more for it, or when `finish_reason` arrives. Never because its
 * arguments happen to parse. A delta's `annotations` (the search models' `url_citation`s) are
 * citations on the open text block.
 */

import type { StreamEvent } from "../../stream/stream-event.js";
import { BlockWriter, type HeldCall } from "../block-writer.js";

/** The parts of a Chat Completions chunk the translator reads (the SDK's type is wider). */
export interface ChatChunk {
  id?: string;
  model?: string;
  choices?: Array<{
    index?: number;
    delta?: {
      role?: string | null;
      content?: string | null;
      /** A refusal to answer (OpenAI): kept as the message's text; the stop reason is `refusal`. */
      refusal?: string | null;
      /** Reasoning text of vLLM / DeepSeek-style servers. */
      reasoning_content?: string | null;
      /** Reasoning text of Ollama-style servers. */
      reasoning?: string | null;
      /** Sources of the text (the search models' `url_citation` annotations, after the text). */
      annotations?: Array<{ type?: string; url_citation?: Record<string, unknown> }> | null;
      tool_calls?: Array<{
        index?: number;
        id?: string | null;
        type?: string | null;
        function?: { name?: string | null; arguments?: string | null } | null;
      }> | null;
    } | null;
    finish_reason?: string | null;
  }> | null;
  usage?: { prompt_tokens?: number | null; completion_tokens?: number | null } | null;
}

/** A call still open; its block starts once both id and name are known. */
interface OpenCall extends HeldCall {
  id: string;
  name: string | undefined;
}

/**
 * The citation type of a Chat Completions `url_citation` annotation: its `url_citation` fields
 * (`url`, `title`, `start_index`, `end_index`: offsets in the message's whole content) beside it.
 * Never sent back (an assistant message of Chat Completions takes no annotations).
 */
export const CHAT_URL_CITATION = "chat_url_citation";

/** Translates one Chat Completions stream. Create one per response. */
export class ChatChunkTranslator {
  #started = false;
  readonly #blocks = new BlockWriter();
  #text: number | undefined;
  #thinking: number | undefined;
  /** Calls still open, by the server's tool-call index. */
  readonly #calls = new Map<number, OpenCall>();
  #synthesizedIds = 0;
  #finishReason: string | undefined;
  #refused = false;
  #usage: { input_tokens?: number; output_tokens?: number } = {};

  /** True once a finish_reason was seen: the message is complete. */
  get finished(): boolean {
    return this.#finishReason !== undefined;
  }

  /** Neutral events for one chunk, in order. */
  push(chunk: ChatChunk): StreamEvent[] {
    const out: StreamEvent[] = [];
    if (!this.#started) {
      this.#started = true;
      out.push({
        type: "message_start",
        message: {
          id: chunk.id ?? "",
          model: chunk.model ?? "",
          role: "assistant",
          content: [],
          stop_reason: null,
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      });
    }
    if (chunk.usage) {
      if (chunk.usage.prompt_tokens != null) this.#usage.input_tokens = chunk.usage.prompt_tokens;
      if (chunk.usage.completion_tokens != null) {
        this.#usage.output_tokens = chunk.usage.completion_tokens;
      }
    }
    for (const choice of chunk.choices ?? []) {
      // Only the first choice (n = 1) is a conversation turn.
      if ((choice.index ?? 0) !== 0) continue;
      const delta = choice.delta ?? {};
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (reasoning) {
        this.#thinking ??= this.#blocks.open(out, {
          type: "thinking",
          thinking: "",
          signature: "",
        });
        this.#blocks.delta(out, this.#thinking, { type: "thinking_delta", thinking: reasoning });
      }
      if (delta.content) {
        this.#closeThinking(out); // reasoning comes first; the answer ends it
        this.#text ??= this.#blocks.open(out, { type: "text", text: "" });
        this.#blocks.delta(out, this.#text, { type: "text_delta", text: delta.content });
      }
      if (delta.refusal) {
        this.#refused = true;
        this.#closeThinking(out);
        this.#text ??= this.#blocks.open(out, { type: "text", text: "" });
        this.#blocks.delta(out, this.#text, { type: "text_delta", text: delta.refusal });
      }
      for (const annotation of delta.annotations ?? []) {
        // They cite the text before them; with none open there is nothing to put them on.
        if (this.#text === undefined || annotation.type !== "url_citation") continue;
        const citation = { type: CHAT_URL_CITATION, ...structuredClone(annotation.url_citation) };
        this.#blocks.delta(out, this.#text, { type: "citations_delta", citation });
      }
      const fragments = delta.tool_calls ?? [];
      // Before this chunk's fragments, so a finished call stops before the next one starts.
      this.#closeSuperseded(out, new Set(fragments.map((f) => f.index ?? 0)));
      for (const fragment of fragments) this.#toolFragment(out, fragment);
      if (choice.finish_reason) {
        this.#finishReason = choice.finish_reason;
        this.#closeAll(out);
      }
    }
    return out;
  }

  /**
   * Ends the stream. A finished message gets its message_delta (stop reason, usage) and
   * message_stop; an unfinished one (connection cut) gets nothing more, so the round sees a cut.
   */
  end(): StreamEvent[] {
    if (!this.#started || this.#finishReason === undefined) return [];
    // A refusal ends with finish_reason "stop": the refusal is the reason the message ended.
    const stopReason =
      this.#refused && this.#finishReason === "stop" ? "refusal" : this.#finishReason;
    return [
      { type: "message_delta", delta: { stop_reason: stopReason }, usage: this.#usage },
      { type: "message_stop" },
    ];
  }

  #toolFragment(
    out: StreamEvent[],
    fragment: NonNullable<
      NonNullable<NonNullable<ChatChunk["choices"]>[number]["delta"]>["tool_calls"]
    >[number],
  ): void {
    const index = fragment.index ?? 0;
    const id = fragment.id ?? undefined;
    let call = this.#calls.get(index);
    if (!call || (id && id !== call.id)) {
      // A new id at an index still open: that call is complete (servers that put every call at
      // index 0). Calls at lower indexes are closed by #closeSuperseded.
      if (call) this.#closeCall(out, index, call);
      // Text and reasoning before a call are done (a timeline shows them ending here).
      this.#closeThinking(out);
      this.#closeText(out);
      call = {
        block: undefined,
        id: id || `call_synth_${++this.#synthesizedIds}`,
        name: undefined,
        pending: "",
      };
      this.#calls.set(index, call);
    }
    // The name comes whole with the call's first fragment; later name fields are never appended.
    if (call.name === undefined && fragment.function?.name) call.name = fragment.function.name;
    this.#blocks.callArgs(out, call, fragment.function?.arguments ?? "");
    if (call.block === undefined && call.name !== undefined) {
      this.#blocks.openCall(out, call, {
        type: "tool_use",
        id: call.id,
        name: call.name,
        input: {},
      });
    }
  }

  #closeCall(out: StreamEvent[], index: number, call: OpenCall): void {
    this.#calls.delete(index);
    if (call.block === undefined) {
      // Never named: still a call the model made, answered as an unknown tool by the executor.
      call.name = "unnamed_tool";
      this.#blocks.openCall(out, call, {
        type: "tool_use",
        id: call.id,
        name: call.name,
        input: {},
      });
    }
    this.#blocks.close(out, call.block);
  }

  /**
   * A call is complete once a call at a higher index has started and a chunk brings nothing more
   * for it. Waiting for such a chunk (instead of closing when the higher index first appears)
   * keeps servers that interleave the fragments of parallel calls correct; for the usual
   * one-after-another order it closes the call with the chunk that starts the next one.
   */
  #closeSuperseded(out: StreamEvent[], touched: ReadonlySet<number>): void {
    if (this.#calls.size === 0 || touched.size === 0) return;
    const highest = Math.max(...this.#calls.keys(), ...touched);
    for (const [index, call] of [...this.#calls]) {
      if (index < highest && !touched.has(index)) this.#closeCall(out, index, call);
    }
  }

  #closeText(out: StreamEvent[]): void {
    this.#blocks.close(out, this.#text);
    this.#text = undefined;
  }

  #closeThinking(out: StreamEvent[]): void {
    this.#blocks.close(out, this.#thinking);
    this.#thinking = undefined;
  }

  #closeAll(out: StreamEvent[]): void {
    this.#closeThinking(out);
    this.#closeText(out);
    const calls = [...this.#calls].sort(
      (a, b) => (a[1].block ?? Number.POSITIVE_INFINITY) - (b[1].block ?? Number.POSITIVE_INFINITY),
    );
    for (const [serverIndex, call] of calls) this.#closeCall(out, serverIndex, call);
  }
}
