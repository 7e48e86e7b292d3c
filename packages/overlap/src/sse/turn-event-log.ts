/**
 * TurnEventLog: every AgentEvent of one turn, numbered, kept until the turn is forgotten, so
 * a reader that reconnects with `Last-Event-ID` gets exactly what it missed and then the live
 * rest: nothing lost, nothing twice. Ids are `<turnId>:<seq>`; a reader that names another turn
 * (or nothing) gets this turn from its start.
 */

import type { AgentEvent } from "../protocol/agent-event.js";

/** One logged event with its SSE id. */
export interface LoggedEvent {
  id: string;
  event: AgentEvent;
}

/** The event log of one turn. Append-only; readers follow it live. */
export class TurnEventLog {
  readonly turnId: string;
  // The events alone: an entry's id is its position, made when it is read. A finished turn's log
  // is kept for replays (the shop keeps each chat's last one for minutes), and an id string and
  // an entry object per event would be a good part of what it holds.
  readonly #events: AgentEvent[] = [];
  /** One per reader that follows the log live, for as long as it reads. */
  readonly #waiters = new Set<() => void>();
  #closed = false;

  constructor(turnId: string) {
    if (/[\r\n:]/.test(turnId)) throw new TypeError("A turn id must not contain CR, LF or ':'.");
    this.turnId = turnId;
  }

  /** True once the turn ended (its `done` was logged); readers stop after the last entry. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Number of events logged. */
  get size(): number {
    return this.#events.length;
  }

  /** Logs an event and wakes the readers. Returns its id. Ignored after {@link close}. */
  append(event: AgentEvent): string | undefined {
    if (this.#closed) return undefined;
    this.#events.push(event);
    this.#wake();
    return `${this.turnId}:${this.#events.length}`;
  }

  /** Ends the turn: readers get the remaining entries and finish. */
  close(): void {
    this.#closed = true;
    this.#wake();
  }

  /** The position after `lastEventId` in this log: 0 (from the start) for another turn's id. */
  positionAfter(lastEventId: string | null | undefined): number {
    if (!lastEventId) return 0;
    const at = lastEventId.lastIndexOf(":");
    if (at === -1 || lastEventId.slice(0, at) !== this.turnId) return 0;
    const seq = Number(lastEventId.slice(at + 1));
    return Number.isInteger(seq) && seq >= 0 ? Math.min(seq, this.#events.length) : 0;
  }

  /**
   * The entries after `lastEventId`, then live ones as they are appended, until the turn is
   * closed or `signal` aborts (a disconnected reader; the turn itself goes on).
   */
  async *read(lastEventId?: string | null, signal?: AbortSignal): AsyncGenerator<LoggedEvent> {
    let next = this.positionAfter(lastEventId);
    // One waiter and one abort listener for the whole read, not one of each per wait: a live
    // reader waits between most events of a paced turn, and a busy server has hundreds of them.
    let resume: (() => void) | undefined;
    const wake = () => {
      const resolve = resume;
      resume = undefined;
      resolve?.();
    };
    this.#waiters.add(wake);
    signal?.addEventListener("abort", wake, { once: true });
    try {
      while (!signal?.aborted) {
        while (next < this.#events.length) {
          const event = this.#events[next] as AgentEvent;
          next++;
          yield { id: `${this.turnId}:${next}`, event };
          if (signal?.aborted) return;
        }
        if (this.#closed) return;
        await new Promise<void>((resolve) => {
          resume = resolve;
        });
      }
    } finally {
      this.#waiters.delete(wake);
      signal?.removeEventListener("abort", wake);
    }
  }

  #wake(): void {
    // A waiter only resolves its reader's promise: none joins or leaves the set meanwhile.
    for (const wake of this.#waiters) wake();
  }
}
