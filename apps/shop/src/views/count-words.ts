/**
 * Counts in English words: "1 item", "2 items", never "1 items" or "2 line(s)". Tool results are
 * read by models and by people (the scripted model and the web UI quote parts of them), so they
 * say what a person would write.
 */

/** `n` with its noun, singular for exactly one: `countOf(1, "item")` is "1 item". */
export function countOf(n: number | string, noun: string, plural = `${noun}s`): string {
  return `${n} ${Number(n) === 1 ? noun : plural}`;
}
