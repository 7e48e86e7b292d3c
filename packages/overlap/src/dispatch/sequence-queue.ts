/**
 * SequenceQueue: entries naming one sequence take turns, one at a time, in the order they entered,
 * whatever order they end in. A place can be held ahead of time (a deferred call is noted when its
 * block stops but starts only at the round's join): later entries of its sequence wait for it
 * until it enters and ends, or gives the place up. Entries are keyed (by call id); sequences are
 * independent of one another.
 */

/** An entry's place in its sequence. */
export interface SequencePlace {
  /** Settles once every entry ahead has left; `undefined` when none was ahead at entry. */
  turn: Promise<void> | undefined;
  /** The entry is done: the next one of its sequence may go. Calling it again does nothing. */
  leave(): void;
}

interface HeldPlace {
  /** What was ahead of the place when it was held. */
  previous: Promise<void> | undefined;
  /** Ends the place: what came after it may go. */
  end: () => void;
}

/** Turns per sequence, in entry order, with places held for entries that come later. */
export class SequenceQueue {
  /** Per sequence: settles when the last entry so far (or held place) has left. */
  readonly #tails = new Map<string, Promise<void>>();
  readonly #held = new Map<string, HeldPlace>();

  /** Whether `key` holds a place it has neither entered nor given up. */
  holds(key: string): boolean {
    return this.#held.has(key);
  }

  /** Holds a place for `key` at the sequence's end now; a second hold of the key does nothing. */
  hold(key: string, sequence: string): void {
    if (this.#held.has(key)) return;
    const { previous, end } = this.#append(sequence);
    this.#held.set(key, { previous, end });
  }

  /**
   * Enters `key` into its sequence: at the place it holds, else at the end. It goes when `turn`
   * settles and must `leave` when done.
   */
  enter(key: string, sequence: string): SequencePlace {
    const held = this.#held.get(key);
    if (held) {
      this.#held.delete(key);
      return { turn: held.previous, leave: held.end };
    }
    const { previous, end } = this.#append(sequence);
    return { turn: previous, leave: end };
  }

  /** Gives up the place `key` holds (it will not enter): what waits behind it may go. */
  free(key: string): void {
    this.#held.get(key)?.end();
    this.#held.delete(key);
  }

  /** Gives up every place still held. */
  freeAll(): void {
    for (const key of [...this.#held.keys()]) this.free(key);
  }

  /** A new last place of the sequence: what is ahead of it, and the function that ends it. */
  #append(sequence: string): HeldPlace {
    const previous = this.#tails.get(sequence);
    let end = () => {};
    const left = new Promise<void>((resolve) => {
      end = resolve;
    });
    // The place ends once it was left and everything ahead of it has ended: an entry that leaves
    // before its turn (refused while it waited) lets no later one past those still ahead.
    const ended = previous ? Promise.all([previous, left]).then(() => {}) : left;
    this.#tails.set(sequence, ended);
    // Once the last place has ended with nothing after it, nothing is ahead of the next entry.
    void ended.then(() => {
      if (this.#tails.get(sequence) === ended) this.#tails.delete(sequence);
    });
    return { previous, end };
  }
}
