/**
 * Benchmark: tool-argument previews while the arguments stream.
 *
 * What is measured:
 * - A deterministic tool input `{ "query": ..., "filters": {...}, "items": [ ...products ] }` of
 *   about 32 KiB, 64 KiB and 256 KiB of JSON text (UTF-8 bytes). Products carry sku, name (some
 *   with CJK text, emoji, quotes, backslashes, newlines and control characters, so the text holds
 *   escapes and surrogate pairs), price, tags, stock, rating and dimensions.
 * - The text is fed in deltas of 4 UTF-16 code units (about 4 bytes: deltas may split a surrogate
 *   pair, as a provider's stream could) and a preview is taken after every delta, as a UI would.
 *   (a) `PartialJsonParser`: `push(delta)` then `snapshot()`. Warm-up run, then best of several.
 *   (b) The naive approach with the `partial-json` package: append the delta to the accumulated
 *       text and `parse()` all of it again. Quadratic, so it runs once per size (32 and 64 KiB).
 *   Speedup = (b) / (a); the goal is at least 100x.
 * - Linearity: `push` only (no snapshots) over the 256 KiB and the 64 KiB inputs, one document
 *   per sample, best of many samples after warm-up. The time ratio should stay near the size
 *   ratio (about 4); the goal is at most 5x. (With a snapshot per delta the cost is not linear
 *   by design: each snapshot copies the open `items` array, whose length grows with the input.)
 * - Both approaches' final previews are checked against `JSON.parse` before any figure is trusted.
 *
 * Output: a table on stdout and, as the very last line, one JSON object
 * `{"bench":"preview-parse", ...figures}`.
 *
 * Run alone with `node --conditions=overlap-source --import tsx bench/src/preview-parse.ts`. Importing the
 * module runs the benchmark once (top level), so `run-all.ts` only has to import it; it never
 * calls `process.exit`. {@link main} is exported too.
 */

import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { parse as partialJsonParse } from "partial-json";
import { PartialJsonParser } from "../../packages/overlap/src/json/partial-json-parser.js";

/** Size of each streamed delta, in UTF-16 code units. */
const DELTA = 4;
/** Timed runs of our parser per measurement (after one warm-up run); the best one counts. */
const RUNS = 7;
/**
 * Linearity samples per size. Each sample feeds the document once; the best sample is the one
 * least disturbed by garbage collection and other processes, which is what a ratio needs.
 */
const LINEARITY_RUNS = 21;
const SPEEDUP_GOAL = 100;
const LINEARITY_GOAL = 5;

/** Figures printed as the last line. Times in milliseconds. */
export interface PreviewParseFigures {
  bench: "preview-parse";
  deltaChars: number;
  bytes32k: number;
  bytes64k: number;
  bytes256k: number;
  deltas32k: number;
  deltas64k: number;
  deltas256k: number;
  oursMs32k: number;
  oursMs64k: number;
  oursMs256k: number;
  partialJsonMs32k: number;
  partialJsonMs64k: number;
  speedup32k: number;
  speedup64k: number;
  pushOnlyMs64k: number;
  pushOnlyMs256k: number;
  sizeRatio: number;
  linearityRatio: number;
  goalsMet: { speedup: boolean; linearity: boolean };
}

/** Small deterministic PRNG (xorshift32): the same input on every run and machine. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x1_0000_0000;
  };
}

const ADJECTIVES = ["Classic", "Organic", "Compact", "Deluxe", "Waterproof", "Vintage", "Smart"];
const NOUNS = ["Kettle", "Backpack", "Desk Lamp", "Tea Set", "Sneaker", "Notebook", "Headphones"];
/** Names that put escapes, CJK text and astral characters into the JSON text. */
const SPECIAL_NAMES = [
  "抹茶ラテ 粉末 200g",
  "竹製のまな板（大）",
  "无线降噪耳机",
  "保温ボトル 500ml",
  'The "Original" Trail Mix',
  "Path C:\\Users\\shop\\catalog",
  "Two-line\nlabel\twith tab",
  "Bell \u0007 and form feed \f",
  "Party Pack \u{1F389}\u{1F381}",
  "Café crème brûlée \u{1F370}",
];
const TAGS = ["sale", "new", "eco", "gift", "bestseller", "limited", "bundle", "和風", "限定"];

