import {
  convertToModelMessages,
  type ModelMessage,
  modelMessageSchema,
  safeValidateUIMessages,
  type UIMessage,
} from "ai";
import fc from "fast-check";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import type {
  AssistantContentBlock,
  Message,
  TextBlock,
  ToolResultBlock,
  UserContentBlock,
} from "../stream/message.js";
import {
  fromModelMessages,
  fromUIMessages,
  toModelMessages,
  toUIMessages,
} from "./ai-sdk-messages.js";
import type { ModelMessageLike, OpenAIChatMessageLike, UIMessageLike } from "./message-shapes.js";
import { normalizeMessages } from "./normalize-messages.js";
import { fromOpenAIChatMessages, toOpenAIChatMessages } from "./openai-chat-messages.js";
import { validateConversation } from "./validate-conversation.js";

/** What a conversation looks like after a trip: a user's string content as one text block. */
function canonical(messages: readonly Message[]): Message[] {
  return messages.map((m) =>
    m.role === "user" && typeof m.content === "string"
      ? { role: "user", content: [{ type: "text", text: m.content }] }
      : m,
  );
}

const text = fc
  .string({ minLength: 1, maxLength: 12 })
  .filter((s) => s.trim() !== "" && !/^\s*[[{]/.test(s));
const toolName = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
const input = fc.dictionary(
  fc.string({ maxLength: 5 }),
  fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.boolean()),
  { maxKeys: 3 },
);
/** A result text: words, or the JSON a tool returning data writes. */
const resultText = fc.oneof(
  text,
  input.map((value) => JSON.stringify(value)),
);

interface Shape {
  /** OpenAI's format keeps no thinking, no error flags, and text before the calls. */
  openai: boolean;
}

/** A valid conversation as runAgentTurn produces it: alternating, every call answered. */
function conversation({ openai }: Shape): fc.Arbitrary<Message[]> {
  const userText = fc.oneof(
    text.map((t): Message => ({ role: "user", content: t })),
    fc
      .array(text, { minLength: 1, maxLength: 2 })
      .map(
        (ts): Message => ({ role: "user", content: ts.map((t) => ({ type: "text", text: t })) }),
      ),
  );
  const round = fc.record({
    thinking: openai
      ? fc.constant([] as AssistantContentBlock[])
      : fc.array(
          fc.oneof(
            fc
              .record({ thinking: text, signature: text })
              .map((b): AssistantContentBlock => ({ type: "thinking", ...b })),
            text.map((data): AssistantContentBlock => ({ type: "redacted_thinking", data })),
          ),
          { maxLength: 1 },
        ),
    texts: fc.array(text, { maxLength: 2 }),
    calls: fc.array(fc.record({ name: toolName, input, result: resultText, error: fc.boolean() }), {
      maxLength: 3,
    }),
    after: fc.array(text, { maxLength: 1 }),
  });
  return fc
    .tuple(userText, fc.array(round, { maxLength: 4 }), fc.boolean())
    .map(([first, rounds, endWithUser]) => {
      const out: Message[] = [first];
      let id = 0;
      rounds.forEach((r, i) => {
        const calls = r.calls.map((c) => ({ ...c, id: `call_${++id}` }));
        const content: AssistantContentBlock[] = [
          ...r.thinking,
          ...r.texts.map((t): TextBlock => ({ type: "text", text: t })),
          ...calls.map(
            (c): AssistantContentBlock => ({
              type: "tool_use",
              id: c.id,
              name: c.name,
              input: c.input,
            }),
          ),
        ];
        if (content.length === 0) content.push({ type: "text", text: "ok" });
        out.push({ role: "assistant", content });
        const results: UserContentBlock[] = calls.map(
          (c): ToolResultBlock =>
            c.error && !openai
              ? { type: "tool_result", tool_use_id: c.id, content: c.result, is_error: true }
              : { type: "tool_result", tool_use_id: c.id, content: c.result },
        );
        const last = i === rounds.length - 1;
        const texts = calls.length === 0 || (last && endWithUser) ? ["next"] : r.after;
        if (calls.length === 0 && last && !endWithUser) return;
        out.push({
          role: "user",
          content: [...results, ...texts.map((t): TextBlock => ({ type: "text", text: t }))],
        });
      });
      return out;
    });
}

describe("AI SDK UI messages", () => {
  it("round-trip, and what toUIMessages writes is a valid UIMessage[] for the AI SDK", async () => {
    await fc.assert(
      fc.asyncProperty(conversation({ openai: false }), fc.option(text), async (messages, sys) => {
        const ui = toUIMessages(messages, sys === null ? {} : { system: sys });
        const typed: UIMessage[] = ui;
        const checked = await safeValidateUIMessages({ messages: typed });
        expect(checked.success).toBe(true);
        const back = fromUIMessages(ui);
        expect(back.messages).toEqual(canonical(messages));
        expect(back.system).toBe(sys ?? undefined);
      }),
      { numRuns: 150 },
    );
  });

  it("the AI SDK's own convertToModelMessages of our UI messages reads back the same conversation", async () => {
    await fc.assert(
      fc.asyncProperty(conversation({ openai: false }), async (messages) => {
        const model = await convertToModelMessages(toUIMessages(messages));
        expect(fromModelMessages(model).messages).toEqual(canonical(messages));
      }),
      { numRuns: 100 },
    );
  });

  it("whatever useChat-like messages hold, fromUIMessages gives a valid conversation", () => {
    let n = 0;
    const part = fc.oneof(
      text.map((t) => ({ type: "text", text: t })),
      fc.constant({ type: "text", text: " " }),
      text.map((t) => ({ type: "reasoning", text: t })),
      fc.constant({ type: "step-start" }),
      fc.constant({ type: "source-url", sourceId: "s", url: "https://example.com" }),
      fc.constant({ type: "data-weather", data: { c: 1 } }),
      fc
        .record({
          name: toolName,
          state: fc.constantFrom(
            "input-streaming",
            "input-available",
            "approval-requested",
            "output-available",
            "output-error",
            "output-denied",
          ),
          output: fc.oneof(text, input),
          dynamic: fc.boolean(),
          providerExecuted: fc.boolean(),
        })
        .map((p) => ({
          type: p.dynamic ? "dynamic-tool" : `tool-${p.name}`,
          ...(p.dynamic ? { toolName: p.name } : {}),
          toolCallId: `call_${++n}`,
          state: p.state,
          input: { q: 1 },
          ...(p.state === "output-available" ? { output: p.output } : {}),
          ...(p.state === "output-error" ? { errorText: "failed" } : {}),
          ...(p.providerExecuted ? { providerExecuted: true } : {}),
        })),
    );
    const chat = fc
      .array(
        fc.tuple(fc.array(text, { minLength: 1, maxLength: 2 }), fc.array(part, { maxLength: 8 })),
        { minLength: 1, maxLength: 4 },
      )
      .map((turns) =>
        turns.flatMap(([said, parts], i): UIMessageLike[] => [
          { id: `u${i}`, role: "user", parts: said.map((t) => ({ type: "text", text: t })) },
          { id: `a${i}`, role: "assistant", parts },
        ]),
      );
    fc.assert(
      fc.property(chat, text, (ui, next) => {
        const { messages } = fromUIMessages(ui);
        expect(validateConversation(messages)).toEqual([]);
        // And the next user message is a plain append.
        const appended = normalizeMessages([...messages, { role: "user", content: next }]);
        expect(validateConversation(appended.messages)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it("reads useChat's messages as sent: a tool part's object output is the result's JSON text", () => {
    const ui: UIMessage[] = [
      { id: "1", role: "system", parts: [{ type: "text", text: "Be brief." }] },
      { id: "2", role: "user", parts: [{ type: "text", text: "Weather in Paris?" }] },
      {
        id: "3",
        role: "assistant",
        parts: [
          { type: "step-start" },
          {
            type: "tool-get_weather",
            toolCallId: "c1",
            state: "output-available",
            input: { city: "Paris" },
            output: { sky: "sunny", c: 21 },
          },
          { type: "step-start" },
          { type: "text", text: "Sunny, 21 °C.", state: "done" },
        ],
      },
    ];
    expect(fromUIMessages(ui)).toEqual({
      system: "Be brief.",
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "c1", name: "get_weather", input: { city: "Paris" } }],
        },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "c1", content: '{"sky":"sunny","c":21}' }],
        },
        { role: "assistant", content: [{ type: "text", text: "Sunny, 21 °C." }] },
      ],
    });
    const parts = toUIMessages(fromUIMessages(ui).messages)[1]?.parts;
    expect(parts?.[1]).toMatchObject({
      state: "output-available",
      output: { sky: "sunny", c: 21 },
    });
  });

  it("refuses a file part without a URL, and a system message after the start, naming the message and the option", () => {
    expect(() => fromUIMessages([{ role: "user", parts: [{ type: "file", text: "x" }] }])).toThrow(
      /Message 0 has a file part without a `url`/,
    );
    expect(() =>
      fromUIMessages([
        { role: "user", parts: [{ type: "text", text: "hi" }] },
        { role: "system", parts: [{ type: "text", text: "be nice" }] },
      ]),
    ).toThrow(/Message 1 is a system message.*`system` option/);
  });
});

