import { modelMessageSchema, safeValidateUIMessages } from "ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isOverlapError } from "../errors.js";
import type { DocumentBlock, ImageBlock, Message, UserContentBlock } from "../stream/message.js";
import {
  fromModelMessages,
  fromUIMessages,
  toModelMessages,
  toUIMessages,
} from "./ai-sdk-messages.js";
import { parseDataUrl } from "./media-parts.js";
import type { ModelMessageLike, OpenAIChatMessageLike, UIMessageLike } from "./message-shapes.js";
import { normalizeMessages } from "./normalize-messages.js";
import { fromOpenAIChatMessages, toOpenAIChatMessages } from "./openai-chat-messages.js";
import { validateConversation } from "./validate-conversation.js";

const PNG = "iVBORw0KGgoAAAANSUhEUg==";
const PDF = "JVBERi0xLjQK";
const WAV = "UklGRiQAAABXQVZFZm10IA==";

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
  title: "report.pdf",
};
const wav: DocumentBlock = {
  type: "document",
  source: { type: "base64", media_type: "audio/wav", data: WAV },
};

describe("useChat's file parts", () => {
  it("data: URLs and https URLs become image and document blocks, in place among the text", () => {
    const ui: UIMessageLike[] = [
      {
        id: "1",
        role: "user",
        parts: [
          { type: "text", text: "What is this?" },
          { type: "file", mediaType: "image/png", url: `data:image/png;base64,${PNG}` },
          { type: "file", mediaType: "image/jpeg", url: "https://example.com/cat.jpg" },
          {
            type: "file",
            mediaType: "application/pdf",
            filename: "report.pdf",
            url: `data:application/pdf;base64,${PDF}`,
          },
        ],
      },
    ];
    const { messages } = fromUIMessages(ui);
    expect(messages).toEqual([
      { role: "user", content: [{ type: "text", text: "What is this?" }, png, photo, pdf] },
    ]);
    expect(validateConversation(messages)).toEqual([]);
  });

  it("refuses a file part whose fields are not strings (a client's JSON may hold anything)", () => {
    const odd = [
      { id: "1", role: "user", parts: [{ type: "file", url: "data:,x", mediaType: 7 }] },
    ];
    expect(() => fromUIMessages(odd as never)).toThrow(
      /Message 0 has a part \(0\) whose `mediaType`/,
    );
  });

  it("writes them back as file parts the AI SDK validates", async () => {
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "see" }, png, photo, pdf, wav] },
    ];
    const ui = toUIMessages(messages);
    expect(ui[0]?.parts.slice(1)).toEqual([
      { type: "file", mediaType: "image/png", url: `data:image/png;base64,${PNG}` },
      { type: "file", mediaType: "image/jpeg", url: "https://example.com/cat.jpg" },
      {
        type: "file",
        mediaType: "application/pdf",
        url: `data:application/pdf;base64,${PDF}`,
        filename: "report.pdf",
      },
      { type: "file", mediaType: "audio/wav", url: `data:audio/wav;base64,${WAV}` },
    ]);
    expect((await safeValidateUIMessages({ messages: ui })).success).toBe(true);
    expect(fromUIMessages(ui).messages).toEqual(messages);
  });
});

describe("streamText's image and file parts", () => {
  it("base64 text, bytes, URL objects and URL strings", () => {
    const bytes = Uint8Array.from(atob(PNG), (c) => c.charCodeAt(0));
    const model: ModelMessageLike[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "compare" },
          { type: "image", image: PNG, mediaType: "image/png" },
          { type: "image", image: bytes }, // no media type: read from the bytes
          { type: "image", image: new URL("https://example.com/cat.jpg"), mediaType: "image/jpeg" },
          { type: "file", data: PDF, mediaType: "application/pdf", filename: "report.pdf" },
        ],
      },
    ];
    const [message] = fromModelMessages(model).messages;
    expect(message).toEqual({
      role: "user",
      content: [{ type: "text", text: "compare" }, png, png, photo, pdf],
    });
  });

  it("writes parts modelMessageSchema accepts, and reads them back", () => {
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "see" }, png, photo, pdf, wav] },
    ];
    const out = toModelMessages(messages);
    for (const message of out) expect(modelMessageSchema.safeParse(message).success).toBe(true);
    expect(fromModelMessages(out).messages).toEqual(messages);
  });
});

