import { describe, expect, it } from "vitest";
import { encodeGeminiStream, GEMINI_STREAM_ERROR_FRAME } from "./gemini-wire.js";
import { IdFactory } from "./id-factory.js";
import { paceBlocks, resolvePacing } from "./pacing.js";
import { resolveScript } from "./resolve-script.js";
import { SeededRandom } from "./seeded-random.js";
import {
  parseSse,
  rawPost,
  SHOP_TOOLS,
  startTestSim,
  THREE_CALL_INPUTS,
  THREE_CALLS,
} from "./test-support.js";

const sim = await startTestSim();
const MODEL = "gemini-2.5-flash";
const STREAM = `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`;
const WHOLE = `/v1beta/models/scripted-gemini:generateContent`;

/** The shop tools as Gemini function declarations. */
const TOOLS = [
  {
    functionDeclarations: SHOP_TOOLS.map((t) => ({
      name: t.name,
      description: t.description,
      parametersJsonSchema: t.input_schema,
    })),
  },
];

type Json = Record<string, unknown>;
type Part = Json & {
  text?: string;
  thought?: boolean;
  functionCall?: Json;
  thoughtSignature?: string;
};

const ask = (text: string, extra: Json = {}): Json => ({
  contents: [{ role: "user", parts: [{ text }] }],
  tools: TOOLS,
  ...extra,
});

/** POSTs to the streaming route; the chunks' JSON. */
async function stream(body: unknown, headers: Record<string, string> = {}, path = STREAM) {
  const answer = await rawPost(`${sim.url}${path}`, body, headers);
  const frames = parseSse(answer.text);
  return { ...answer, frames, chunks: frames.map((f) => JSON.parse(f.data) as Json) };
}

function partsOf(chunk: Json): Part[] {
  const candidate = (chunk.candidates as Json[] | undefined)?.[0];
  return ((candidate?.content as Json | undefined)?.parts as Part[] | undefined) ?? [];
}

function finishOf(chunk: Json): unknown {
  return (chunk.candidates as Json[] | undefined)?.[0]?.finishReason;
}

async function error(body: unknown, headers: Record<string, string> = {}, path = STREAM) {
  const answer = await rawPost(`${sim.url}${path}`, body, headers);
  return { status: answer.status, body: JSON.parse(answer.text) as { error: Json } };
}

