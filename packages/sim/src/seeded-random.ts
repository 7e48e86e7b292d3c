/**
 * A small deterministic pseudo-random generator (mulberry32 style). Everything the simulator
 * varies (ids, delta sizes, delays) draws from one of these, so a seed reproduces a response.
 * Not for anything security related.
 */
export class SeededRandom {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    const lo = Math.ceil(Math.min(min, max));
    const hi = Math.floor(Math.max(min, max));
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** `length` characters drawn from `alphabet`. */
  string(alphabet: string, length: number): string {
    let out = "";
    for (let i = 0; i < length; i++)
      out += alphabet.charAt(Math.floor(this.next() * alphabet.length));
    return out;
  }
}

/**
 * Mixes a seed with a text (FNV-1a over the UTF-16 units, then a final avalanche), giving a
 * 32-bit seed. Used to derive one seed per request from the server seed and the request body, so
 * every round of a conversation gets fresh ids while the same request always gets the same ones.
 */
export function mixSeed(seed: number, text: string): number {
  let h = (0x811c9dc5 ^ (seed >>> 0)) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}