describe("AI SDK model messages", () => {
  it("round-trip, and each message written passes the AI SDK's modelMessageSchema", () => {
    fc.assert(
      fc.property(conversation({ openai: false }), fc.option(text), (messages, sys) => {
        const model = toModelMessages(messages, sys === null ? {} : { system: sys });
        const typed: ModelMessage[] = model;
        for (const m of typed) expect(modelMessageSchema.safeParse(m).success).toBe(true);
        const back = fromModelMessages(model);
        expect(canonical(back.messages)).toEqual(canonical(messages));
        expect(back.system).toBe(sys ?? undefined);
      }),
      { numRuns: 150 },
    );
  });

  it("reads streamText's response messages: string content, json and denied outputs", () => {
    const model: ModelMessage[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Weather?" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking." },
          { type: "tool-call", toolCallId: "c1", toolName: "wx", input: { city: "Oslo" } },
          { type: "tool-call", toolCallId: "c2", toolName: "wx", input: { city: "Rome" } },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c1",
            toolName: "wx",
            output: { type: "json", value: { c: 9 } },
          },
          {
            type: "tool-result",
            toolCallId: "c2",
            toolName: "wx",
            output: { type: "execution-denied", reason: "No." },
          },
        ],
      },
      { role: "assistant", content: "Rain, 9 °C." },
      { role: "user", content: "Thanks" },
    ];
    const { messages, system } = fromModelMessages(model);
    expect(system).toBe("Be brief.");
    expect(validateConversation(messages)).toEqual([]);
    expect(messages[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "c1", content: '{"c":9}' },
        {
          type: "tool_result",
          tool_use_id: "c2",
          content: "The user denied this call; it was not run. No.",
          is_error: true,
        },
      ],
    });
    expect(messages[3]).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "Rain, 9 °C." }],
    });
  });
});

