/**
 * ResponsesEventTranslator: a pure state machine that turns OpenAI Responses API stream
 * events into the neutral stream events. The Responses API streams output items, each with an
 * explicit end, so no end-of-call signal has to be guessed:
 *
 * - a function call starts at `response.output_item.added` (item `function_call`, with its
 *   `call_id` and `name`); its arguments stream in `response.function_call_arguments.delta`
 *   (keyed by `item_id`, else `output_index`); it is complete at
 *   `response.function_call_arguments.done` or `response.output_item.done`, whichever comes
 *   first. That is the call's block stop (moment 2), never a parse of its arguments so far;
 * - text is one text block per content part of a `message` item (`output_text`, and `refusal`,
 *   kept as text with stop reason `refusal`), closed by its `content_part.done` (a refusal by
 *   its `refusal.done`) or its item's done; the part's annotations (`url_citation`,
 *   `file_citation`, `container_file_citation`, `file_path`) are its block's citations, as
 *   received (`response.output_text.annotation.added`, and what the done part or item adds);
 * - a `reasoning` item is kept whole as an `openai_reasoning` block once it is done (its summary
 *   deltas are not shown as thinking: the item, encrypted content included, is what must be sent
 *   back); its block position is reserved when it starts, so blocks keep the items' order;
 * - any other item (provider-side: `web_search_call`, `file_search_call`, `code_interpreter_call`,
 *   `mcp_list_tools`, `mcp_call`, `image_generation_call`, xAI's `custom_tool_call`, types added
 *   later) is run by the provider, never here: once it is done it becomes a `server_tool_use`
 *   block (id: the item's `id`; name: its `name`, else its `server_label` (`mcp_list_tools`),
 *   else its type without `_call`; input: the
 *   fields that describe the call, for display) followed by an `openai_tool_result` block
 *   holding the item exactly as received, which is what goes back in the next request. Their
 *   positions are reserved when the item starts; their progress events
 *   (`response.web_search_call.searching`, code and argument deltas...) are not translated;
 * - the stream ends with `response.completed` (stop reason `tool_use` when the response called a
 *   function, else `end_turn`), `response.incomplete` (`max_output_tokens` → `max_tokens`,
 *   `content_filter` → `refusal`) or `response.failed` / `error` (a neutral `error` event).
 *   Usage comes from the final response.
 *
 * The final `.done` values are the truth: a done text or argument string that extends what was
 * streamed has its missing rest emitted; items present only in the final response's `output`
 * (never streamed) are added then.
 */

import type { Usage } from "../../protocol/usage.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { BlockWriter } from "../block-writer.js";
import {
  appendText,
  type CallState,
  callArgs,
  cite,
  closePart,
  type ItemState,
  type MessageState,
  openCall,
  openPart,
  type PartState,
  type ProviderState,
  reconcileArgs,
  reconcileCitations,
  reconcileText,
} from "./responses-item-blocks.js";
import {
  CALL_FIELDS,
  idFields,
  itemFields,
  MESSAGE_FIELDS,
  nonEmpty,
  providerInput,
} from "./responses-items.js";
import type {
  ResponsesItem,
  ResponsesResponse,
  ResponsesStreamEvent,
} from "./responses-stream-types.js";

export type {
  ResponsesItem,
  ResponsesResponse,
  ResponsesStreamEvent,
} from "./responses-stream-types.js";

/** Translates one Responses API stream. Create one per response. */
export class ResponsesEventTranslator {
  #started = false;
  #finished = false;
  readonly #blocks = new BlockWriter();
  /** Items by output_index. */
  readonly #items = new Map<number, ItemState>();
  /** output_index by item id. */
  readonly #byId = new Map<string, number>();
  #calls = 0;
  #refused = false;
  #synthesizedIds = 0;
  #unnamedItems = 0;

  /** True once the response ended (completed, incomplete, failed or an error event). */
  get finished(): boolean {
    return this.#finished;
  }

