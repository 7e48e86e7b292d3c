/**
 * Coalesces argument previews: at most one `tool-input-preview` per call per interval, with a
 * trailing emission so the last state shows even when deltas pause. Snapshots are taken only when
 * an event is actually sent, so preview work follows the interval, not the delta rate.
 */

interface Pending {
  lastSentAt: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  send: (() => void) | undefined;
}

/** Throttles preview emission per call id. */
export class PreviewCoalescer {
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #calls = new Map<string, Pending>();

  constructor(intervalMs: number, now: () => number) {
    this.#intervalMs = intervalMs;
    this.#now = now;
  }

  /** Marks the call's preview as changed; `send` builds and emits it when its turn comes. */
  update(callId: string, send: () => void): void {
    let state = this.#calls.get(callId);
    if (!state) {
      state = { lastSentAt: Number.NEGATIVE_INFINITY, timer: undefined, send: undefined };
      this.#calls.set(callId, state);
    }
    state.send = send;
    // A preview already due on a timer takes this delta too: no clock read per delta (during a
    // long synchronous pass the timer sends it once the pass yields, rather than mid-pass).
    if (state.timer !== undefined) return;
    const wait = state.lastSentAt + this.#intervalMs - this.#now();
    if (wait <= 0) {
      this.#fire(state);
    } else {
      const pending = state;
      pending.timer = setTimeout(() => {
        pending.timer = undefined;
        this.#fire(pending);
      }, wait);
    }
  }

  /** Drops a pending preview of the call: its complete input supersedes it. */
  finish(callId: string): void {
    const state = this.#calls.get(callId);
    if (state?.timer !== undefined) clearTimeout(state.timer);
    this.#calls.delete(callId);
  }

  /** Drops every pending preview (end of round). */
  dispose(): void {
    for (const id of [...this.#calls.keys()]) this.finish(id);
  }

  #fire(state: Pending): void {
    const send = state.send;
    state.send = undefined;
    if (!send) return;
    state.lastSentAt = this.#now();
    send();
  }
}
