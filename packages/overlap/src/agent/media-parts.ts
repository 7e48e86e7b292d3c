/**
 * Images and files in user messages, between overlap's blocks (the Messages API's `image` and
 * `document`, see {@link FileSource}) and the other shapes: data URLs and URLs (useChat's file
 * parts, OpenAI's `image_url` and `file`), base64 text or bytes (the AI SDK's model messages).
 * And the one error every adapter and converter gives for a part its side cannot carry: it names
 * the message, the part and what the other side takes, so nothing is dropped silently.
 */

import { OverlapError } from "../errors.js";
import type { DocumentBlock, FileSource, ImageBlock, Message } from "../stream/message.js";

/** An image or a document block. */
export type MediaBlock = ImageBlock | DocumentBlock;

/** True for an image or a document block (of a user message). */
export function isMediaBlock(block: { type: string }): block is MediaBlock {
  return block.type === "image" || block.type === "document";
}

/** True when some user message of the conversation holds an image or a document. */
export function hasMedia(messages: readonly Message[]): boolean {
  return messages.some(
    (m) => m.role === "user" && typeof m.content !== "string" && m.content.some(isMediaBlock),
  );
}

/**
 * The block for a file of `mediaType` at `url` (a `data:` URL is read as base64): an image block
 * for `image/*`, a document block otherwise, titled with the file's name when there is one.
 */
export function mediaBlockOfUrl(url: string, mediaType?: string, filename?: string): MediaBlock {
  const inline = parseDataUrl(url);
  const source: FileSource = inline
    ? { type: "base64", media_type: mediaType || inline.mediaType, data: inline.data }
    : mediaType
      ? { type: "url", url, media_type: mediaType }
      : { type: "url", url };
  return mediaBlock(source, filename);
}

/** The block for a source: an image for `image/*` media, a document otherwise. */
export function mediaBlock(source: FileSource, filename?: string): MediaBlock {
  const mediaType = source.media_type ?? "";
  if (mediaType.startsWith("image/")) return { type: "image", source };
  return filename ? { type: "document", source, title: filename } : { type: "document", source };
}

/**
 * True for the sources overlap models (base64, URL, text); false for another the Messages API
 * has (a Files API `file_id`), which only that API can read.
 */
export function isKnownSource(source: { type?: unknown } | undefined): source is FileSource {
  return source?.type === "base64" || source?.type === "url" || source?.type === "text";
}

/** The media type of a block's source, when it says one. */
export function mediaTypeOf(block: MediaBlock): string | undefined {
  return block.source.media_type;
}

/** A `data:` URL's media type and base64 data; undefined for another URL. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]*)((?:;[^;,]*)*?)(;base64)?,(.*)$/s.exec(url);
  if (!match) return undefined;
  const mediaType = match[1] || "text/plain";
  const payload = match[4] ?? "";
  if (match[3]) return { mediaType, data: payload };
  return { mediaType, data: base64OfText(decodeURIComponent(payload)) };
}

/** A source as one URL: a `data:` URL for inline data, the URL itself otherwise. */
export function urlOfSource(source: FileSource): string {
  if (source.type === "url") return source.url;
  const data = source.type === "text" ? base64OfText(source.data) : source.data;
  return `data:${source.media_type};base64,${data}`;
}

/** A source's bytes as base64 (a URL source has none here). */
export function base64OfSource(source: FileSource): string | undefined {
  if (source.type === "base64") return source.data;
  if (source.type === "text") return base64OfText(source.data);
  return undefined;
}

/** UTF-8 text as base64 (no Buffer: this also runs in browsers and workers). */
export function base64OfText(text: string): string {
  return base64OfBytes(new TextEncoder().encode(text));
}

/** Bytes as base64. */
export function base64OfBytes(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** Base64 as bytes. */
export function bytesOfBase64(data: string): Uint8Array {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * The AI SDK's `DataContent | URL` (an image part's `image`, a file part's `data`) as a source:
 * a URL (object, `http(s):` or `data:` string) or base64 text or bytes; undefined for anything
 * else.
 */
export function sourceOfData(data: unknown, mediaType: string | undefined): FileSource | undefined {
  if (data instanceof URL) return sourceOfUrl(data.href, mediaType);
  let base64: string;
  if (typeof data === "string") {
    if (/^(https?|data):/i.test(data)) return sourceOfUrl(data, mediaType);
    base64 = data;
  } else if (data instanceof Uint8Array || data instanceof ArrayBuffer) {
    base64 = base64OfBytes(data instanceof Uint8Array ? data : new Uint8Array(data));
  } else {
    return undefined;
  }
  const known = mediaType && mediaType !== "image/*" ? mediaType : undefined;
  const media = known ?? sniffImageType(base64) ?? mediaType ?? "application/octet-stream";
  return { type: "base64", media_type: media, data: base64 };
}

/** The media type of base64 image data, from its first bytes, for the four common formats. */
function sniffImageType(base64: string): string | undefined {
  let head: Uint8Array;
  try {
    head = bytesOfBase64(base64.slice(0, 16));
  } catch {
    return undefined;
  }
  const ascii = (from: number, to: number) => String.fromCharCode(...head.subarray(from, to));
  if (head[0] === 0x89 && ascii(1, 4) === "PNG") return "image/png";
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image/jpeg";
  if (ascii(0, 4) === "GIF8") return "image/gif";
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  return undefined;
}

function sourceOfUrl(url: string, mediaType: string | undefined): FileSource {
  return mediaBlockOfUrl(url, mediaType).source;
}

/** A block in words, for an error: `an image (image/png, inline)`, `a document "a.pdf" (...)`. */
export function describeMedia(block: MediaBlock): string {
  const where = block.source.type === "url" ? `at ${block.source.url.slice(0, 60)}` : "inline";
  const stated = mediaTypeOf(block);
  const type =
    stated === undefined || stated.endsWith("/*")
      ? "media type not stated: give the part its media type"
      : stated;
  const title = block.type === "document" && block.title ? ` "${block.title}"` : "";
  return `${block.type === "image" ? "an image" : "a document"}${title} (${type}, ${where})`;
}

/**
 * The error for a user part a provider (or a shape) cannot carry: names the message, the part,
 * and what `target` takes instead. Reported in the turn's result (`invalid_conversation`).
 */
export function unsupportedMedia(
  messageIndex: number,
  partIndex: number,
  block: MediaBlock,
  target: string,
  takes: string,
): OverlapError {
  return new OverlapError(
    "invalid_conversation",
    `Message ${messageIndex}, part ${partIndex} is ${describeMedia(block)}, which ${target} cannot carry: it takes ${takes}. Convert the file, or send its content as text.`,
    { details: { messageIndex, partIndex, type: block.type, mediaType: mediaTypeOf(block) } },
  );
}

/** Calls `visit` with each image and document block of the user messages, and its position. */
export function forEachMedia(
  messages: readonly Message[],
  visit: (block: MediaBlock, messageIndex: number, partIndex: number) => void,
): void {
  messages.forEach((message, i) => {
    if (message.role !== "user" || typeof message.content === "string") return;
    message.content.forEach((block, j) => {
      if (isMediaBlock(block)) visit(block, i, j);
    });
  });
}
