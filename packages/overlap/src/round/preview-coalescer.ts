/**
 * Coalesces argument previews: at most one `tool-input-preview` per call per interval, sent by
 * the first delta past it, with a trailing emission (at most two intervals after the last one
 * sent) so the last state shows even when deltas pause. Snapshots are taken only when an event is
 * actually sent, so preview work follows the interval, not the delta rate.
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
    const now = this.#now();
    if (now - state.lastSentAt >= this.#intervalMs) {
      // Due: the delta carries the preview, and the timer waiting for a pause is not needed.
      if (state.timer !== undefined) {
        clearTimeout(state.timer);
        state.timer = undefined;
      }
      this.#fire(state, now);
      return;
    }
    // Not due yet: while deltas keep coming, the first one past the interval sends it (no timer
    // fires: each would be one more wake-up of the process). A timer is only for a pause in the
    // deltas, one interval after the preview was due, so that the last state still shows.
    if (state.timer !== undefined) return;
    const pending = state;
    pending.timer = setTimeout(
      () => {
        pending.timer = undefined;
        this.#fire(pending, this.#now());
      },
      state.lastSentAt + 2 * this.#intervalMs - now,
    );
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

  #fire(state: Pending, now: number): void {
    const send = state.send;
    state.send = undefined;
    if (!send) return;
    state.lastSentAt = now;
    send();
  }
}
