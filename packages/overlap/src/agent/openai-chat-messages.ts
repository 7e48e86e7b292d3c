/**
 * OpenAI Chat Completions messages to and from overlap's conversation, for history stored in
 * that shape (whatever model the next turn runs on). No OpenAI package is imported: the shapes
 * are declared structurally, and the output is assignable to the SDK's
 * `ChatCompletionMessageParam`.
 *
 * Chat Completions has no place for thinking, provider-side blocks or a result's error flag:
 * those are left out on the way there (an error result's text says what failed).
 */

import type {
  AssistantContentBlock,
  Message,
  ToolResultBlock,
  UserContentBlock,
} from "../stream/message.js";
import {
  isKnownSource,
  isMediaBlock,
  type MediaBlock,
  mediaBlock,
  mediaBlockOfUrl,
  unsupportedMedia,
  urlOfSource,
} from "./media-parts.js";
import {
  type ConvertedConversation,
  inputObject,
  joinSameRole,
  misplacedSystem,
  type OpenAIChatContentPartLike,
  type OpenAIChatMessageLike,
  refuse,
  resultContentText,
  textBlocks,
} from "./message-shapes.js";

/** A user content part {@link toOpenAIChatMessages} writes (assignable to the SDK's parts). */
export type OpenAIChatUserPartOut =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } }
  | { type: "input_audio"; input_audio: { data: string; format: "wav" | "mp3" } }
  | { type: "file"; file: { file_data: string; filename?: string } };

/** A message {@link toOpenAIChatMessages} writes (assignable to `ChatCompletionMessageParam`). */
export type OpenAIChatMessageOut =
  | { role: "system"; content: string }
  | { role: "user"; content: string | OpenAIChatUserPartOut[] }
  | {
      role: "assistant";
      content: string | Array<{ type: "text"; text: string }> | null;
      tool_calls?: Array<{
        id: string;
        type: "function";
        function: { name: string; arguments: string };
      }>;
    }
  | { role: "tool"; tool_call_id: string; content: string };

/**
 * Reads OpenAI chat messages as overlap's conversation: `tool_calls` become tool_use blocks (their
 * `arguments` parsed; text that is not a JSON object gives `{}`), `tool` messages become user
 * messages of tool results, `content: null` is no text, a refusal is text; leading `system` and
 * `developer` messages become `system`; a user's `image_url`, `input_audio` and `file` parts
 * become image and document blocks. Throws `OverlapError` (`invalid_conversation`) naming the
 * message it cannot read (a `file_id` upload, the deprecated `function` role).
 */
export function fromOpenAIChatMessages(
  messages: readonly OpenAIChatMessageLike[],
): ConvertedConversation {
  const out: Message[] = [];
  const system: string[] = [];
  messages.forEach((message, i) => {
    const texts = textsOf(message, i);
    switch (message?.role) {
      case "system":
      case "developer":
        if (out.length > 0) misplacedSystem(i);
        system.push(texts.join(""));
        return;
      case "user":
        out.push(
          typeof message.content === "string"
            ? { role: "user", content: message.content }
            : { role: "user", content: userBlocksOf(message, i) },
        );
        return;
      case "assistant": {
        const content: AssistantContentBlock[] = textBlocks(texts);
        for (const call of message.tool_calls ?? []) {
          if (!call.function) refuse(i, `has a tool call of type ${JSON.stringify(call.type)}.`);
          content.push({
            type: "tool_use",
            id: call.id,
            name: call.function.name,
            input: inputObject(call.function.arguments),
          });
        }
        out.push({ role: "assistant", content });
        return;
      }
      case "tool": {
        const result: ToolResultBlock = {
          type: "tool_result",
          tool_use_id: message.tool_call_id ?? "",
          content: texts.join("") || "(empty)",
        };
        out.push({ role: "user", content: [result] });
        return;
      }
      default:
        refuse(
          i,
          `has the role ${JSON.stringify((message as { role?: unknown })?.role)}; write function results as \`tool\` messages.`,
        );
    }
  });
  const joined = joinSameRole(out);
  const text = system.filter((s) => s !== "").join("\n\n");
  return text === "" ? { messages: joined } : { messages: joined, system: text };
}

/** A user message's parts as blocks, in order: text, images, audio and files. */
function userBlocksOf(message: OpenAIChatMessageLike, i: number): UserContentBlock[] {
  const parts = (message.content ?? []) as readonly OpenAIChatContentPartLike[];
  return parts.flatMap((part): UserContentBlock[] => {
    const media = mediaOfPart(part, i);
    if (media) return [media];
    return textBlocks([part.type === "refusal" ? (part.refusal ?? "") : (part.text ?? "")]);
  });
}

const AUDIO_TYPES: Readonly<Record<string, string>> = { wav: "audio/wav", mp3: "audio/mpeg" };

function mediaOfPart(part: OpenAIChatContentPartLike, i: number): MediaBlock | undefined {
  if (part.type === "image_url") {
    const url = part.image_url?.url;
    if (!url) refuse(i, "has an image_url part without a `url`.");
    return { type: "image", source: mediaBlockOfUrl(url, undefined).source };
  }
  if (part.type === "input_audio") {
    const audio = part.input_audio;
    const media = AUDIO_TYPES[audio?.format ?? ""] ?? `audio/${audio?.format ?? "wav"}`;
    return mediaBlock({ type: "base64", media_type: media, data: audio?.data ?? "" });
  }
  if (part.type === "file") {
    const file = part.file ?? {};
    if (!file.file_data) {
      refuse(
        i,
        "has a file part without `file_data` (a `file_id` names an upload only OpenAI can read); send the file's content as `file_data`.",
      );
    }
    return mediaBlockOfUrl(file.file_data, undefined, file.filename);
  }
  if (part.type !== "text" && part.type !== "refusal") {
    refuse(i, `has a part of type ${JSON.stringify(part.type)}, which overlap does not read.`);
  }
  return undefined;
}

