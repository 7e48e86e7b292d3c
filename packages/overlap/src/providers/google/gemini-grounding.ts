/**
 * Gemini grounding (`googleSearch`, `urlContext`...), read when a response finishes. Each
 * `groundingSupports` entry becomes one citation per grounding chunk it names, on the text block
 * its segment starts in, while that block is still open (the segment's `startIndex` / `endIndex`
 * count UTF-8 bytes of the response's answer text, thoughts excluded; the citation's
 * `start_index` / `end_index` count the block's UTF-16 code units, as JavaScript strings do):
 * `{ type: "gemini_grounding", cited_text, start_index, end_index, url, title,
 * grounding_chunk_index, confidence? }`. A support of a block already closed (text before a
 * call), or of no text, gets no citation. The metadata itself is kept whole in a last
 * {@link GeminiGroundingBlock} (search queries, the search entry point the API asks apps to show,
 * chunks no support names); the API takes neither back, so `geminiRequestBody` leaves both out.
 */

/** The block type holding a response's grounding metadata. */
export const GEMINI_GROUNDING = "gemini_grounding_metadata";

/**
 * Gemini API only: a response's `groundingMetadata` exactly as received (`groundingChunks`,
 * `groundingSupports`, `webSearchQueries`, `searchEntryPoint`...), for display; its supports are
 * also citations on the text they belong to. Never sent back (the API takes no grounding in
 * `contents`); every adapter leaves it out.
 */
export interface GeminiGroundingBlock {
  type: typeof GEMINI_GROUNDING;
  metadata: Readonly<Record<string, unknown>>;
}

/** The citation type of a grounding support (see the module comment of this file). */
export const GEMINI_GROUNDING_CITATION = "gemini_grounding";

/** A text block and where it sits in the response's answer text (for grounding supports). */
export interface TextSpan {
  index: number;
  /** UTF-8 bytes of answer text before it. */
  startByte: number;
  text: string;
  open: boolean;
}

/** The citations of a response's grounding supports, each with the text block it belongs on. */
export function groundingCitations(
  grounding: Record<string, unknown>,
  spans: readonly TextSpan[],
): { index: number; citation: Record<string, unknown> }[] {
  const found: { index: number; citation: Record<string, unknown> }[] = [];
  const chunks = Array.isArray(grounding.groundingChunks) ? grounding.groundingChunks : [];
  const supports = Array.isArray(grounding.groundingSupports) ? grounding.groundingSupports : [];
  for (const support of supports) {
    if (!isRecord(support) || !isRecord(support.segment)) continue;
    const start = Number(support.segment.startIndex ?? 0);
    const end = Number(support.segment.endIndex ?? start);
    if (!Number.isInteger(start) || !Number.isInteger(end) || end < start) continue;
    const span = spans.findLast((s) => s.startByte <= start);
    if (!span?.open) continue;
    const from = utf16Offset(span.text, start - span.startByte);
    const to = utf16Offset(span.text, end - span.startByte);
    if (from >= span.text.length) continue;
    const indices = Array.isArray(support.groundingChunkIndices)
      ? support.groundingChunkIndices
      : [];
    const scores = Array.isArray(support.confidenceScores) ? support.confidenceScores : [];
    const cited = support.segment.text;
    const citedText = typeof cited === "string" ? cited : span.text.slice(from, to);
    indices.forEach((chunkIndex, i) => {
      const citation: Record<string, unknown> = {
        type: GEMINI_GROUNDING_CITATION,
        cited_text: citedText,
        start_index: from,
        end_index: to,
        ...sourceOf(chunks[Number(chunkIndex)]),
        grounding_chunk_index: chunkIndex,
      };
      if (typeof scores[i] === "number") citation.confidence = scores[i];
      found.push({ index: span.index, citation });
    });
  }
  return found;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The UTF-8 length of `text`, the unit of grounding segments. */
export function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** The UTF-16 offset in `text` of its `bytes`-th UTF-8 byte (clamped to the text). */
function utf16Offset(text: string, bytes: number): number {
  let count = 0;
  let i = 0;
  while (i < text.length && count < bytes) {
    const point = text.codePointAt(i) ?? 0;
    count += point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
    i += point >= 0x10000 ? 2 : 1;
  }
  return i;
}

/** `url` and `title` of a grounding chunk (`web`, `retrievedContext`, `maps`...). */
function sourceOf(chunk: unknown): Record<string, unknown> {
  if (!isRecord(chunk)) return {};
  const source = Object.values(chunk).find(isRecord);
  if (!source) return {};
  const out: Record<string, unknown> = {};
  if (typeof source.uri === "string") out.url = source.uri;
  if (typeof source.title === "string") out.title = source.title;
  return out;
}
