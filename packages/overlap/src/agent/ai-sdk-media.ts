/**
 * The user content of the AI SDK's messages, with their images and files: useChat's `file` parts
 * (`mediaType` and a URL, a `data:` URL for inline data) and streamText's `image` and `file`
 * parts (base64 text, bytes or a URL), to and from overlap's text, image and document blocks.
 */

import type { FileSource, UserContentBlock } from "../stream/message.js";
import {
  type MediaBlock,
  mediaBlock,
  mediaBlockOfUrl,
  sourceOfData,
  urlOfSource,
} from "./media-parts.js";
import {
  type ModelMessagePartLike,
  refuse,
  textBlocks,
  type UIMessagePartLike,
} from "./message-shapes.js";

/** A `file` part of a UI message (assignable to the AI SDK's `FileUIPart`). */
export interface UIFilePartOut {
  type: "file";
  mediaType: string;
  url: string;
  filename?: string;
}

/** An `image` or `file` part of a model message (assignable to the AI SDK's parts). */
export type ModelMediaPartOut =
  | { type: "image"; image: string; mediaType?: string }
  | { type: "file"; data: string; mediaType: string; filename?: string };

/** A UI user message's text and file parts as blocks, in order; other parts are left out. */
export function userBlocksOfUIParts(
  parts: readonly UIMessagePartLike[],
  index: number,
): UserContentBlock[] {
  const blocks: UserContentBlock[] = [];
  for (const part of parts) {
    if (part.type === "text") blocks.push(...textBlocks([part.text ?? ""]));
    else if (part.type === "file") {
      if (typeof part.url !== "string" || part.url === "") {
        refuse(index, "has a file part without a `url`.");
      }
      blocks.push(mediaBlockOfUrl(part.url, part.mediaType, part.filename));
    }
  }
  return blocks;
}

/** An image or document block as a UI `file` part. */
export function uiFilePart(block: MediaBlock): UIFilePartOut {
  const part: UIFilePartOut = {
    type: "file",
    mediaType: block.source.media_type ?? defaultMediaType(block),
    url: urlOfSource(block.source),
  };
  if (block.type === "document" && block.title) part.filename = block.title;
  return part;
}

/** A model user message's text, image and file parts as blocks, in order. */
export function userBlocksOfModelParts(
  parts: readonly ModelMessagePartLike[],
  index: number,
): UserContentBlock[] {
  const blocks: UserContentBlock[] = [];
  for (const part of parts) {
    if (part.type === "text") blocks.push(...textBlocks([part.text ?? ""]));
    else if (part.type === "image" || part.type === "file") {
      const data = part.type === "image" ? part.image : part.data;
      const source = sourceOfData(data, part.mediaType ?? mediaTypeFallback(part.type));
      if (!source) refuse(index, `has ${part.type} part whose data is not base64, bytes or a URL.`);
      blocks.push(
        part.type === "image" ? { type: "image", source } : mediaBlock(source, part.filename),
      );
    }
  }
  return blocks;
}

/** An image or document block as a model message part: base64 text, or the URL as text. */
export function modelMediaPart(block: MediaBlock): ModelMediaPartOut {
  const source: FileSource = block.source;
  const data = source.type === "base64" ? source.data : urlOfSource(source);
  const mediaType = source.media_type;
  if (block.type === "image") {
    return mediaType ? { type: "image", image: data, mediaType } : { type: "image", image: data };
  }
  const part: ModelMediaPartOut = {
    type: "file",
    data,
    mediaType: mediaType ?? defaultMediaType(block),
  };
  if (block.title) part.filename = block.title;
  return part;
}

function defaultMediaType(block: MediaBlock): string {
  // The Messages API's url sources carry no media type: its images, and its documents (PDFs).
  return block.type === "image" ? "image/*" : "application/pdf";
}

function mediaTypeFallback(type: string): string | undefined {
  return type === "image" ? "image/*" : undefined;
}