function product(i: number, rand: () => number): Record<string, unknown> {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const name =
    rand() < 0.3 ? pick(SPECIAL_NAMES) : `${pick(ADJECTIVES)} ${pick(NOUNS)} ${100 + (i % 900)}`;
  const tags = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(TAGS));
  return {
    sku: `SKU-${String(i).padStart(6, "0")}`,
    name,
    price: Math.round(rand() * 50_000) / 100,
    currency: "EUR",
    tags,
    inStock: rand() < 0.8,
    rating: rand() < 0.2 ? null : Math.round(rand() * 50) / 10,
    dims: { w: Math.round(rand() * 100), h: Math.round(rand() * 100), d: Math.round(rand() * 100) },
  };
}

/** A tool input of at least `targetBytes` bytes of (UTF-8) JSON text. */
function buildInput(targetBytes: number): string {
  const rand = rng(0x5eed_1234);
  const items: Record<string, unknown>[] = [];
  const base = {
    query: "gifts under 50 € for a tea lover — 茶道具, \"matcha\" & 'sencha'",
    filters: { maxPrice: 50, currency: "EUR", inStockOnly: true, tags: ["gift", "和風"] },
    items,
  };
  let bytes = Buffer.byteLength(JSON.stringify(base));
  for (let i = 0; bytes < targetBytes; i++) {
    const item = product(i, rand);
    items.push(item);
    bytes += Buffer.byteLength(JSON.stringify(item)) + 1; // + the separating comma
  }
  return JSON.stringify(base);
}

function deltasOf(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += DELTA) out.push(text.slice(i, i + DELTA));
  return out;
}

/** Our parser, one snapshot per delta. Returns the final preview. */
function feedOurs(deltas: readonly string[], snapshots: boolean): unknown {
  const parser = new PartialJsonParser();
  let last: unknown;
  for (const delta of deltas) {
    parser.push(delta);
    if (snapshots) last = parser.snapshot();
  }
  return snapshots ? last : parser.snapshot();
}

/** The naive approach: re-parse the whole accumulated text after every delta. */
function feedPartialJson(deltas: readonly string[]): unknown {
  let text = "";
  let last: unknown;
  for (const delta of deltas) {
    text += delta;
    try {
      last = partialJsonParse(text);
    } catch {
      // Nothing parseable yet (e.g. only `{"`): the preview stays as it was.
    }
  }
  return last;
}

function timeOnce(fn: () => unknown): { ms: number; result: unknown } {
  const start = performance.now();
  const result = fn();
  return { ms: performance.now() - start, result };
}

/** Best time of RUNS runs after one warm-up run. */
function bestOf(fn: () => unknown, runs = RUNS): number {
  fn();
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < runs; r++) best = Math.min(best, timeOnce(fn).ms);
  return best;
}

/** Best time of each of two functions over `runs` alternating samples. */
function interleavedBest(a: () => unknown, b: () => unknown, runs: number): [number, number] {
  const gc = (globalThis as { gc?: () => void }).gc;
  let bestA = Number.POSITIVE_INFINITY;
  let bestB = Number.POSITIVE_INFINITY;
  for (let r = 0; r < runs; r++) {
    gc?.();
    bestA = Math.min(bestA, timeOnce(a).ms);
    gc?.();
    bestB = Math.min(bestB, timeOnce(b).ms);
  }
  return [bestA, bestB];
}

const round = (x: number, digits = 2): number => Number(x.toFixed(digits));

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))))
    .map((r) => r.join("  "))
    .join("\n");
}

