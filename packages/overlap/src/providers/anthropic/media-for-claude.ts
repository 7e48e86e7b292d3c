/**
 * The user's images and files as the Messages API takes them. overlap's image and document blocks
 * are the API's own, with two additions it does not know: a URL source's `media_type` (removed
 * here) and documents of any media type (the API reads PDFs and plain text; a base64 text/plain
 * document becomes a text source, anything else ends the turn with an error naming the part).
 *
 * A conversation that needs no change is returned as it is (same array, same objects), so its
 * bytes stay the same for prompt caching.
 */

import {
  bytesOfBase64,
  isMediaBlock,
  type MediaBlock,
  unsupportedMedia,
} from "../../agent/media-parts.js";
import type { Message, UserContentBlock } from "../../stream/message.js";

const IMAGE_TYPES: ReadonlySet<string> = new Set([
  "image/jpeg",
  "image/png",
  "image/gif",
  "image/webp",
]);

/** The source types overlap models; the API's others pass through. */
const OWN_SOURCES: ReadonlySet<string> = new Set(["base64", "url", "text"]);

const TAKES =
  "images (JPEG, PNG, GIF, WebP; inline or at a URL) and documents (PDF inline or at a URL, plain text)";

/** The conversation with its images and documents as the Messages API takes them. */
export function mediaForClaude(messages: readonly Message[]): readonly Message[] {
  let out: Message[] | undefined;
  messages.forEach((message, i) => {
    if (message.role !== "user" || typeof message.content === "string") return;
    const blocks = message.content;
    let content: UserContentBlock[] | undefined;
    blocks.forEach((block, j) => {
      if (!isMediaBlock(block)) return;
      const sent = forClaude(block, i, j);
      if (sent === block) return;
      content ??= [...blocks];
      content[j] = sent;
    });
    if (!content) return;
    out ??= [...messages];
    out[i] = { ...message, content };
  });
  return out ?? messages;
}

function forClaude(block: MediaBlock, i: number, j: number): MediaBlock {
  const source = block.source;
  const mediaType = source.media_type;
  const refused = () => unsupportedMedia(i, j, block, "the Anthropic Messages API", TAKES);
  // A source of the API's own that overlap does not model (a Files API `file_id`) goes as it is.
  if (!OWN_SOURCES.has((source as { type: string }).type)) return block;
  if (source.type === "url") {
    if (block.type === "image" ? !isImageType(mediaType, true) : !isPdf(mediaType, true)) {
      throw refused();
    }
    if (mediaType === undefined) return block;
    return { ...block, source: { type: "url", url: source.url } };
  }
  if (block.type === "image") {
    if (source.type !== "base64" || !isImageType(mediaType, false)) throw refused();
    return block;
  }
  if (source.type === "text" || mediaType === "application/pdf") return block;
  if (mediaType === "text/plain" && source.type === "base64") {
    const text = new TextDecoder().decode(bytesOfBase64(source.data));
    return { ...block, source: { type: "text", media_type: "text/plain", data: text } };
  }
  throw refused();
}

/** A URL's media type may be unstated (the API reads it from the response) or generic. */
function isImageType(mediaType: string | undefined, atUrl: boolean): boolean {
  if (mediaType === undefined || mediaType === "image/*") return atUrl;
  return IMAGE_TYPES.has(mediaType);
}

function isPdf(mediaType: string | undefined, atUrl: boolean): boolean {
  return mediaType === "application/pdf" || (atUrl && mediaType === undefined);
}
