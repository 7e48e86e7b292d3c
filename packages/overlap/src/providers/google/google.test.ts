import { afterEach, describe, expect, it, vi } from "vitest";
import type { ModelRequest } from "../../agent/model-client.js";
import { OverlapError } from "../../errors.js";
import type { Message } from "../../stream/message.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { anthropicParams } from "../anthropic/anthropic.js";
import { messagesForClaude } from "../anthropic/messages-for-claude.js";
import { geminiModel, geminiRequestBody, geminiStreamUrl, toGeminiContents } from "./google.js";

const TOOLS: ModelRequest["tools"] = [
  {
    name: "add_to_cart",
    description: "Adds a product.",
    input_schema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { sku: { type: "string" } },
      required: ["sku"],
      additionalProperties: false,
    },
  },
  {
    name: "cart_total",
    description: "The total.",
    input_schema: { type: "object", properties: {} },
  },
];

/** A conversation with a Gemini round (signatures, synthetic ids) and one from Claude. */
const CONVERSATION: Message[] = [
  { role: "user", content: "Add shoes and total." },
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "Plan.", signature: "", thoughtSignature: "sig-thought" },
      { type: "thinking", thinking: "Unsigned summary.", signature: "" },
      { type: "text", text: "Adding." },
      { type: "text", text: "   " },
      {
        type: "tool_use",
        id: "gemini-r1-1",
        name: "add_to_cart",
        input: { sku: "S-1" },
        thoughtSignature: "sig-call",
      },
      { type: "tool_use", id: "fc_api_2", name: "cart_total", input: {} },
    ],
  },
  {
    role: "user",
    content: [
      { type: "tool_result", tool_use_id: "gemini-r1-1", content: "added" },
      {
        type: "tool_result",
        tool_use_id: "fc_api_2",
        content: [{ type: "text", text: "no cart" }],
        is_error: true,
      },
      { type: "text", text: "Thanks." },
    ],
  },
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "Claude's.", signature: "EqClaude" },
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } },
      { type: "text", text: "Done.", thoughtSignature: "sig-text" },
    ],
  },
  { role: "user", content: "And now?" },
];

describe("geminiRequestBody (pure)", () => {
  it("maps the conversation to contents: signatures back on their parts, responses named after their calls, foreign blocks left out", () => {
    expect(toGeminiContents(CONVERSATION)).toEqual([
      { role: "user", parts: [{ text: "Add shoes and total." }] },
      {
        role: "model",
        parts: [
          { text: "Plan.", thought: true, thoughtSignature: "sig-thought" },
          { text: "Unsigned summary.", thought: true },
          { text: "Adding." },
          {
            functionCall: { name: "add_to_cart", args: { sku: "S-1" } },
            thoughtSignature: "sig-call",
          },
          // An id the API gave goes back; one overlap made up does not.
          { functionCall: { name: "cart_total", args: {}, id: "fc_api_2" } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "add_to_cart", response: { result: "added" } } },
          {
            functionResponse: {
              name: "cart_total",
              response: { error: "no cart" },
              id: "fc_api_2",
            },
          },
          { text: "Thanks." },
        ],
      },
      { role: "model", parts: [{ text: "Done.", thoughtSignature: "sig-text" }] },
      { role: "user", parts: [{ text: "And now?" }] },
    ]);
  });

  it("system → systemInstruction, tools → functionDeclarations with parametersJsonSchema, the limit → generationConfig.maxOutputTokens (merged with params)", () => {
    const body = geminiRequestBody(
      {
        system: "Be brief.",
        messages: [{ role: "user", content: "hi" }],
        tools: TOOLS,
        maxTokens: 256,
      },
      {
        maxTokens: 1024,
        params: {
          generationConfig: { temperature: 0.2, thinkingConfig: { includeThoughts: true } },
          safetySettings: [],
        },
      },
    );
    expect(body).toEqual({
      safetySettings: [],
      generationConfig: {
        temperature: 0.2,
        thinkingConfig: { includeThoughts: true },
        maxOutputTokens: 256,
      },
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      systemInstruction: { parts: [{ text: "Be brief." }] },
      tools: [
        {
          functionDeclarations: TOOLS.map((t) => ({
            name: t.name,
            description: t.description,
            parametersJsonSchema: t.input_schema,
          })),
        },
      ],
    });
    expect(geminiRequestBody({ messages: [{ role: "user", content: "hi" }], tools: [] })).toEqual({
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
    });
  });

  it("base64 images become inlineData; a model message left with no parts is left out", () => {
    expect(
      toGeminiContents([
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            {
              type: "image",
              source: { type: "base64", media_type: "image/png", data: "iVBORw0" },
            } as never,
          ],
        },
        {
          role: "assistant",
          content: [{ type: "thinking", thinking: "x", signature: "EqClaude" }],
        },
        { role: "user", content: "hm?" },
      ]),
    ).toEqual([
      {
        role: "user",
        parts: [
          { text: "What is this?" },
          { inlineData: { mimeType: "image/png", data: "iVBORw0" } },
        ],
      },
      { role: "user", parts: [{ text: "hm?" }] },
    ]);
  });

  it("the endpoint: the model (a models/ prefix accepted) and ?alt=sse", () => {
    expect(geminiStreamUrl({ model: "models/gemini-2.5-flash" })).toBe(
      "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    );
    expect(geminiStreamUrl({ model: "scripted-x", baseUrl: "http://127.0.0.1:9/" })).toBe(
      "http://127.0.0.1:9/v1beta/models/scripted-x:streamGenerateContent?alt=sse",
    );
  });
});