describe("OpenAI chat messages", () => {
  it("round-trip what Chat Completions can hold; the output is ChatCompletionMessageParam[]", () => {
    fc.assert(
      fc.property(conversation({ openai: true }), fc.option(text), (messages, sys) => {
        const chat = toOpenAIChatMessages(messages, sys === null ? {} : { system: sys });
        const typed: ChatCompletionMessageParam[] = chat;
        const back = fromOpenAIChatMessages(typed);
        expect(canonical(back.messages)).toEqual(canonical(messages));
        expect(back.system).toBe(sys ?? undefined);
      }),
      { numRuns: 150 },
    );
  });

  it("reads OpenAI-shaped history: content null with tool_calls, tool messages, developer", () => {
    const chat: ChatCompletionMessageParam[] = [
      { role: "developer", content: "Be brief." },
      { role: "user", content: "Weather?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "wx", arguments: '{"city":"Oslo"}' } },
          { id: "c2", type: "function", function: { name: "wx", arguments: '{"city":' } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "rain" },
      { role: "tool", tool_call_id: "c2", content: [{ type: "text", text: "unknown" }] },
      { role: "user", content: "And tomorrow?" },
    ];
    const { messages, system } = fromOpenAIChatMessages(chat as OpenAIChatMessageLike[]);
    expect(system).toBe("Be brief.");
    expect(validateConversation(messages)).toEqual([]);
    expect(messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "tool_use", id: "c1", name: "wx", input: { city: "Oslo" } },
        { type: "tool_use", id: "c2", name: "wx", input: {} },
      ],
    });
    expect(messages[2]?.content).toHaveLength(3);
  });

  it("refuses an image without a URL, an unknown part and the deprecated function role by name", () => {
    expect(() =>
      fromOpenAIChatMessages([
        { role: "user", content: [{ type: "image_url" }] as OpenAIChatMessageLike["content"] },
      ]),
    ).toThrow(/Message 0 has an image_url part without a `url`/);
    expect(() =>
      fromOpenAIChatMessages([{ role: "user", content: [{ type: "video_url" }] }]),
    ).toThrow(/Message 0 has a part of type "video_url", which overlap does not read/);
    expect(() =>
      fromOpenAIChatMessages([
        { role: "assistant", content: [{ type: "image_url", image_url: { url: "https://x" } }] },
      ]),
    ).toThrow(/Message 0 \(assistant\) has a part of type "image_url"; only user messages/);
    expect(() => fromOpenAIChatMessages([{ role: "function", name: "f", content: "x" }])).toThrow(
      /role "function"/,
    );
  });
});