describe("OpenAI chat image_url, input_audio and file parts", () => {
  it("are read as blocks; a file_id upload is refused naming what to send", () => {
    const chat: OpenAIChatMessageLike[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "listen" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}`, detail: "low" } },
          { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
          { type: "input_audio", input_audio: { data: WAV, format: "wav" } },
          {
            type: "file",
            file: { file_data: `data:application/pdf;base64,${PDF}`, filename: "report.pdf" },
          },
        ],
      },
    ];
    const [message] = fromOpenAIChatMessages(chat).messages;
    const { media_type: _unstated, ...atUrl } = photo.source;
    expect(message).toEqual({
      role: "user",
      content: [{ type: "text", text: "listen" }, png, { type: "image", source: atUrl }, wav, pdf],
    });
    const upload: OpenAIChatMessageLike = {
      role: "user",
      content: [{ type: "file", file: { file_id: "file-abc" } }],
    };
    expect(() => fromOpenAIChatMessages([upload])).toThrow(/Message 0 .*file_id.*file_data/);
  });

  it("writes what Chat Completions holds; a document at a URL is refused by name", () => {
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "see" }, png, photo, pdf, wav] },
    ];
    const out = toOpenAIChatMessages(messages);
    expect(out[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "see" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
        {
          type: "file",
          file: { file_data: `data:application/pdf;base64,${PDF}`, filename: "report.pdf" },
        },
        { type: "input_audio", input_audio: { data: WAV, format: "wav" } },
      ],
    });
    const linked: DocumentBlock = {
      type: "document",
      source: { type: "url", url: "https://example.com/a.pdf", media_type: "application/pdf" },
    };
    let thrown: unknown;
    try {
      toOpenAIChatMessages([{ role: "user", content: [{ type: "text", text: "x" }, linked] }]);
    } catch (err) {
      thrown = err;
    }
    expect(isOverlapError(thrown, "invalid_conversation")).toBe(true);
    expect((thrown as Error).message).toMatch(
      /^Message 0, part 1 is a document \(application\/pdf, at https:\/\/example.com\/a.pdf\), which OpenAI Chat Completions cannot carry/,
    );
  });
});

describe("media round-trips (property)", () => {
  const base64 = fc
    .uint8Array({ minLength: 1, maxLength: 12 })
    .map((bytes) => btoa(String.fromCharCode(...bytes)));
  const title = fc.stringMatching(/^[a-z]{1,8}\.(pdf|txt)$/);
  /** Media every shape can hold: inline images and documents, images at a URL. */
  const media = (openai: boolean): fc.Arbitrary<UserContentBlock> =>
    fc.oneof(
      fc
        .record({ data: base64, type: fc.constantFrom("image/png", "image/jpeg", "image/webp") })
        .map(
          ({ data, type }): ImageBlock => ({
            type: "image",
            source: { type: "base64", media_type: type, data },
          }),
        ),
      fc.webUrl({ validSchemes: ["https"] }).map(
        (url): ImageBlock => ({
          type: "image",
          source: openai ? { type: "url", url } : { type: "url", url, media_type: "image/png" },
        }),
      ),
      fc
        .record({
          data: base64,
          type: fc.constantFrom("application/pdf", "text/csv", "audio/wav", "audio/mpeg"),
          title: fc.option(title, { nil: undefined }),
        })
        .map(({ data, type, title }): DocumentBlock => {
          const source = { type: "base64" as const, media_type: type, data };
          // OpenAI's input_audio has no name.
          return title && !(openai && type.startsWith("audio/"))
            ? { type: "document", source, title }
            : { type: "document", source };
        }),
    );
  const text = fc
    .string({ minLength: 1, maxLength: 8 })
    .filter((s) => s.trim() !== "")
    .map((t): UserContentBlock => ({ type: "text", text: t }));
  const conversation = (openai: boolean) =>
    fc
      .array(fc.array(fc.oneof(text, media(openai)), { minLength: 1, maxLength: 5 }), {
        minLength: 1,
        maxLength: 3,
      })
      .filter((turns) => turns.every((blocks) => blocks.some((b) => b.type === "text")))
      .map((turns) =>
        turns.flatMap((content, i): Message[] => [
          { role: "user", content },
          ...(i < turns.length - 1
            ? [{ role: "assistant" as const, content: [{ type: "text" as const, text: "ok" }] }]
            : []),
        ]),
      );

  it("UI messages: what toUIMessages writes validates, and reads back the same", async () => {
    await fc.assert(
      fc.asyncProperty(conversation(false), async (messages) => {
        const ui = toUIMessages(messages);
        expect((await safeValidateUIMessages({ messages: ui })).success).toBe(true);
        expect(fromUIMessages(ui).messages).toEqual(messages);
      }),
    );
  });

  it("model messages: each passes modelMessageSchema, and reads back the same", () => {
    fc.assert(
      fc.property(conversation(false), (messages) => {
        const out = toModelMessages(messages);
        for (const m of out) expect(modelMessageSchema.safeParse(m).success).toBe(true);
        expect(fromModelMessages(out).messages).toEqual(messages);
      }),
    );
  });

  it("OpenAI chat messages: read back the same; normalizing any of the three gives a valid conversation", () => {
    fc.assert(
      fc.property(conversation(true), (messages) => {
        const chat = toOpenAIChatMessages(messages);
        expect(fromOpenAIChatMessages(chat).messages).toEqual(messages);
        for (const shape of [chat, toUIMessages(messages), toModelMessages(messages)]) {
          const normalized = normalizeMessages(shape).messages;
          expect(validateConversation(normalized)).toEqual([]);
        }
      }),
    );
  });
});

describe("an image of no stated media type", () => {
  it("is read off its first bytes for PNG, JPEG, GIF and WebP; a WAV's RIFF header is no WebP", () => {
    const typeOf = (bytes: number[]) => {
      const [message] = fromModelMessages([
        { role: "user", content: [{ type: "image", image: new Uint8Array(bytes) }] },
      ]).messages;
      const block = message?.content[0] as ImageBlock;
      return block.source.media_type;
    };
    const riff = (kind: string) =>
      [..."RIFF"]
        .map((c) => c.charCodeAt(0))
        .concat(
          [0, 0, 0, 0],
          [...kind].map((c) => c.charCodeAt(0)),
        );
    expect(typeOf([0x89, 0x50, 0x4e, 0x47])).toBe("image/png");
    expect(typeOf([0xff, 0xd8, 0xff, 0xe0])).toBe("image/jpeg");
    expect(typeOf([0x47, 0x49, 0x46, 0x38, 0x39, 0x61])).toBe("image/gif");
    expect(typeOf(riff("WEBP"))).toBe("image/webp");
    expect(typeOf(riff("WAVE"))).toBe("image/*");
  });
});

describe("data URLs", () => {
  it("base64 and percent-encoded payloads", () => {
    expect(parseDataUrl("data:image/png;base64,AAAA")).toEqual({
      mediaType: "image/png",
      data: "AAAA",
    });
    expect(parseDataUrl("data:text/plain;charset=utf-8,h%C3%A9")).toEqual({
      mediaType: "text/plain",
      data: btoa("h\u00c3\u00a9"),
    });
    expect(parseDataUrl("https://example.com/a.png")).toBeUndefined();
  });
});