function textsOf(message: OpenAIChatMessageLike, i: number): string[] {
  const content = message?.content;
  const texts: string[] =
    typeof content === "string"
      ? [content]
      : Array.isArray(content)
        ? (content as readonly OpenAIChatContentPartLike[]).flatMap((part) => {
            if (part.type === "text") return [part.text ?? ""];
            if (part.type === "refusal") return [part.refusal ?? ""];
            // A user's media are read with its text (userBlocksOf); elsewhere they have no place.
            if (message.role === "user") return [];
            return refuse(
              i,
              `(${message.role}) has a part of type ${JSON.stringify(part.type)}; only user messages carry images and files.`,
            );
          })
        : [];
  if (typeof message?.refusal === "string" && message.refusal !== "") texts.push(message.refusal);
  return texts;
}

/**
 * Writes overlap's conversation as OpenAI chat messages: tool_use blocks become `tool_calls` of
 * the assistant message (after its text), tool results become `tool` messages placed first; a
 * user's images become `image_url` parts, wav and mp3 audio `input_audio`, other inline files
 * `file` parts. Thinking, provider-side blocks and results' error flags are left out. Throws
 * `OverlapError` (`invalid_conversation`) for a file Chat Completions cannot hold (a document
 * at a URL, audio of another format), naming it.
 */
export function toOpenAIChatMessages(
  messages: readonly Message[],
  options: { system?: string } = {},
): OpenAIChatMessageOut[] {
  const out: OpenAIChatMessageOut[] = [];
  if (options.system) out.push({ role: "system", content: options.system });
  for (const [index, message] of messages.entries()) {
    if (message.role === "user") {
      if (typeof message.content === "string") {
        out.push({ role: "user", content: message.content });
        continue;
      }
      const texts: OpenAIChatUserPartOut[] = [];
      message.content.forEach((block, j) => {
        if (block.type === "tool_result") {
          const content = resultContentText(block.content);
          out.push({ role: "tool", tool_call_id: block.tool_use_id, content });
        } else if (block.type === "text") texts.push({ type: "text", text: block.text });
        else if (isMediaBlock(block)) texts.push(openAIChatMediaPart(block, index, j));
      });
      if (texts.length > 0) out.push({ role: "user", content: texts });
      continue;
    }
    const texts = message.content.flatMap((b) =>
      b.type === "text" ? [{ type: "text" as const, text: b.text }] : [],
    );
    const calls = message.content.flatMap((b) =>
      b.type === "tool_use"
        ? [
            {
              id: b.id,
              type: "function" as const,
              function: { name: b.name, arguments: JSON.stringify(b.input) },
            },
          ]
        : [],
    );
    if (texts.length === 0 && calls.length === 0) continue;
    const content = texts.length === 0 ? null : texts.length === 1 ? texts[0]!.text : texts;
    out.push(
      calls.length > 0
        ? { role: "assistant", content, tool_calls: calls }
        : { role: "assistant", content },
    );
  }
  return out;
}

/** Formats `input_audio` takes, by media type. */
const AUDIO_FORMATS: Readonly<Record<string, "wav" | "mp3">> = {
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/wave": "wav",
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
};

/** What Chat Completions takes of a user's files, for the refusal of another. */
export const CHAT_MEDIA_TAKES =
  "images (inline or at a URL), wav and mp3 audio, and other files inline (`file_data`)";

/**
 * An image or document block as a Chat Completions user content part: an image as `image_url`
 * (a URL, or a `data:` URL), wav or mp3 audio as `input_audio`, any other inline file as `file`.
 * Throws `OverlapError` naming the part for a file at a URL (Chat Completions takes none) or
 * inline audio of another format. `named`: give a file without a title a name (the API asks
 * for one with `file_data`).
 */
export function openAIChatMediaPart(
  block: MediaBlock,
  messageIndex: number,
  partIndex: number,
  named = false,
): OpenAIChatUserPartOut {
  const target = "OpenAI Chat Completions";
  const source = block.source;
  const refused = () => unsupportedMedia(messageIndex, partIndex, block, target, CHAT_MEDIA_TAKES);
  if (!isKnownSource(source)) throw refused();
  if (block.type === "image") return { type: "image_url", image_url: { url: urlOfSource(source) } };
  const mediaType = source.media_type ?? "";
  if (source.type === "url") throw refused();
  if (mediaType.startsWith("audio/")) {
    const format = AUDIO_FORMATS[mediaType];
    if (!format || source.type !== "base64") throw refused();
    return { type: "input_audio", input_audio: { data: source.data, format } };
  }
  const file: { file_data: string; filename?: string } = { file_data: urlOfSource(source) };
  const filename = block.title || (named ? fileNameOf(block, messageIndex, partIndex) : undefined);
  if (filename) file.filename = filename;
  return { type: "file", file };
}

/** A name for an untitled file, from its place and media type (`file-2-1.pdf`). */
export function fileNameOf(block: MediaBlock, messageIndex: number, partIndex: number): string {
  const subtype = (block.source.media_type ?? "").split("/")[1]?.split(/[+;]/)[0] ?? "";
  const extension = /^[a-z0-9.-]{1,12}$/i.test(subtype) ? `.${subtype}` : "";
  return `file-${messageIndex}-${partIndex}${extension}`;
}