describe("normalizeMessages", () => {
  it("keeps overlap's own valid conversations as they are (same objects)", () => {
    fc.assert(
      fc.property(conversation({ openai: false }), (messages) => {
        const normalized = normalizeMessages(messages);
        expect(normalized.messages).toHaveLength(messages.length);
        for (const [i, m] of normalized.messages.entries()) expect(m).toBe(messages[i]);
        expect(normalized.firstChanged).toBe(messages.length);
      }),
    );
  });

  it("after any conversation, appending the user's next message gives a valid one", () => {
    fc.assert(
      fc.property(conversation({ openai: false }), text, (messages, next) => {
        const given = [...messages, { role: "user" as const, content: next }];
        const { messages: out, firstChanged } = normalizeMessages(given);
        expect(validateConversation(out)).toEqual([]);
        // A store's write from `firstChanged` on makes the stored list the normalized one.
        expect(out.slice(0, firstChanged)).toEqual(given.slice(0, firstChanged));
        expect(firstChanged).toBeGreaterThanOrEqual(messages.length - 1);
      }),
    );
  });

  it("reads every shape in one list: strings for any role, AI SDK and OpenAI messages", () => {
    const mixed = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "user", content: "weather?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "wx", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c1", content: "rain" },
      { id: "u", role: "user", parts: [{ type: "text", text: "and you?" }] },
      { role: "assistant", content: [{ type: "text", text: "fine" }] },
      { role: "user", content: "ok" },
      { role: "user", content: "bye" },
    ] satisfies Parameters<typeof normalizeMessages>[0];
    const { messages, system } = normalizeMessages(mixed);
    expect(system).toBe("Be brief.");
    expect(validateConversation(messages)).toEqual([]);
    expect(messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    expect(messages.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "ok" },
        { type: "text", text: "bye" },
      ],
    });
  });

  it("passes the Messages API's image and document blocks through; reads the AI SDK's and OpenAI's", () => {
    const image = {
      role: "user",
      content: [
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBO" } },
        { type: "text", text: "What is this?" },
      ],
    } as unknown as Message;
    expect(normalizeMessages([image]).messages[0]).toBe(image);
    const png = { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" };
    expect(
      normalizeMessages([{ role: "user", content: [{ type: "image", image: "iVBORw0KGgo=" }] }])
        .messages,
    ).toEqual([{ role: "user", content: [{ type: "image", source: png }] }]);
    expect(
      normalizeMessages([
        {
          role: "user",
          content: [
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          ],
        },
      ]).messages,
    ).toEqual([{ role: "user", content: [{ type: "image", source: png }] }]);
    expect(() =>
      normalizeMessages([
        { role: "user", content: [{ type: "file", file: { file_id: "f" } }] } as never,
      ]),
    ).toThrow(/Message 0 has a file part without `file_data`/);
  });

  it("refuses a system message in the middle naming the `system` option, and non-messages", () => {
    expect(() =>
      normalizeMessages([
        { role: "user", content: "hi" },
        { role: "system", content: "x" },
      ]),
    ).toThrow(/Message 1 is a system message.*`system` option of runAgentTurn/);
    expect(() => normalizeMessages([{ role: "user", content: "hi" }, 42 as never])).toThrow(
      /Message 1 is not a message/,
    );
    expect(() =>
      normalizeMessages([{ role: "user", content: [{ type: "image_url" }] } as never]),
    ).toThrow(/Message 0 has an image_url part without a `url`/);
  });

  it("accepts what the types say a host may pass (UIMessage, ModelMessage, OpenAI params)", () => {
    const ui: UIMessage[] = [{ id: "1", role: "user", parts: [{ type: "text", text: "hi" }] }];
    const model: ModelMessage[] = [{ role: "assistant", content: "hello" }];
    const chat: ChatCompletionMessageParam[] = [{ role: "user", content: "again" }];
    const all: Parameters<typeof normalizeMessages>[0] = [...ui, ...model, ...chat];
    const typedModel: readonly ModelMessageLike[] = model;
    expect(typedModel).toHaveLength(1);
    expect(validateConversation(normalizeMessages(all).messages)).toEqual([]);
  });
});