  /** Neutral events for one Responses event, in order. */
  push(event: ResponsesStreamEvent): StreamEvent[] {
    if (this.#finished || event === null || typeof event !== "object") return [];
    const out: StreamEvent[] = [];
    this.#start(out, event.type === "response.created" ? event.response : undefined);
    switch (event.type) {
      case "response.output_item.added":
        this.#itemAdded(out, event.output_index, event.item);
        break;
      case "response.output_item.done":
        this.#itemDone(out, event.output_index, event.item);
        break;
      case "response.content_part.added":
        this.#partStarted(out, event);
        break;
      case "response.output_text.delta":
        this.#partDelta(out, event, event.delta);
        break;
      case "response.refusal.delta":
        this.#refused = true;
        this.#partDelta(out, event, event.delta);
        break;
      case "response.output_text.done":
        // The part closes at its content_part.done, which carries its final annotations.
        this.#partText(out, event, event.text);
        break;
      case "response.output_text.annotation.added":
        this.#annotation(out, event);
        break;
      case "response.refusal.done":
        this.#refused = true;
        this.#partDone(out, event, event.refusal);
        break;
      case "response.content_part.done":
        if (event.part?.type === "refusal") this.#refused = true;
        this.#partDone(
          out,
          event,
          event.part?.text ?? event.part?.refusal,
          event.part?.annotations,
        );
        break;
      case "response.function_call_arguments.delta":
        this.#argsDelta(out, event);
        break;
      case "response.function_call_arguments.done":
        this.#argsDone(out, event);
        break;
      case "response.completed":
      case "response.incomplete":
        this.#finish(out, event.type, event.response);
        break;
      case "response.failed": {
        const error = event.response?.error;
        this.#fail(out, error?.code ?? "response_failed", error?.message ?? "The response failed.");
        break;
      }
      case "error":
        this.#fail(
          out,
          event.code ?? event.error?.code ?? event.error?.type ?? "error",
          event.message ?? event.error?.message ?? "The model stream reported an error.",
        );
        break;
      default:
        // response.created / in_progress / queued, reasoning summary deltas (the reasoning item
        // arrives whole), provider-side items' progress (they arrive whole), keepalive and event
        // types added later.
        break;
    }
    return out;
  }

  /**
   * Ends the stream. The terminal event already ended the message; a stream that stopped without
   * one (connection cut) gets nothing more, so the round sees a cut.
   */
  end(): StreamEvent[] {
    return [];
  }

  #start(out: StreamEvent[], response: ResponsesResponse | undefined): void {
    if (this.#started) return;
    this.#started = true;
    out.push({
      type: "message_start",
      message: {
        id: response?.id ?? "",
        model: response?.model ?? "",
        role: "assistant",
        content: [],
        stop_reason: null,
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    });
  }

  // Items

  #itemAdded(out: StreamEvent[], outputIndex: number | undefined, item: ResponsesItem | undefined) {
    if (outputIndex === undefined || !item || this.#items.has(outputIndex)) return;
    const state = this.#newState(item);
    this.#items.set(outputIndex, state);
    if (typeof item.id === "string" && item.id !== "") this.#byId.set(item.id, outputIndex);
    // A message's first text block opens with it, so blocks keep the items' order even when
    // its text comes after a later item started.
    if (state.kind === "message") openPart(this.#blocks, out, state, 0);
    if (state.kind === "call") {
      openCall(this.#blocks, out, state);
      if (typeof item.arguments === "string" && item.arguments !== "") {
        callArgs(this.#blocks, out, state, item.arguments);
      }
    }
  }

  #newState(item: ResponsesItem): ItemState {
    switch (item.type) {
      case "function_call":
        this.#calls++;
        return {
          kind: "call",
          fields: itemFields(item, CALL_FIELDS),
          callId: nonEmpty(item.call_id),
          name: nonEmpty(item.name),
          block: undefined,
          args: "",
          pending: "",
          done: false,
        };
      case "message":
        return {
          kind: "message",
          fields: itemFields(item, MESSAGE_FIELDS),
          parts: new Map(),
          done: false,
        };
      case "reasoning":
        return { kind: "reasoning", block: this.#blocks.reserve(), done: false };
      default: {
        if (nonEmpty(item.type) === undefined) return { kind: "other", done: false };
        const block = this.#blocks.reserve();
        this.#blocks.reserve(); // its result's block
        return { kind: "provider", block, done: false };
      }
    }
  }

  #itemDone(out: StreamEvent[], outputIndex: number | undefined, item: ResponsesItem | undefined) {
    if (outputIndex === undefined || !item) return;
    let state = this.#items.get(outputIndex);
    if (!state) {
      // Never announced: the done item is the whole item.
      this.#itemAdded(
        out,
        outputIndex,
        item.type === "function_call" ? { ...item, arguments: "" } : item,
      );
      state = this.#items.get(outputIndex);
      if (!state) return;
    }
    if (state.done) return;
    switch (state.kind) {
      case "call":
        state.callId ??= nonEmpty(item.call_id);
        state.name ??= nonEmpty(item.name);
        openCall(this.#blocks, out, state);
        if (typeof item.arguments === "string")
          reconcileArgs(this.#blocks, out, state, item.arguments);
        this.#closeCall(out, state);
        return;
      case "message": {
        state.done = true;
        const content = Array.isArray(item.content) ? item.content : [];
        content.forEach((part, i) => {
          if (part?.type === "refusal") this.#refused = true;
          const text = part?.type === "refusal" ? part.refusal : part?.text;
          const known = state.parts.get(i);
          if (known) {
            reconcileText(this.#blocks, out, known, text);
            reconcileCitations(this.#blocks, out, known, part?.annotations);
            closePart(this.#blocks, out, known);
          } else if (typeof text === "string" && text !== "") {
            const opened = openPart(this.#blocks, out, state, i);
            reconcileText(this.#blocks, out, opened, text);
            reconcileCitations(this.#blocks, out, opened, part?.annotations);
            closePart(this.#blocks, out, opened);
          }
        });
        for (const part of state.parts.values()) closePart(this.#blocks, out, part);
        return;
      }
      case "reasoning":
        state.done = true;
        this.#blocks.open(
          out,
          { type: "openai_reasoning", item: structuredClone(item) as Record<string, unknown> },
          state.block,
        );
        this.#blocks.close(out, state.block);
        return;
      case "provider":
        state.done = true;
        this.#providerItem(out, state, item);
        return;
      case "other":
        state.done = true;
        return;
    }
  }

  /** A provider-side item, done: its call block and its result block (the item, whole). */
  #providerItem(out: StreamEvent[], state: ProviderState, item: ResponsesItem): void {
    const id = nonEmpty(item.id) ?? `openai_item_${++this.#unnamedItems}`;
    const name =
      nonEmpty(item.name) ?? nonEmpty(item.server_label) ?? String(item.type).replace(/_call$/, "");
    this.#blocks.open(out, { type: "server_tool_use", id, name, input: {} }, state.block);
    this.#blocks.args(out, state.block, JSON.stringify(providerInput(item)));
    this.#blocks.close(out, state.block);
    const content = structuredClone(item) as Record<string, unknown>;
    const result = { type: "openai_tool_result", tool_use_id: id, content } as const;
    this.#blocks.open(out, result, state.block + 1);
    this.#blocks.close(out, state.block + 1);
  }

  // Message parts (text and refusal)

  #message(event: ResponsesStreamEvent): MessageState | undefined {
    const index = this.#indexOf(event);
    if (index === undefined) return undefined;
    const state = this.#items.get(index);
    if (state === undefined) {
      // Text for an item never announced: a message.
      const created: MessageState = {
        kind: "message",
        fields: idFields(event.item_id),
        parts: new Map(),
        done: false,
      };
      this.#items.set(index, created);
      if (event.item_id) this.#byId.set(event.item_id, index);
      return created;
    }
    return state.kind === "message" && !state.done ? state : undefined;
  }

  #part(out: StreamEvent[], event: ResponsesStreamEvent): PartState | undefined {
    const message = this.#message(event);
    if (!message) return undefined;
    const index = event.content_index ?? 0;
    return message.parts.get(index) ?? openPart(this.#blocks, out, message, index);
  }

  #partStarted(out: StreamEvent[], event: ResponsesStreamEvent): void {
    if (event.part?.type === "refusal") this.#refused = true;
    const part = this.#part(out, event);
    const initial = event.part?.text ?? event.part?.refusal;
    if (part && typeof initial === "string" && initial !== "")
      appendText(this.#blocks, out, part, initial);
  }

  #partDelta(out: StreamEvent[], event: ResponsesStreamEvent, delta: string | undefined): void {
    const part = this.#part(out, event);
    if (part && !part.closed && typeof delta === "string" && delta !== "") {
      appendText(this.#blocks, out, part, delta);
    }
  }

  #partText(out: StreamEvent[], event: ResponsesStreamEvent, text: string | undefined): void {
    const part = this.#part(out, event);
    if (part) reconcileText(this.#blocks, out, part, text);
  }

  #partDone(
    out: StreamEvent[],
    event: ResponsesStreamEvent,
    text: string | undefined,
    annotations?: unknown,
  ): void {
    const part = this.#part(out, event);
    if (!part) return;
    reconcileText(this.#blocks, out, part, text);
    reconcileCitations(this.#blocks, out, part, annotations);
    closePart(this.#blocks, out, part);
  }

  #annotation(out: StreamEvent[], event: ResponsesStreamEvent): void {
    const part = this.#part(out, event);
    // An annotation announced twice (its index already emitted) is not a second citation.
    const index = event.annotation_index;
    if (!part || (typeof index === "number" && index < part.citations)) return;
    cite(this.#blocks, out, part, event.annotation);
  }

  // Function calls

  #call(event: ResponsesStreamEvent): CallState | undefined {
    const index = this.#indexOf(event);
    if (index === undefined) return undefined;
    let state = this.#items.get(index);
    if (state === undefined) {
      // Arguments for a call never announced: its id and name come with its done item.
      this.#calls++;
      state = {
        kind: "call",
        fields: idFields(event.item_id),
        callId: undefined,
        name: undefined,
        block: undefined,
        args: "",
        pending: "",
        done: false,
      };
      this.#items.set(index, state);
      if (event.item_id) this.#byId.set(event.item_id, index);
    }
    return state.kind === "call" && !state.done ? state : undefined;
  }

  #argsDelta(out: StreamEvent[], event: ResponsesStreamEvent): void {
    const call = this.#call(event);
    if (call && typeof event.delta === "string" && event.delta !== "") {
      callArgs(this.#blocks, out, call, event.delta);
    }
  }

  #argsDone(out: StreamEvent[], event: ResponsesStreamEvent): void {
    const call = this.#call(event);
    if (!call) return;
    if (typeof event.arguments === "string")
      reconcileArgs(this.#blocks, out, call, event.arguments);
    // A call whose name is not known yet completes with its done item.
    if (call.block !== undefined) this.#closeCall(out, call);
  }

  #closeCall(out: StreamEvent[], call: CallState): void {
    if (call.done) return;
    if (call.block === undefined) {
      // Never named (a malformed stream): still a call the model made, answered as unknown.
      call.callId ??= `call_synth_${++this.#synthesizedIds}`;
      call.name ??= "unnamed_tool";
      openCall(this.#blocks, out, call);
    }
    call.done = true;
    this.#blocks.close(out, call.block);
  }

  // The end

  #finish(out: StreamEvent[], type: string, response: ResponsesResponse | undefined): void {
    // Items only the final response holds (never streamed, or never finished) are taken from it.
    (response?.output ?? []).forEach((item, index) => {
      const state = this.#items.get(index);
      if (item && (state === undefined || !state.done)) this.#itemDone(out, index, item);
    });
    const open: Array<{ block: number; close: () => void }> = [];
    for (const state of this.#items.values()) {
      if (state.kind === "call" && !state.done && (state.block !== undefined || state.args)) {
        open.push({
          block: state.block ?? Number.POSITIVE_INFINITY,
          close: () => this.#closeCall(out, state),
        });
      } else if (state.kind === "message") {
        for (const part of state.parts.values()) {
          if (!part.closed)
            open.push({ block: part.block, close: () => closePart(this.#blocks, out, part) });
        }
      }
    }
    for (const { close } of open.sort((a, b) => a.block - b.block)) close();
    this.#finished = true;
    const usage: Usage = {};
    if (response?.usage?.input_tokens != null) usage.input_tokens = response.usage.input_tokens;
    if (response?.usage?.output_tokens != null) usage.output_tokens = response.usage.output_tokens;
    out.push({
      type: "message_delta",
      delta: { stop_reason: this.#stopReason(type, response) },
      usage,
    });
    out.push({ type: "message_stop" });
  }

  #stopReason(type: string, response: ResponsesResponse | undefined): string {
    if (type === "response.incomplete") {
      return response?.incomplete_details?.reason === "content_filter" ? "refusal" : "max_tokens";
    }
    if (this.#calls > 0) return "tool_use";
    return this.#refused ? "refusal" : "end_turn";
  }

  #fail(out: StreamEvent[], type: string, message: string): void {
    this.#finished = true;
    out.push({ type: "error", error: { type, message } });
  }

  #indexOf(event: ResponsesStreamEvent): number | undefined {
    const byId = event.item_id === undefined ? undefined : this.#byId.get(event.item_id);
    return byId ?? event.output_index;
  }
}
