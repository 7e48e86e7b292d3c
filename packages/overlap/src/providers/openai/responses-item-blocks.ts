/**
 * The states of a Responses stream's output items, and how the blocks of messages and function
 * calls are written from them: a message's content parts each become a text block, a call's
 * arguments are held until its block can start (it needs both call_id and name), and the final
 * `.done` values, when they extend what was streamed, supply the missing rest.
 */

import type { TextBlock, ToolUseBlock } from "../../stream/message.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import type { BlockWriter, HeldCall } from "../block-writer.js";
import { isRecord } from "./responses-items.js";

export interface CallState extends HeldCall {
  kind: "call";
  /** The item's own fields kept on the block (`openai_item`). */
  fields: Record<string, unknown>;
  callId: string | undefined;
  name: string | undefined;
  /** Argument text received (sent, or pending until the block opens: needs call_id and name). */
  args: string;
  done: boolean;
}

export interface PartState {
  block: number;
  text: string;
  /** Annotations emitted as citations. */
  citations: number;
  closed: boolean;
}

export interface MessageState {
  kind: "message";
  /** The item's own fields kept on each of its text blocks (`openai_item`). */
  fields: Record<string, unknown>;
  parts: Map<number, PartState>;
  done: boolean;
}

export interface ReasoningState {
  kind: "reasoning";
  /** Block index reserved when the item started. */
  block: number;
  done: boolean;
}

/** A provider-side item: its call block, then its result block (reserved when it started). */
export interface ProviderState {
  kind: "provider";
  block: number;
  done: boolean;
}

export interface OtherState {
  kind: "other";
  done: boolean;
}

export type ItemState = CallState | MessageState | ReasoningState | ProviderState | OtherState;

/** One annotation as a citation on its part's block, unless the part is closed. */
export function cite(
  blocks: BlockWriter,
  out: StreamEvent[],
  part: PartState,
  annotation: unknown,
): void {
  if (part.closed || !isRecord(annotation)) return;
  part.citations++;
  blocks.delta(out, part.block, {
    type: "citations_delta",
    citation: structuredClone(annotation),
  });
}

/** The done part's annotations are the truth: those past the ones streamed are emitted. */
export function reconcileCitations(
  blocks: BlockWriter,
  out: StreamEvent[],
  part: PartState,
  annotations: unknown,
): void {
  if (!Array.isArray(annotations)) return;
  for (const annotation of annotations.slice(part.citations)) cite(blocks, out, part, annotation);
}

/** Starts the text block of a message's content part. */
export function openPart(
  blocks: BlockWriter,
  out: StreamEvent[],
  message: MessageState,
  contentIndex: number,
): PartState {
  const block: TextBlock = { type: "text", text: "" };
  if (Object.keys(message.fields).length > 0) block.openai_item = { ...message.fields };
  const part: PartState = {
    block: blocks.open(out, block),
    text: "",
    citations: 0,
    closed: false,
  };
  message.parts.set(contentIndex, part);
  return part;
}

/** Streamed text of a part: kept (to reconcile with the final text) and sent. */
export function appendText(
  blocks: BlockWriter,
  out: StreamEvent[],
  part: PartState,
  text: string,
): void {
  part.text += text;
  blocks.delta(out, part.block, { type: "text_delta", text });
}

/** The final text is the truth: what it adds to the streamed text is emitted. */
export function reconcileText(
  blocks: BlockWriter,
  out: StreamEvent[],
  part: PartState,
  final: string | undefined,
): void {
  if (part.closed || typeof final !== "string" || final.length <= part.text.length) return;
  if (final.startsWith(part.text)) appendText(blocks, out, part, final.slice(part.text.length));
}

/** Stops a part's block once. */
export function closePart(blocks: BlockWriter, out: StreamEvent[], part: PartState): void {
  if (part.closed) return;
  part.closed = true;
  blocks.close(out, part.block);
}

/** Starts a call's block once its call_id and name are known, with the arguments held. */
export function openCall(blocks: BlockWriter, out: StreamEvent[], call: CallState): void {
  if (call.block !== undefined || call.callId === undefined || call.name === undefined) return;
  const block: ToolUseBlock = {
    type: "tool_use",
    id: call.callId,
    name: call.name,
    input: {},
  };
  if (Object.keys(call.fields).length > 0) block.openai_item = { ...call.fields };
  blocks.openCall(out, call, block);
}

/** Argument text of a call: kept (to reconcile with the done arguments), sent or held. */
export function callArgs(
  blocks: BlockWriter,
  out: StreamEvent[],
  call: CallState,
  text: string,
): void {
  call.args += text;
  blocks.callArgs(out, call, text);
}

/**
 * The done arguments are the truth: what they add to the streamed text is emitted. Text that
 * contradicts what was streamed cannot be taken back; the streamed text stays.
 */
export function reconcileArgs(
  blocks: BlockWriter,
  out: StreamEvent[],
  call: CallState,
  final: string,
): void {
  if (final.length > call.args.length && final.startsWith(call.args)) {
    callArgs(blocks, out, call, final.slice(call.args.length));
  }
}
