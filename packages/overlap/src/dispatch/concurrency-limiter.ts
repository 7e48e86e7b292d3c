/**
 * ConcurrencyLimiter: at most `limit` holders at once, waiters admitted in the order they asked
 * (p-limit's guarantee). A freed slot is handed straight to the next waiter, so the count of
 * holders never exceeds the limit, not even between a release and the grant that follows it.
 */

/** A slot asked for: held once `granted` settles (at once when one was free). */
export interface ConcurrencySlot {
  granted: Promise<void>;
  /** Whether the slot had to be waited for (every slot was held when it was asked for). */
  queued: boolean;
}

/** At most `limit` holders at once; the holder of a granted slot calls {@link release} once. */
export class ConcurrencyLimiter {
  readonly #limit: number;
  /** Waiters for a slot, in the order they asked. */
  readonly #waiting: Array<() => void> = [];
  #active = 0;

  /** `limit` is a positive integer or `Infinity` (the default: no limit). */
  constructor(limit: number = Number.POSITIVE_INFINITY) {
    if (!(limit === Number.POSITIVE_INFINITY || (Number.isInteger(limit) && limit > 0))) {
      // 0, NaN or a negative limit would queue every call forever.
      throw new RangeError(`concurrency must be a positive integer, got ${limit}.`);
    }
    this.#limit = limit;
  }

  /** Slots held now (past the limit only after {@link admitAll}). */
  get active(): number {
    return this.#active;
  }

  /** Waiters not yet granted a slot. */
  get pending(): number {
    return this.#waiting.length;
  }

  /** Asks for a slot: granted now when one is free, else after every earlier waiter. */
  acquire(): ConcurrencySlot {
    if (this.#active < this.#limit) {
      this.#active++;
      return { granted: Promise.resolve(), queued: false };
    }
    return { granted: new Promise<void>((grant) => this.#waiting.push(grant)), queued: true };
  }

  /** Gives a held slot back: the longest waiter gets it, or it becomes free. */
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#active--;
  }

  /**
   * Grants every waiter its slot now, past the limit. For a cancelled round: each waiter sees the
   * abort as soon as it is granted, answers without running, and releases its slot.
   */
  admitAll(): void {
    for (const grant of this.#waiting.splice(0)) {
      this.#active++; // each admitted waiter holds a slot until it releases it
      grant();
    }
  }
}
