import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { startSim } from "overlap-sim";
import { describe, expect, it } from "vitest";
import { runAgentTurn } from "../agent/run-agent-turn.js";
import { isOverlapError } from "../errors.js";
import type { DocumentBlock, ImageBlock, Message } from "../stream/message.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { toLanguageModelV3Prompt } from "./ai-sdk/ai-sdk-prompt.js";
import { anthropicModel } from "./anthropic/anthropic.js";
import { messagesForClaude } from "./anthropic/messages-for-claude.js";
import { toConverseMessages } from "./bedrock/bedrock-request.js";
import { toGeminiContents } from "./google/gemini-request.js";
import { toChatMessages } from "./openai/chat-messages.js";
import { openaiChatModel } from "./openai/openai.js";
import { openaiResponsesModel } from "./openai/openai-responses.js";
import { toResponsesInput } from "./openai/responses-input.js";

const PNG = "iVBORw0KGgoAAAANSUhEUg==";
const PDF = "JVBERi0xLjQK";
const png: ImageBlock = {
  type: "image",
  source: { type: "base64", media_type: "image/png", data: PNG },
};
const photo: ImageBlock = {
  type: "image",
  source: { type: "url", url: "https://example.com/cat.jpg", media_type: "image/jpeg" },
};
const pdf: DocumentBlock = {
  type: "document",
  source: { type: "base64", media_type: "application/pdf", data: PDF },
  title: "Q3 report.pdf",
};
const notes: DocumentBlock = {
  type: "document",
  source: { type: "base64", media_type: "text/plain", data: btoa("hello") },
};
const wav: DocumentBlock = {
  type: "document",
  source: { type: "base64", media_type: "audio/wav", data: "UklGRg==" },
};
const linkedPdf: DocumentBlock = {
  type: "document",
  source: { type: "url", url: "https://example.com/a.pdf", media_type: "application/pdf" },
};

/** A conversation whose third message holds `blocks` after a text (so they are parts 1...). */
function withMedia(...blocks: Array<ImageBlock | DocumentBlock>): Message[] {
  return [
    { role: "user", content: "hi" },
    { role: "assistant", content: [{ type: "text", text: "hello" }] },
    { role: "user", content: [{ type: "text", text: "look" }, ...blocks] },
  ];
}

/** The error `build` throws: an OverlapError naming message 2 and `part`, and `target`. */
function refusal(build: () => unknown, part: number, target: RegExp): string {
  let thrown: unknown;
  try {
    build();
  } catch (err) {
    thrown = err;
  }
  expect(isOverlapError(thrown, "invalid_conversation")).toBe(true);
  const message = (thrown as Error).message;
  expect(message).toMatch(new RegExp(`^Message 2, part ${part} is `));
  expect(message).toMatch(target);
  return message;
}