describe("the Messages API never receives what only Gemini reads", () => {
  it("messagesForClaude drops Gemini signatures and unsigned thinking; a Claude-only conversation is passed by identity", () => {
    const claudeOnly: Message[] = [
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "t", signature: "EqClaude" },
          { type: "text", text: "hello" },
        ],
      },
    ];
    expect(messagesForClaude(claudeOnly)).toBe(claudeOnly);
    const mapped = messagesForClaude(CONVERSATION);
    expect(mapped[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Adding." },
        { type: "text", text: "   " },
        { type: "tool_use", id: "gemini-r1-1", name: "add_to_cart", input: { sku: "S-1" } },
        { type: "tool_use", id: "fc_api_2", name: "cart_total", input: {} },
      ],
    });
    expect(mapped[3]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Claude's.", signature: "EqClaude" },
        { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } },
        { type: "text", text: "Done." },
      ],
    });
    expect(mapped[2]).toBe(CONVERSATION[2]);
    // The conversation itself is never changed.
    expect(CONVERSATION[1]!.content[0]).toHaveProperty("thoughtSignature", "sig-thought");
    expect(
      JSON.stringify(anthropicParams({ messages: CONVERSATION, tools: [] }, { model: "m" })),
    ).not.toMatch(/thoughtSignature|sig-/);
  });
});

// ---------------------------------------------------------------------------------------------
// The adapter over an injected fetch

const encoder = new TextEncoder();

/** An SSE body from frames, optionally cut (no end) after them. */
function sseBody(frames: unknown[], cut = false): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const frame of frames) {
        controller.enqueue(
          encoder.encode(`data: ${typeof frame === "string" ? frame : JSON.stringify(frame)}\n\n`),
        );
      }
      if (cut) controller.error(new TypeError("terminated"));
      else controller.close();
    },
  });
}

const TEXT_CHUNK = {
  candidates: [{ content: { role: "model", parts: [{ text: "Hi" }] }, index: 0 }],
  responseId: "r1",
  modelVersion: "gemini-x",
};
const FINAL_CHUNK = {
  candidates: [
    { content: { role: "model", parts: [{ text: "" }] }, finishReason: "STOP", index: 0 },
  ],
  usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1 },
  responseId: "r1",
};

interface Sent {
  url: string;
  init: RequestInit;
}

function fakeFetch(responses: Array<() => Response>, sent: Sent[] = []): typeof fetch {
  return async (input, init) => {
    sent.push({ url: String(input), init: init ?? {} });
    const next = responses.shift();
    if (!next) throw new Error("no more responses");
    return next();
  };
}

async function collect(batches: AsyncIterable<readonly StreamEvent[]>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const batch of batches) out.push(...batch);
  return out;
}

const REQUEST: ModelRequest = { messages: [{ role: "user", content: "hi" }], tools: TOOLS };
const signal = () => new AbortController().signal;

/** A body of the given text or byte chunks, as they would arrive from the network. */
function sseText(chunks: ReadonlyArray<string | Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) {
        controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
      }
      controller.close();
    },
  });
}

/** The events a Gemini model streams from `body`. */
function eventsOf(body: ReadableStream<Uint8Array>): Promise<StreamEvent[]> {
  const model = geminiModel({
    model: "gemini-x",
    apiKey: "k",
    fetch: fakeFetch([() => new Response(body)]),
  });
  return collect(model.stream(REQUEST, { signal: signal() }));
}

