/**
 * GeminiCallIds: ids for the calls of one Gemini response. Gemini calls usually come without an
 * id; each gets the API's id when it has one not used yet, else `<prefix>-<n>`, so ids are unique
 * in the conversation without relying on the assembler's renaming.
 */
export class GeminiCallIds {
  readonly #used = new Set<string>();
  #prefix = "";

  /** Sets the prefix: the one given, else `gemini-<responseId>` (random without a response id). */
  begin(responseId: string | undefined, prefix: string | undefined): void {
    this.#prefix = prefix ?? `gemini-${idSafe(responseId) || randomId()}`;
  }

  /** The id `given` when it is unused, else `<prefix>-<suffix>` (then `-2`, `-3`... if taken). */
  take(given: string | undefined, suffix: string): string {
    let id = given && !this.#used.has(given) ? given : this.synthesized(suffix);
    for (let n = 2; this.#used.has(id); n++) id = `${this.synthesized(suffix)}-${n}`;
    this.#used.add(id);
    return id;
  }

  /** `<prefix>-<suffix>`, not reserved. */
  synthesized(suffix: string): string {
    return `${this.#prefix}-${suffix}`;
  }
}

/** A response id usable inside a call id (the Messages API allows `[A-Za-z0-9_-]`). */
function idSafe(id: string | undefined): string {
  return (id ?? "").replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 48);
}

function randomId(): string {
  const bytes = new Uint8Array(9);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