/** Runs the benchmark, prints the table and the JSON line, and returns the figures. */
export function main(): PreviewParseFigures {
  const docs = {
    "32k": buildInput(32 * 1024),
    "64k": buildInput(64 * 1024),
    "256k": buildInput(256 * 1024),
  };
  const deltas = {
    "32k": deltasOf(docs["32k"]),
    "64k": deltasOf(docs["64k"]),
    "256k": deltasOf(docs["256k"]),
  };

  // Correctness first: a fast wrong answer is worth nothing.
  for (const key of ["32k", "64k", "256k"] as const) {
    assert.deepStrictEqual(feedOurs(deltas[key], true), JSON.parse(docs[key]));
  }

  const ours32 = bestOf(() => feedOurs(deltas["32k"], true));
  const ours64 = bestOf(() => feedOurs(deltas["64k"], true));
  const ours256 = bestOf(() => feedOurs(deltas["256k"], true));

  const pj32 = timeOnce(() => feedPartialJson(deltas["32k"]));
  assert.deepStrictEqual(pj32.result, JSON.parse(docs["32k"]));
  const pj64 = timeOnce(() => feedPartialJson(deltas["64k"]));
  assert.deepStrictEqual(pj64.result, JSON.parse(docs["64k"]));

  const pushOnly = (d: readonly string[]) => () => feedOurs(d, false);
  // Warm up both sizes first so neither benefits from running second.
  for (let r = 0; r < 3; r++) {
    pushOnly(deltas["64k"])();
    pushOnly(deltas["256k"])();
  }
  // Interleaved samples, each from a collected heap when `--expose-gc` is on: load from other
  // processes then hits both sizes alike, and no sample pays for the garbage of the one before.
  const [push64, push256] = interleavedBest(
    pushOnly(deltas["64k"]),
    pushOnly(deltas["256k"]),
    LINEARITY_RUNS,
  );

  const bytes = (k: keyof typeof docs) => Buffer.byteLength(docs[k]);
  const speedup32k = pj32.ms / ours32;
  const speedup64k = pj64.ms / ours64;
  const linearityRatio = push256 / push64;
  const figures: PreviewParseFigures = {
    bench: "preview-parse",
    deltaChars: DELTA,
    bytes32k: bytes("32k"),
    bytes64k: bytes("64k"),
    bytes256k: bytes("256k"),
    deltas32k: deltas["32k"].length,
    deltas64k: deltas["64k"].length,
    deltas256k: deltas["256k"].length,
    oursMs32k: round(ours32),
    oursMs64k: round(ours64),
    oursMs256k: round(ours256),
    partialJsonMs32k: round(pj32.ms, 0),
    partialJsonMs64k: round(pj64.ms, 0),
    speedup32k: round(speedup32k, 0),
    speedup64k: round(speedup64k, 0),
    pushOnlyMs64k: round(push64, 3),
    pushOnlyMs256k: round(push256, 3),
    sizeRatio: round(bytes("256k") / bytes("64k")),
    linearityRatio: round(linearityRatio),
    goalsMet: {
      speedup: speedup32k >= SPEEDUP_GOAL && speedup64k >= SPEEDUP_GOAL,
      linearity: linearityRatio <= LINEARITY_GOAL,
    },
  };

  const ms = (x: number) => `${x.toFixed(2)} ms`;
  console.log(
    `preview-parse: tool input streamed in ${DELTA}-char deltas, a preview after every delta\n`,
  );
  console.log(
    table([
      ["input", "bytes", "deltas", "PartialJsonParser", "partial-json (re-parse)", "speedup"],
      [
        "32 KiB",
        String(figures.bytes32k),
        String(figures.deltas32k),
        ms(ours32),
        ms(pj32.ms),
        `${speedup32k.toFixed(0)}x`,
      ],
      [
        "64 KiB",
        String(figures.bytes64k),
        String(figures.deltas64k),
        ms(ours64),
        ms(pj64.ms),
        `${speedup64k.toFixed(0)}x`,
      ],
      [
        "256 KiB",
        String(figures.bytes256k),
        String(figures.deltas256k),
        ms(ours256),
        "(not run: quadratic)",
        "",
      ],
    ]),
  );
  console.log(
    `\nPartialJsonParser: best of ${RUNS} after warm-up; partial-json: one run per size.` +
      `\nSpeedup goal >= ${SPEEDUP_GOAL}x: ${figures.goalsMet.speedup ? "met" : "NOT met"}\n`,
  );
  console.log(
    table([
      [`linearity (push only, no snapshots, best of ${LINEARITY_RUNS})`, "time per document"],
      ["64 KiB", `${push64.toFixed(3)} ms`],
      ["256 KiB", `${push256.toFixed(3)} ms`],
      [
        `ratio (size ratio ${figures.sizeRatio})`,
        `${linearityRatio.toFixed(2)}x (goal <= ${LINEARITY_GOAL}x: ${figures.goalsMet.linearity ? "met" : "NOT met"})`,
      ],
    ]),
  );
  console.log(JSON.stringify(figures));
  return figures;
}

main();