describe("each adapter sends the user's images and files in its wire format", () => {
  it("Messages API: the blocks as they are, a URL's media type removed, text/plain as a text source", () => {
    const plain = withMedia(png, pdf);
    expect(messagesForClaude(plain)).toBe(plain); // nothing to change: the same bytes, for caching
    const [, , sent] = messagesForClaude(withMedia(photo, notes));
    expect(sent?.content).toEqual([
      { type: "text", text: "look" },
      { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
      { type: "document", source: { type: "text", media_type: "text/plain", data: "hello" } },
    ]);
    refusal(() => messagesForClaude(withMedia(png, wav)), 2, /audio\/wav.*Anthropic Messages API/);
    // A source of the API's own that overlap does not model (the Files API) goes as it is.
    const uploaded = {
      type: "document",
      source: { type: "file", file_id: "file_011" },
    } as unknown as DocumentBlock;
    const files = withMedia(uploaded);
    expect(messagesForClaude(files)).toBe(files);
  });

  it("Chat Completions: image_url, file (named), input_audio; a document at a URL is refused", () => {
    const out = toChatMessages(undefined, withMedia(png, photo, pdf, notes, wav));
    expect(out.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
        {
          type: "file",
          file: { file_data: `data:application/pdf;base64,${PDF}`, filename: "Q3 report.pdf" },
        },
        {
          type: "file",
          file: {
            file_data: `data:text/plain;base64,${btoa("hello")}`,
            filename: "file-2-4.plain",
          },
        },
        { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
      ],
    });
    refusal(() => toChatMessages(undefined, withMedia(linkedPdf)), 1, /OpenAI Chat Completions/);
  });

  it("Responses API: input_image, input_file by data or URL; audio is refused", () => {
    const out = toResponsesInput(withMedia(png, photo, pdf, linkedPdf));
    expect(out.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "input_text", text: "look" },
        { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
        { type: "input_image", image_url: "https://example.com/cat.jpg", detail: "auto" },
        {
          type: "input_file",
          file_data: `data:application/pdf;base64,${PDF}`,
          filename: "Q3 report.pdf",
        },
        { type: "input_file", file_url: "https://example.com/a.pdf" },
      ],
    });
    refusal(() => toResponsesInput(withMedia(wav)), 1, /OpenAI Responses API/);
  });

  it("Gemini: inlineData, fileData with its media type, text; a URL of no media type is refused", () => {
    const out = toGeminiContents(withMedia(png, photo, notes, wav));
    expect(out.at(-1)?.parts).toEqual([
      { text: "look" },
      { inlineData: { mimeType: "image/png", data: PNG } },
      { fileData: { mimeType: "image/jpeg", fileUri: "https://example.com/cat.jpg" } },
      { inlineData: { mimeType: "text/plain", data: btoa("hello") } },
      { inlineData: { mimeType: "audio/wav", data: "UklGRg==" } },
    ]);
    const untyped: ImageBlock = { type: "image", source: { type: "url", url: "https://x/y" } };
    refusal(() => toGeminiContents(withMedia(untyped)), 1, /Gemini API.*media type/);
  });

  it("Bedrock Converse: image and document bytes (a name it accepts); URLs and audio are refused", () => {
    const out = toConverseMessages(withMedia(png, pdf, notes));
    const content = out.at(-1)?.content ?? [];
    expect(content[1]).toEqual({
      image: {
        format: "png",
        source: { bytes: Uint8Array.from(atob(PNG), (c) => c.charCodeAt(0)) },
      },
    });
    expect(content[2]).toMatchObject({ document: { format: "pdf", name: "Q3 report" } });
    expect(content[3]).toMatchObject({ document: { format: "txt", name: "document 2-3" } });
    expect(new TextDecoder().decode(content[3]?.document?.source?.bytes)).toBe("hello");
    refusal(() => toConverseMessages(withMedia(photo)), 1, /Amazon Bedrock Converse/);
    refusal(() => toConverseMessages(withMedia(png, wav)), 2, /audio\/wav/);
  });

  it("AI SDK providers: file parts with their media types", () => {
    const prompt = toLanguageModelV3Prompt(undefined, withMedia(png, photo, pdf));
    expect(prompt.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "file", data: PNG, mediaType: "image/png" },
        { type: "file", data: new URL("https://example.com/cat.jpg"), mediaType: "image/jpeg" },
        { type: "file", data: PDF, mediaType: "application/pdf" },
      ],
    });
  });
});

describe("a source only the Messages API reads (a Files API id)", () => {
  const uploaded = {
    type: "document",
    source: { type: "file", file_id: "file_011" },
  } as unknown as DocumentBlock;
  it("is refused by name by every other adapter, never dropped or sent broken", () => {
    const messages = withMedia(uploaded);
    refusal(() => toChatMessages(undefined, messages), 1, /OpenAI Chat Completions/);
    refusal(() => toResponsesInput(messages), 1, /OpenAI Responses API/);
    refusal(() => toGeminiContents(messages), 1, /Gemini API/);
    refusal(() => toConverseMessages(messages), 1, /Amazon Bedrock Converse/);
    refusal(() => toLanguageModelV3Prompt(undefined, messages), 1, /an AI SDK provider/);
  });
});

describe("a turn with a part its provider cannot carry", () => {
  it("resolves with invalid_conversation naming the part; the conversation goes on without it", async () => {
    const sim = await startSim({ pacing: { fast: true } });
    try {
      const anthropic = new Anthropic({ baseURL: sim.url, apiKey: "k", maxRetries: 0 });
      const openai = new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: "k", maxRetries: 0 });
      const models = {
        anthropic: anthropicModel({ client: anthropic, model: "claude-sonnet-4-5" }),
        chat: openaiChatModel({ client: openai, model: "gpt-4.1" }),
        responses: openaiResponsesModel({ client: openai, model: "gpt-5-mini" }),
      };
      const cannot = { anthropic: wav, chat: linkedPdf, responses: wav };
      for (const [name, model] of Object.entries(models)) {
        const executor = new ToolExecutor([]);
        const sink = () => {};
        // What each carries reaches the model.
        const ok = await runAgentTurn({ model, executor, sink, messages: withMedia(png, pdf) });
        expect(ok.error, name).toBeUndefined();
        expect(ok.stopReason).toBe("end_turn");
        const held = cannot[name as keyof typeof cannot];
        const turn = await runAgentTurn({ model, executor, sink, messages: withMedia(png, held) });
        expect(turn.stopReason, name).toBe("error");
        expect(turn.error?.code).toBe("invalid_conversation");
        expect(turn.error?.message).toMatch(/^Message 2, part 2 is a document/);
        expect(turn.added).toEqual([]);
        // Dropping the part (or sending it as text) continues the conversation.
        const next = await runAgentTurn({
          model,
          executor,
          sink,
          messages: [...turn.messages.slice(0, 2), { role: "user", content: "without it, then" }],
        });
        expect(next.error, name).toBeUndefined();
      }
    } finally {
      await sim.close();
    }
  });
});