describe("Gemini streamGenerateContent?alt=sse", () => {
  it("streams text deltas, each call whole in one chunk (args an object, no id), the signature on the first call, then STOP and the usage", async () => {
    const { status, headers, text, frames, chunks } = await stream(ask(THREE_CALLS));
    expect(status).toBe(200);
    expect(headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(text).toBe(frames.map((f) => `data: ${f.data}\n\n`).join(""));
    expect(frames.every((f) => f.event === undefined)).toBe(true);
    for (const chunk of chunks) {
      expect(Object.keys(chunk)).toEqual([
        "candidates",
        "usageMetadata",
        "modelVersion",
        "responseId",
      ]);
      expect(chunk.modelVersion).toBe("scripted-sim");
      expect(chunk.responseId).toBe(chunks[0]?.responseId);
    }
    expect(chunks[0]?.responseId).toMatch(/^[0-9A-Za-z]{23}$/);
    const parts = chunks.flatMap(partsOf);
    const texts = parts
      .filter((p) => p.text !== undefined)
      .map((p) => p.text)
      .join("");
    expect(texts).toBe("Calling add_to_cart, add_to_cart and cart_total.");
    const callChunks = chunks.filter((c) => partsOf(c).some((p) => p.functionCall));
    expect(callChunks).toHaveLength(3);
    const calls = callChunks.map((c) => partsOf(c));
    for (const callParts of calls) expect(callParts).toHaveLength(1);
    expect(calls.map(([p]) => p!.functionCall)).toEqual([
      { name: "add_to_cart", args: THREE_CALL_INPUTS[0] },
      { name: "add_to_cart", args: THREE_CALL_INPUTS[1] },
      { name: "cart_total", args: {} },
    ]);
    expect(calls[0]![0]!.thoughtSignature).toMatch(/^[A-Za-z0-9+/]{100,}$/);
    expect(calls.slice(1).map(([p]) => p!.thoughtSignature)).toEqual([undefined, undefined]);
    const last = chunks.at(-1)!;
    expect(finishOf(last)).toBe("STOP");
    expect(partsOf(last)).toEqual([{ text: "" }]);
    expect(last.usageMetadata).toMatchObject({
      promptTokenCount: expect.any(Number),
      candidatesTokenCount: expect.any(Number),
    });
    expect(chunks.slice(0, -1).every((c) => finishOf(c) === undefined)).toBe(true);
  });

  it("a text answer carries its signature in a last chunk with an empty text part", async () => {
    const { chunks } = await stream(ask("Hello there"));
    expect(partsOf(chunks.at(-1)!)).toEqual([{ text: "", thoughtSignature: expect.any(String) }]);
    expect(finishOf(chunks.at(-1)!)).toBe("STOP");
  });

  it("reports a scripted- model asked for by name, and answers the same bytes for the same request", async () => {
    const path = "/v1beta/models/scripted-gemini:streamGenerateContent?alt=sse";
    const one = await stream(ask(THREE_CALLS), {}, path);
    const two = await stream(ask(THREE_CALLS), {}, path);
    expect(one.chunks[0]?.modelVersion).toBe("scripted-gemini");
    expect(two.text).toBe(one.text);
  });

  it("carries a conversation through a tool round: function responses pair with the calls by position", async () => {
    const { chunks } = await stream(ask(THREE_CALLS));
    const modelParts = chunks.flatMap(partsOf).filter((p) => p.text !== "");
    const next = await rawPost(`${sim.url}${WHOLE}`, {
      systemInstruction: { parts: [{ text: "You are a shop assistant." }] },
      tools: TOOLS,
      contents: [
        { role: "user", parts: [{ text: THREE_CALLS }] },
        { role: "model", parts: modelParts },
        {
          role: "user",
          parts: ["ok 1", "ok 2", "total 3"].map((result, i) => ({
            functionResponse: { name: i < 2 ? "add_to_cart" : "cart_total", response: { result } },
          })),
        },
      ],
    });
    expect(next.status).toBe(200);
    const body = JSON.parse(next.text) as Json;
    expect(body.modelVersion).toBe("scripted-gemini");
    expect(partsOf(body)).toEqual([
      {
        text: "Results: add_to_cart: ok 1; add_to_cart: ok 2; cart_total: total 3",
        thoughtSignature: expect.any(String),
      },
    ]);
    expect(finishOf(body)).toBe("STOP");
  });

  it("generateContent answers one body with the same parts, the signature on the first call", async () => {
    const answer = await rawPost(`${sim.url}${WHOLE}`, ask(THREE_CALLS));
    expect(answer.headers.get("content-type")).toBe("application/json");
    const body = JSON.parse(answer.text) as Json;
    const parts = partsOf(body);
    expect(parts[0]).toEqual({ text: "Calling add_to_cart, add_to_cart and cart_total." });
    expect(parts.slice(1).map((p) => p.functionCall)).toEqual([
      { name: "add_to_cart", args: THREE_CALL_INPUTS[0] },
      { name: "add_to_cart", args: THREE_CALL_INPUTS[1] },
      { name: "cart_total", args: {} },
    ]);
    expect(parts.map((p) => typeof p.thoughtSignature)).toEqual([
      "undefined",
      "string",
      "undefined",
      "undefined",
    ]);
    expect(finishOf(body)).toBe("STOP");
  });

  it("sends thought parts with the thinking fault or thinkingConfig.includeThoughts", async () => {
    for (const [body, headers] of [
      [ask(THREE_CALLS), { "x-sim-fault": "thinking" }],
      [ask(THREE_CALLS, { generationConfig: { thinkingConfig: { includeThoughts: true } } }), {}],
    ] as const) {
      const { chunks } = await stream(body, headers);
      const parts = chunks.flatMap(partsOf);
      expect(parts[0]?.thought).toBe(true);
      expect(
        parts
          .filter((p) => p.thought)
          .map((p) => p.text)
          .join(""),
      ).toMatch(/^The user wrote/);
      expect(chunks.at(-1)?.usageMetadata).toMatchObject({
        thoughtsTokenCount: expect.any(Number),
      });
    }
  });

  it("leaves web search out (no Gemini form) and puts consecutive calls in one chunk with multi-call-chunk", async () => {
    const plain = await stream(ask(THREE_CALLS));
    const searched = await stream(ask(THREE_CALLS), { "x-sim-fault": "web-search" });
    expect(searched.chunks.flatMap(partsOf).map((p) => p.functionCall?.name ?? "text")).toEqual(
      plain.chunks.flatMap(partsOf).map((p) => p.functionCall?.name ?? "text"),
    );
    const { chunks } = await stream(ask(THREE_CALLS), { "x-sim-quirk": "multi-call-chunk" });
    const withCalls = chunks.filter((c) => partsOf(c).some((p) => p.functionCall));
    expect(withCalls).toHaveLength(1);
    expect(partsOf(withCalls[0]!).map((p) => p.functionCall?.name)).toEqual([
      "add_to_cart",
      "add_to_cart",
      "cart_total",
    ]);
  });
});

describe("Gemini faults", () => {
  it("error-after=N: an error event in the API's shape, then the end", async () => {
    const { text, chunks } = await stream(ask(THREE_CALLS), { "x-sim-fault": "error-after=2" });
    expect(chunks).toHaveLength(3);
    expect(text.endsWith(GEMINI_STREAM_ERROR_FRAME)).toBe(true);
    expect(chunks[2]).toEqual({
      error: {
        code: 503,
        message: "The model is overloaded. Please try again later.",
        status: "UNAVAILABLE",
      },
    });
  });

  it("drop-after=N: the connection is cut after N chunks", async () => {
    const response = await fetch(`${sim.url}${STREAM}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-sim-fault": "drop-after=2" },
      body: JSON.stringify(ask(THREE_CALLS)),
    });
    const reader = response.body!.getReader();
    let text = "";
    await expect(
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          text += new TextDecoder().decode(value);
        }
      })(),
    ).rejects.toThrow();
    expect(parseSse(text)).toHaveLength(2);
  });

  it("invalid-json: the call cannot be an args object, so the response ends with MALFORMED_FUNCTION_CALL there", async () => {
    const { chunks } = await stream(ask(THREE_CALLS), { "x-sim-fault": "invalid-json" });
    const names = chunks
      .flatMap(partsOf)
      .flatMap((p) => (p.functionCall ? [p.functionCall.name] : []));
    expect(names).toEqual(["add_to_cart", "add_to_cart"]);
    const last = (chunks.at(-1)!.candidates as Json[])[0]!;
    expect(last).toEqual({
      content: {},
      finishReason: "MALFORMED_FUNCTION_CALL",
      finishMessage: "Malformed function call: call:cart_total{, }",
      index: 0,
    });
  });

  it("max-tokens: the call cut by the limit is left out; MAX_TOKENS (also for the request's maxOutputTokens)", async () => {
    const { chunks } = await stream(ask(THREE_CALLS), { "x-sim-fault": "max-tokens" });
    const names = chunks
      .flatMap(partsOf)
      .flatMap((p) => (p.functionCall ? [p.functionCall.name] : []));
    expect(names).toEqual(["add_to_cart", "add_to_cart"]);
    expect(finishOf(chunks.at(-1)!)).toBe("MAX_TOKENS");
    const limited = await stream(ask("Hello there", { generationConfig: { maxOutputTokens: 5 } }));
    expect(finishOf(limited.chunks.at(-1)!)).toBe("MAX_TOKENS");
    expect(
      limited.chunks
        .flatMap(partsOf)
        .map((p) => p.text)
        .join(""),
    ).toHaveLength(20);
  });

  it("status=429|529|500: Google's error body before the stream", async () => {
    const rate = await error(ask("hi"), { "x-sim-fault": "status=429" });
    expect(rate.status).toBe(429);
    expect(rate.body.error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
    expect(rate.body.error.details).toEqual([
      { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1s" },
    ]);
    expect(await error(ask("hi"), { "x-sim-fault": "status=529" })).toEqual({
      status: 503,
      body: {
        error: {
          code: 503,
          message: "The model is overloaded. Please try again later.",
          status: "UNAVAILABLE",
        },
      },
    });
    const internal = await error(ask("hi"), { "x-sim-fault": "status=500" });
    expect(internal.body.error).toMatchObject({ code: 500, status: "INTERNAL" });
  });

  it("the call's chunk is sent when its block would have finished (paced encoder)", () => {
    const ids = new IdFactory(new SeededRandom(7));
    const script = resolveScript(
      {
        blocks: [
          { type: "text", text: "Two calls." },
          { type: "tool_use", name: "a", input: { q: "a long argument to pace over time" } },
          { type: "tool_use", name: "b", input: { q: "another long argument, paced too" } },
        ],
      },
      { api: "gemini", ids },
    );
    const items = paceBlocks(
      script.blocks.map((b) => ({
        kind: b.type === "text" ? "text" : "args",
        content: b.type === "tool_use" ? b.args : b.type === "text" ? b.text : "",
      })),
      resolvePacing({ tokensPerSecond: 50, firstTokenMs: 100, jitter: 0, seed: 3 }),
    );
    const frames = encodeGeminiStream(script, items, {
      responseId: "r",
      model: "scripted-sim",
      promptTokens: 10,
      thoughtSignature: "sig",
      multiCallChunk: false,
    });
    const stops = items.filter((i) => i.type === "block-stop" && i.index > 0).map((i) => i.atMs);
    const callFrames = frames.filter((f) => f.text.includes("functionCall")).map((f) => f.atMs);
    expect(callFrames).toEqual(stops);
    const starts = items.filter((i) => i.type === "block-start" && i.index > 0).map((i) => i.atMs);
    expect(callFrames[0]).toBeGreaterThan(starts[0]!);
  });
});

describe("Gemini request validation (400 INVALID_ARGUMENT in the API's wording)", () => {
  const call = (name: string, signature = true): Json => ({
    functionCall: { name, args: {} },
    ...(signature ? { thoughtSignature: "c2ln" } : {}),
  });
  const response = (name: string): Json => ({
    functionResponse: { name, response: { result: "ok" } },
  });
  const user = (text: string): Json => ({ role: "user", parts: [{ text }] });
  const cases: Array<[string, unknown, string]> = [
    [
      "no contents",
      { tools: TOOLS },
      "* GenerateContentRequest.contents: contents is not specified\n",
    ],
    [
      "empty contents",
      { contents: [] },
      "* GenerateContentRequest.contents: contents is not specified\n",
    ],
    [
      "empty parts",
      { contents: [user("hi"), { role: "model", parts: [] }] },
      "* GenerateContentRequest.contents[1].parts: contents.parts must not be empty.\n",
    ],
    [
      "a bad role",
      { contents: [{ role: "assistant", parts: [{ text: "x" }] }] },
      "Please use a valid role: user, model.",
    ],
    [
      "a part without data",
      { contents: [{ role: "user", parts: [{ thought: true }] }] },
      "* GenerateContentRequest.contents[0].parts[0].data: required oneof field 'data' must have one initialized field\n",
    ],
    [
      "a signature inside functionCall",
      {
        contents: [
          user("hi"),
          {
            role: "model",
            parts: [{ functionCall: { name: "f", args: {}, thoughtSignature: "x" } }],
          },
          { role: "user", parts: [response("f")] },
        ],
      },
      `Invalid JSON payload received. Unknown name "thoughtSignature" at 'contents[1].parts[0].function_call': Cannot find field.`,
    ],
    [
      "an unknown top-level field",
      { contents: [user("hi")], messages: [] },
      `Invalid JSON payload received. Unknown name "messages": Cannot find field.`,
    ],
    [
      "a call left unanswered before a user text",
      { contents: [user("hi"), { role: "model", parts: [call("f")] }, user("never mind")] },
      "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
    ],
    [
      "a call left unanswered at the end",
      { contents: [user("hi"), { role: "model", parts: [call("f"), call("g", false)] }] },
      "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
    ],
    [
      "two calls, one response",
      {
        contents: [
          user("hi"),
          { role: "model", parts: [call("f"), call("g", false)] },
          { role: "user", parts: [response("f")] },
        ],
      },
      "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
    ],
    [
      "a call turn first",
      {
        contents: [
          { role: "model", parts: [call("f")] },
          { role: "user", parts: [response("f")] },
        ],
      },
      "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
    ],
    [
      "a response without a call turn",
      {
        contents: [
          user("hi"),
          { role: "model", parts: [{ text: "ok" }] },
          { role: "user", parts: [response("f")] },
        ],
      },
      "Please ensure that function response turn comes immediately after a function call turn.",
    ],
    [
      "a call of the current turn without its signature",
      {
        contents: [
          user("hi"),
          { role: "model", parts: [call("lookup", false)] },
          { role: "user", parts: [response("lookup")] },
        ],
      },
      "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:lookup` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.",
    ],
    [
      "an invalid function name",
      {
        contents: [user("hi")],
        tools: [{ functionDeclarations: [{ name: "9 lives", description: "x" }] }],
      },
      "* GenerateContentRequest.tools[0].function_declarations[0].name: Invalid function name. Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots, colons and dashes, with a maximum length of 128.\n",
    ],
    ["a body that is not JSON", "{", "Invalid JSON payload received. Unexpected end of string."],
  ];
  for (const [name, body, message] of cases) {
    it(name, async () => {
      expect(await error(body)).toEqual({
        status: 400,
        body: { error: { code: 400, message, status: "INVALID_ARGUMENT" } },
      });
    });
  }

  it("accepts proto field names, a signature only on the first call, and an earlier turn's calls without signatures", async () => {
    const answer = await rawPost(`${sim.url}${WHOLE}`, {
      contents: [
        user("first"),
        { role: "model", parts: [{ function_call: { name: "f", args: {} } }] },
        { role: "user", parts: [{ function_response: { name: "f", response: { result: "1" } } }] },
        { role: "model", parts: [{ text: "done" }] },
        user("second"),
        { role: "model", parts: [call("f"), call("g", false)] },
        { role: "user", parts: [response("f"), response("g")] },
      ],
      system_instruction: { parts: [{ text: "Be brief." }] },
      generation_config: { max_output_tokens: 100 },
    });
    expect(answer.status).toBe(200);
  });

  it("wants ?alt=sse for streaming, and answers Google's 404 elsewhere under /v1beta", async () => {
    const noSse = await error(ask("hi"), {}, `/v1beta/models/${MODEL}:streamGenerateContent`);
    expect(noSse.status).toBe(400);
    expect(noSse.body.error.message).toMatch(/add \?alt=sse/);
    expect(await error(ask("hi"), {}, `/v1beta/models/${MODEL}:countTokens`)).toEqual({
      status: 404,
      body: {
        error: { code: 404, message: "Requested entity was not found.", status: "NOT_FOUND" },
      },
    });
  });
});
