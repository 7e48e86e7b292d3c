/**
 * BlockWriter: the part every stream translator shares. Each wire format announces content its own
 * way, but all of them end up as the neutral block events: an index per block (dense, increasing,
 * in the order the blocks are allocated), a start, deltas, one stop. Writing those here, once,
 * keeps the guarantees the block assembler relies on in one place: a stop only for an open block,
 * never two stops for one block, deltas only between start and stop, and the end of a stream
 * closing whatever is still open in index order.
 *
 * A tool call's name can arrive after its first argument text (Chat Completions, the AI SDK); the
 * block cannot start without the name, so `HeldCall` keeps that text until `openCall` starts the
 * block and sends it as the first delta.
 *
 * Pure: it returns nothing to await and appends events to the array it is given.
 */

import type { ContentDelta, StartedContentBlock, StreamEvent } from "../stream/stream-event.js";

/** A tool call whose block may not have started yet: argument text before that is held. */
export interface HeldCall {
  /** The neutral block index, once the block started. */
  block: number | undefined;
  /** Argument text received before the block started, sent as its first delta. */
  pending: string;
}

/** Allocates block indexes and writes block start / delta / stop events. One per response. */
export class BlockWriter {
  #next = 0;
  /** Blocks started and not yet stopped. */
  readonly #open = new Set<number>();

  /** Allocates the next index without starting its block (a format that numbers ahead). */
  reserve(): number {
    return this.#next++;
  }

  /** Starts a block, at a fresh index unless a reserved one is given; returns its index. */
  open(out: StreamEvent[], block: StartedContentBlock, index: number = this.reserve()): number {
    this.#open.add(index);
    out.push({ type: "content_block_start", index, content_block: block });
    return index;
  }

  /** A delta on an open block; dropped if the block is not open (a stop already ended it). */
  delta(out: StreamEvent[], index: number, delta: ContentDelta): void {
    if (!this.#open.has(index)) return;
    out.push({ type: "content_block_delta", index, delta });
  }

  /** Argument text of a tool block; empty text sends nothing. */
  args(out: StreamEvent[], index: number, text: string): void {
    if (text !== "") this.delta(out, index, { type: "input_json_delta", partial_json: text });
  }

  /** Stops an open block; false (and nothing written) if it was not open. */
  close(out: StreamEvent[], index: number | undefined): boolean {
    if (index === undefined || !this.#open.delete(index)) return false;
    out.push({ type: "content_block_stop", index });
    return true;
  }

  /** Stops every open block, lowest index first. */
  closeAll(out: StreamEvent[]): void {
    for (const index of [...this.#open].sort((a, b) => a - b)) this.close(out, index);
  }

  /** True while the block at `index` is started and not stopped. */
  isOpen(index: number | undefined): boolean {
    return index !== undefined && this.#open.has(index);
  }

  /** How many indexes were allocated so far (the next block's index). */
  get allocated(): number {
    return this.#next;
  }

  /** Argument text for a call: held until its block starts, sent as a delta after. */
  callArgs(out: StreamEvent[], call: HeldCall, text: string): void {
    if (call.block === undefined) call.pending += text;
    else this.args(out, call.block, text);
  }

  /** Starts a call's block and sends the argument text held so far. */
  openCall(out: StreamEvent[], call: HeldCall, block: StartedContentBlock, index?: number): number {
    call.block = this.open(out, block, index);
    this.args(out, call.block, call.pending);
    call.pending = "";
    return call.block;
  }
}
