/**
 * Turns a response's blocks into a timed sequence, like a model generating tokens: a first-token
 * latency, then deltas at a token rate with jitter. Pure: the HTTP layer sleeps until
 * `start + atMs` for each item (absolute times, so slow writes do not accumulate drift).
 */

import { SeededRandom } from "./seeded-random.js";
import { parseSpecList, SimSpecError } from "./sim-spec-error.js";

/** How a response is paced. */
export interface Pacing {
  /** Generation speed; tokens are approximated as 4 characters. */
  tokensPerSecond: number;
  /** Time from the request to the first content delta. */
  firstTokenMs: number;
  /** Size range (in characters, both included) of text and thinking deltas: a few tokens. */
  textDeltaChars: readonly [number, number];
  /** Size range of tool argument deltas: small, as the real APIs send them. */
  argDeltaChars: readonly [number, number];
  /** How much each delay varies, 0 (steady) to 1 (from 0 to twice the nominal delay). */
  jitter: number;
  /** Seeds delta sizes and jitter. */
  seed: number;
  /** No waiting at all: every item at 0 ms (for tests). Delta sizes stay the same. */
  fast: boolean;
  /** How long a server-side tool (web search) takes before its result block arrives. */
  serverToolMs: number;
}

/** The defaults: roughly a fast hosted model. */
export const defaultPacing: Readonly<Pacing> = Object.freeze({
  tokensPerSecond: 60,
  firstTokenMs: 300,
  textDeltaChars: [4, 20] as const,
  argDeltaChars: [2, 12] as const,
  jitter: 0.25,
  seed: 1,
  fast: false,
  serverToolMs: 600,
});

/** The defaults with `partial` applied. */
export function resolvePacing(partial: Partial<Pacing> = {}): Pacing {
  const pacing = { ...defaultPacing, ...partial };
  if (!(pacing.tokensPerSecond > 0)) throw new RangeError("tokensPerSecond must be positive.");
  if (!(pacing.firstTokenMs >= 0)) throw new RangeError("firstTokenMs must be 0 or more.");
  if (!(pacing.jitter >= 0 && pacing.jitter <= 1))
    throw new RangeError("jitter must be within 0..1.");
  for (const [name, range] of [
    ["textDeltaChars", pacing.textDeltaChars],
    ["argDeltaChars", pacing.argDeltaChars],
  ] as const) {
    if (!(range[0] >= 1 && range[1] >= range[0])) {
      throw new RangeError(`${name} must be a range [min, max] with 1 <= min <= max.`);
    }
  }
  return pacing;
}

/** The largest `tokens-per-second` and `first-token-ms` a request may ask for. */
const MAX_REQUEST_TOKENS_PER_SECOND = 10_000;
const MAX_REQUEST_FIRST_TOKEN_MS = 60_000;

/**
 * The server's pacing with a request's `x-sim-pacing` header applied: comma-separated
 * `tokens-per-second=N` (1..10000) and `first-token-ms=N` (0..60000), e.g. to show one visitor a
 * slower model than the next.
 * @throws SimSpecError for an unknown name or a bad value.
 */
export function requestPacing(config: Pacing, header: string | undefined): Pacing {
  const pacing = { ...config };
  for (const { name, value } of parseSpecList(header)) {
    const n = Number(value);
    const bad = value === undefined || value === "" || !Number.isFinite(n);
    if (name === "tokens-per-second") {
      if (bad || n < 1 || n > MAX_REQUEST_TOKENS_PER_SECOND) {
        throw new SimSpecError(
          `Pacing "tokens-per-second" takes a number from 1 to ${MAX_REQUEST_TOKENS_PER_SECOND}, as in "tokens-per-second=120".`,
        );
      }
      pacing.tokensPerSecond = n;
    } else if (name === "first-token-ms") {
      if (bad || n < 0 || n > MAX_REQUEST_FIRST_TOKEN_MS) {
        throw new SimSpecError(
          `Pacing "first-token-ms" takes a number from 0 to ${MAX_REQUEST_FIRST_TOKEN_MS}, as in "first-token-ms=300".`,
        );
      }
      pacing.firstTokenMs = n;
    } else {
      throw new SimSpecError(`Unknown pacing "${name}"; known: tokens-per-second, first-token-ms.`);
    }
  }
  return pacing;
}

/** The token estimate used for pacing and usage: about 4 characters a token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** One block to pace. */
export interface PaceBlock {
  /**
   * How the content arrives: in text-sized deltas (`text`, thinking), argument-sized deltas
   * (`args`), or `whole` in its start event after a server-side delay (web search results).
   */
  kind: "text" | "args" | "whole";
  /** The content to split into deltas (ignored for `whole`). */
  content: string;
}

/** One timed step of a response; `index` is the block's position in the input. */
export type PacedItem =
  | { type: "block-start"; index: number; atMs: number }
  | { type: "delta"; index: number; text: string; atMs: number }
  | { type: "block-stop"; index: number; atMs: number }
  | { type: "message-end"; atMs: number };

/**
 * Paces blocks: the first content delta at `firstTokenMs`, each later delta once its tokens are
 * generated (one token costs `1000 / tokensPerSecond` ms, varied by `jitter`), each block after
 * the first opened one token later (its type or tool name). Deltas never split a code point.
 */
export function paceBlocks(blocks: readonly PaceBlock[], pacing: Pacing): PacedItem[] {
  const random = new SeededRandom(pacing.seed);
  const msPerToken = 1000 / pacing.tokensPerSecond;
  const vary = (ms: number): number => ms * (1 + pacing.jitter * (2 * random.next() - 1));
  const items: PacedItem[] = [];
  const at = (ms: number): number => (pacing.fast ? 0 : Math.round(ms));
  let t = 0;
  let started = false;
  blocks.forEach((block, index) => {
    if (block.kind === "whole") {
      t = (started ? t : pacing.firstTokenMs) + vary(pacing.serverToolMs);
      started = true;
      items.push({ type: "block-start", index, atMs: at(t) });
      items.push({ type: "block-stop", index, atMs: at(t) });
      return;
    }
    const range = block.kind === "args" ? pacing.argDeltaChars : pacing.textDeltaChars;
    const pieces = split(block.content, range, random);
    let first = !started;
    if (first) t = vary(pacing.firstTokenMs);
    else t += vary(msPerToken);
    started = true;
    items.push({ type: "block-start", index, atMs: at(t) });
    for (const text of pieces) {
      // The message's very first delta is covered by the first-token latency.
      if (!first) t += vary(estimateTokens(text) * msPerToken);
      first = false;
      items.push({ type: "delta", index, text, atMs: at(t) });
    }
    items.push({ type: "block-stop", index, atMs: at(t) });
  });
  if (!started) t = pacing.firstTokenMs;
  items.push({ type: "message-end", atMs: at(t) });
  return items;
}

/** Cuts `text` into pieces of `range` code points (the last may be shorter). */
function split(text: string, range: readonly [number, number], random: SeededRandom): string[] {
  const points = Array.from(text);
  const pieces: string[] = [];
  for (let i = 0; i < points.length; ) {
    const size = random.int(range[0], range[1]);
    pieces.push(points.slice(i, i + size).join(""));
    i += size;
  }
  return pieces;
}
