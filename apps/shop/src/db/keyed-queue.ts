/**
 * A FIFO queue per key: tasks with the same key run one at a time, in the order `run` was called;
 * tasks with different keys run independently. The in-process half of the per-session lock:
 * it makes "add A, add B, then total" apply in call order, which a database lock alone does not
 * promise (waiters on a database lock are not guaranteed to be woken in arrival order).
 */
export class KeyedQueue {
  /** The last task of each key, settled or not; a key leaves the map once its queue drains. */
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `task` after every task queued earlier under `key` has settled. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    // A failed task must not block the ones behind it: the tail swallows outcomes.
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** Number of keys with queued or running tasks. */
  get activeKeys(): number {
    return this.#tails.size;
  }
}
