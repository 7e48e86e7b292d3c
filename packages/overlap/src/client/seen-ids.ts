/**
 * The ids of the events a state has applied, as an immutable set. The reducer is pure, so every
 * event needs a new set; copying a plain Set per event would cost O(n) each, O(n²) over a long
 * conversation of thousands of text deltas. Instead the newest ids sit in a short tail and are
 * sealed into runs that merge like a binary counter (sizes strictly decreasing): `add` is amortized
 * O(log n), `has` looks at O(log n) runs, and no run is ever mutated after it is built, so older
 * states stay valid.
 */

/** Ids kept unsealed before they become a run: small enough to copy on every add. */
const TAIL_LIMIT = 32;

/** An immutable set of event ids. */
export class SeenIds {
  /** The empty set. */
  static readonly empty: SeenIds = new SeenIds([], []);

  /** Sealed runs, largest first; each is never mutated after construction. */
  readonly runs: readonly ReadonlySet<string>[];
  /** The newest ids, not yet sealed into a run. */
  readonly tail: readonly string[];

  private constructor(runs: readonly ReadonlySet<string>[], tail: readonly string[]) {
    this.runs = runs;
    this.tail = tail;
  }

  /** Number of ids in the set. */
  get size(): number {
    let size = this.tail.length;
    for (const run of this.runs) size += run.size;
    return size;
  }

  /** True when `id` was added. */
  has(id: string): boolean {
    if (this.tail.includes(id)) return true;
    for (const run of this.runs) if (run.has(id)) return true;
    return false;
  }

  /** A set with `id` added; this same set when it already holds `id`. */
  add(id: string): SeenIds {
    if (this.has(id)) return this;
    const tail = [...this.tail, id];
    if (tail.length < TAIL_LIMIT) return new SeenIds(this.runs, tail);
    const runs = [...this.runs];
    let run: ReadonlySet<string> = new Set(tail);
    // Merge with every run not larger than the new one: sizes stay strictly decreasing.
    for (let last = runs.at(-1); last !== undefined && last.size <= run.size; last = runs.at(-1)) {
      runs.pop();
      run = new Set([...last, ...run]);
    }
    runs.push(run);
    return new SeenIds(runs, []);
  }
}
