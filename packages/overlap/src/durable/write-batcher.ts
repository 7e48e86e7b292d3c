/**
 * Group writes: the first write goes out at once; writes that arrive while one is in flight wait
 * for it and then go out together, as one statement. A round's calls complete close together
 * (eight calls in a few milliseconds), and each write on its own is a transaction, with its commit
 * (an fsync) and, on a pool, a connection of its own: grouped, a round pays one or two. No write
 * is held back when none is in flight, so a lone write costs what it did.
 */
export class WriteBatcher<T> {
  readonly #write: (items: T[]) => Promise<void>;
  readonly #max: number;
  #queue: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  #flushing = false;

  /** `write` stores its items in one statement; at most `max` items go in one. */
  constructor(write: (items: T[]) => Promise<void>, max = 100) {
    this.#write = write;
    this.#max = max;
  }

  /** Settles when the item's group is stored (rejects with the group's error). */
  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (!this.#flushing) void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    this.#flushing = true;
    try {
      while (this.#queue.length > 0) {
        const group = this.#queue.splice(0, this.#max);
        try {
          await this.#write(group.map((entry) => entry.item));
          for (const entry of group) entry.resolve();
        } catch (error) {
          for (const entry of group) entry.reject(error);
        }
      }
    } finally {
      this.#flushing = false;
    }
  }
}