describe("geminiModel over fetch", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("POSTs the body to :streamGenerateContent?alt=sse with x-goog-api-key and yields the neutral events", async () => {
    const sent: Sent[] = [];
    const model = geminiModel({
      model: "gemini-x",
      apiKey: "key-1",
      baseUrl: "http://gemini.test",
      maxTokens: 50,
      fetch: fakeFetch([() => new Response(sseBody([TEXT_CHUNK, FINAL_CHUNK]))], sent),
    });
    expect(model.label).toBe("gemini-x");
    const events = await collect(model.stream(REQUEST, { signal: signal() }));
    expect(events.map((e) => e.type)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(sent[0]!.url).toBe(
      "http://gemini.test/v1beta/models/gemini-x:streamGenerateContent?alt=sse",
    );
    expect(sent[0]!.init.method).toBe("POST");
    expect(sent[0]!.init.headers).toMatchObject({ "x-goog-api-key": "key-1" });
    expect(JSON.parse(String(sent[0]!.init.body))).toEqual(
      geminiRequestBody(REQUEST, { maxTokens: 50 }),
    );
  });

  it("frames the body with SseDecoder: CR, LF and CRLF line ends, one leading byte order mark, comments, id and retry fields, any chunking", async () => {
    const lf = `data: ${JSON.stringify(TEXT_CHUNK)}\n\ndata: ${JSON.stringify(FINAL_CHUNK)}\n\n`;
    const baseline = await eventsOf(sseText([lf]));
    expect(baseline.map((e) => e.type)).toContain("message_stop");
    const variants = [
      lf.replaceAll("\n", "\r\n"),
      lf.replaceAll("\n", "\r"),
      `\uFEFF: keep-alive\nid: 7\nretry: 1000\nevent: message\n${lf}`,
    ];
    for (const text of variants) {
      expect(await eventsOf(sseText([text]))).toEqual(baseline);
      // One byte at a time: a CRLF, a multi-byte character and the BOM are split across chunks.
      const bytes = encoder.encode(text);
      expect(await eventsOf(sseText(Array.from(bytes, (b) => new Uint8Array([b]))))).toEqual(
        baseline,
      );
    }
    // Only one byte order mark is stripped: a second is text, so the first frame's field is not
    // `data` and that frame (the text) is ignored, as an EventSource would.
    const twice = await eventsOf(sseText([`\uFEFF\uFEFF${lf}`]));
    expect(twice.map((e) => e.type)).toEqual(["message_start", "message_delta", "message_stop"]);
  });

  it("takes the key from GEMINI_API_KEY, else GOOGLE_API_KEY", async () => {
    for (const [env, expected] of [
      [{ GEMINI_API_KEY: "g1", GOOGLE_API_KEY: "g2" }, "g1"],
      [{ GEMINI_API_KEY: "", GOOGLE_API_KEY: "g2" }, "g2"],
    ] as const) {
      for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value || undefined);
      const sent: Sent[] = [];
      const model = geminiModel({
        model: "m",
        fetch: fakeFetch([() => new Response(sseBody([FINAL_CHUNK]))], sent),
      });
      await collect(model.stream(REQUEST, { signal: signal() }));
      expect(sent[0]!.init.headers).toMatchObject({ "x-goog-api-key": expected });
    }
  });

  it("a non-2xx answer before the stream is provider_error with the API's message, status and error status", async () => {
    const body = {
      error: {
        code: 400,
        message: "* GenerateContentRequest.contents: contents is not specified\n",
        status: "INVALID_ARGUMENT",
      },
    };
    const model = geminiModel({
      model: "m",
      apiKey: "k",
      fetch: fakeFetch([() => Response.json(body, { status: 400 })]),
    });
    const error = await collect(model.stream(REQUEST, { signal: signal() })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OverlapError);
    expect(error).toMatchObject({
      code: "provider_error",
      message:
        "The model request failed: 400 * GenerateContentRequest.contents: contents is not specified\n",
      details: { status: 400, type: "INVALID_ARGUMENT" },
    });
  });

  it("retries 429/503 before the stream (retry-after honoured), up to maxRetries", async () => {
    const unavailable = () =>
      Response.json(
        {
          error: {
            code: 503,
            message: "The model is overloaded. Please try again later.",
            status: "UNAVAILABLE",
          },
        },
        { status: 503, headers: { "retry-after": "0" } },
      );
    const sent: Sent[] = [];
    const ok = geminiModel({
      model: "m",
      apiKey: "k",
      fetch: fakeFetch(
        [unavailable, unavailable, () => new Response(sseBody([FINAL_CHUNK]))],
        sent,
      ),
    });
    expect((await collect(ok.stream(REQUEST, { signal: signal() }))).at(-1)).toEqual({
      type: "message_stop",
    });
    expect(sent).toHaveLength(3);
    const none = geminiModel({
      model: "m",
      apiKey: "k",
      maxRetries: 0,
      fetch: fakeFetch([unavailable]),
    });
    await expect(collect(none.stream(REQUEST, { signal: signal() }))).rejects.toMatchObject({
      code: "provider_error",
      details: { status: 503, type: "UNAVAILABLE" },
    });
  });

  it("an error event mid-stream becomes a neutral error event; a cut stream throws stream_interrupted", async () => {
    const failing = geminiModel({
      model: "m",
      apiKey: "k",
      fetch: fakeFetch([
        () =>
          new Response(
            sseBody([
              TEXT_CHUNK,
              { error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } },
            ]),
          ),
      ]),
    });
    const events = await collect(failing.stream(REQUEST, { signal: signal() }));
    expect(events.at(-1)).toEqual({
      type: "error",
      error: { type: "UNAVAILABLE", message: "The model is overloaded." },
    });
    for (const cut of [true, false]) {
      const model = geminiModel({
        model: "m",
        apiKey: "k",
        fetch: fakeFetch([() => new Response(sseBody([TEXT_CHUNK], cut))]),
      });
      await expect(
        collect(model.stream(REQUEST, { signal: signal() })),
        `cut: ${cut}`,
      ).rejects.toMatchObject({
        code: "stream_interrupted",
      });
    }
    const broken = geminiModel({
      model: "m",
      apiKey: "k",
      fetch: fakeFetch([() => new Response(sseBody(["not json"]))]),
    });
    await expect(collect(broken.stream(REQUEST, { signal: signal() }))).rejects.toMatchObject({
      code: "stream_protocol",
    });
  });

  it("aborting ends the request and the stream quietly", async () => {
    const controller = new AbortController();
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(encoder.encode(`data: ${JSON.stringify(TEXT_CHUNK)}\n\n`));
      },
      cancel() {
        cancelled = true;
      },
    });
    const model = geminiModel({
      model: "m",
      apiKey: "k",
      fetch: fakeFetch([() => new Response(body)]),
    });
    const events: StreamEvent[] = [];
    for await (const batch of model.stream(REQUEST, { signal: controller.signal })) {
      for (const event of batch) {
        events.push(event);
        if (event.type === "content_block_delta") controller.abort();
      }
    }
    expect(events.at(-1)?.type).toBe("content_block_delta");
    expect(cancelled).toBe(true);
    const aborted = new AbortController();
    aborted.abort();
    const before = geminiModel({
      model: "m",
      apiKey: "k",
      fetch: async (_url, init) => {
        init?.signal?.throwIfAborted();
        return new Response(sseBody([FINAL_CHUNK]));
      },
    });
    expect(await collect(before.stream(REQUEST, { signal: aborted.signal }))).toEqual([]);
  });

  it("an SSE event that never ends is limit_exceeded at maxEventChars, after the events before it; the body is cancelled", async () => {
    for (const oneLine of [true, false]) {
      let pulls = 0;
      let cancelled = false;
      // One whole event, then an event that keeps growing (one endless data line, or endless
      // data lines with no blank line), 1,000 characters a pull; it gives up after 1,000 pulls
      // so that a reader with no bound ends instead of hanging.
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(encoder.encode(`data: ${JSON.stringify(TEXT_CHUNK)}\n\ndata: `));
        },
        pull(c) {
          pulls++;
          if (pulls > 1000) c.close();
          else c.enqueue(encoder.encode(oneLine ? "x".repeat(1000) : `${"x".repeat(993)}\ndata: `));
        },
        cancel() {
          cancelled = true;
        },
      });
      const model = geminiModel({
        model: "m",
        apiKey: "k",
        maxEventChars: 20_000,
        fetch: fakeFetch([() => new Response(body)]),
      });
      const events: StreamEvent[] = [];
      const error = await (async () => {
        for await (const batch of model.stream(REQUEST, { signal: signal() }))
          events.push(...batch);
      })().catch((e: unknown) => e);
      expect(error, `one line: ${oneLine}`).toBeInstanceOf(OverlapError);
      expect(error).toMatchObject({ code: "limit_exceeded", details: { limit: 20_000 } });
      expect(events.map((e) => e.type)).toContain("content_block_delta");
      expect(pulls).toBeLessThan(40);
      expect(cancelled).toBe(true);
    }
  });
});
