/**
 * Overlap's read of a response gives the same events and the same errors as the SDK's own stream
 * (the reference, `sdk-stream-reference.testkit.ts`; for Bedrock the SDK's event stream, which
 * `bedrockModel` reads itself when the HTTP handler is not Node's): overlap's reader (the SDK
 * sends the request, overlap splits the body, one array of events per read), for
 * `anthropicModel`, `openaiChatModel`, `openaiResponsesModel` and `bedrockModel`. Every response of the adapter's
 * format among the real recordings (../shared/realstreams, or the directory
 * `OVERLAP_REALSTREAMS_DIR` names), delivered whole, byte by byte and in seeded random pieces,
 * plus the faults a server can produce: an error event mid-stream, malformed JSON, a cut body,
 * pings and frames without a name, an HTTP error before the stream. Overlap's reader runs twice:
 * on a web stream (any fetch) and straight from Node's socket (`nodeHttpFetch`, a real local HTTP
 * server writing the pieces, paced reads on and off). `geminiModel` has no SDK stream: its events
 * are the same on a web stream and straight from the socket.
 */

import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createHttp2Server, constants as http2Constants } from "node:http2";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { Readable } from "node:stream";
import Anthropic from "@anthropic-ai/sdk";
import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { NodeHttp2Handler, NodeHttpHandler } from "@smithy/node-http-handler";
import OpenAI from "openai";
import { awsEvent, awsException, encodeEventStreamMessage } from "overlap-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelClient, ModelRequest } from "../agent/model-client.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { anthropicModel } from "./anthropic/anthropic.js";
import { bedrockModel } from "./bedrock/bedrock.js";
import { geminiModel } from "./google/google.js";
import { createNodeHttpFetch } from "./node/node-http-fetch.js";
import { openaiChatModel } from "./openai/openai.js";
import { openaiResponsesModel } from "./openai/openai-responses.js";
import { REALSTREAMS_DIR } from "./realstreams.testkit.js";
import {
  anthropicSdkReference,
  chatSdkReference,
  responsesSdkReference,
} from "./sdk-stream-reference.testkit.js";

/** Every recorded response body of a format (`anthropic`, `chat`, `responses`...), named. */
function recordedBodies(format: string): Array<{ name: string; body: Uint8Array }> {
  const out: Array<{ name: string; body: Uint8Array }> = [];
  for (const folder of ["fixtures", "formats"]) {
    const manifest = resolve(REALSTREAMS_DIR, folder, "manifest.json");
    if (!existsSync(manifest)) continue;
    const entries = JSON.parse(readFileSync(manifest, "utf8")) as Array<{
      name: string;
      format: string;
      responses: string[];
    }>;
    for (const entry of entries) {
      if (entry.format !== format) continue;
      for (const response of entry.responses) {
        out.push({
          name: `${folder}/${response}`,
          body: new Uint8Array(readFileSync(resolve(REALSTREAMS_DIR, folder, response))),
        });
      }
    }
  }
  return out;
}

/** Splits bytes into pieces: whole, one byte each, or seeded random sizes of 1 to 97 bytes. */
function pieces(body: Uint8Array, how: "whole" | "bytes" | number): Uint8Array[] {
  if (how === "whole") return [body];
  if (how === "bytes") return Array.from(body, (_, i) => body.subarray(i, i + 1));
  let seed = how;
  const out: Uint8Array[] = [];
  for (let at = 0; at < body.length; ) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    const size = 1 + (seed % 97);
    out.push(body.subarray(at, at + size));
    at += size;
  }
  return out;
}

/** A fetch whose every request is answered with `status` and these pieces of body. */
function fetchAnswering(chunks: readonly Uint8Array[], status = 200): typeof globalThis.fetch {
  const fetch = async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(chunk);
          controller.close();
        },
      }),
      {
        status,
        headers: { "content-type": status === 200 ? "text/event-stream" : "application/json" },
      },
    );
  return fetch as unknown as typeof globalThis.fetch;
}

/**
 * How a response is read: the SDK's own stream, overlap's reader on the fetch's web stream, or
 * overlap's reader straight from Node's socket (`node`: paced reads, `node-unpaced`: none).
 */
type Path = "sdk" | "reader" | "node" | "node-unpaced";
/** The paths of overlap's own reader, each compared with the SDK's stream. */
const OUR_PATHS = ["reader", "node", "node-unpaced"] as const;
/**
 * The paths a recording is read on in pieces of `how`: byte by byte over a real socket costs a
 * write per byte, so a whole recording goes byte by byte through the web stream only (the short
 * fault bodies go byte by byte on every path).
 */
const pathsFor = (how: "whole" | "bytes" | number): readonly Path[] =>
  how === "bytes" ? ["reader"] : OUR_PATHS;

/**
 * A local HTTP server answering each request with the pieces its `x-answer` header names: each
 * piece one write (one chunk of a chunked body), a turn of the event loop after every few pieces so
 * that the socket reads split them in different places.
 */
const answers = new Map<string, { chunks: readonly Uint8Array[]; status: number }>();
let server: Server;
let origin = "";
beforeAll(async () => {
  server = createServer(async (req, res) => {
    req.resume();
    const answer = answers.get(String(req.headers["x-answer"]));
    if (!answer) {
      res.writeHead(500).end();
      return;
    }
    res.writeHead(answer.status, {
      "content-type": answer.status === 200 ? "text/event-stream" : "application/json",
      // Bedrock reads its message id from here; the other formats ignore it.
      "x-amzn-requestid": "r1",
    });
    for (const [i, chunk] of answer.chunks.entries()) {
      if (chunk.length > 0) res.write(chunk);
      if (i % 5 === 4) await new Promise((next) => setImmediate(next));
    }
    res.end();
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const nodeFetches = {
  node: createNodeHttpFetch({ minReadIntervalMs: 4 }),
  "node-unpaced": createNodeHttpFetch({ minReadIntervalMs: 0 }),
};
let nextAnswer = 0;

/** A fetch answering every request with `status` and these pieces, the way `path` reads. */
function answering(path: Path, chunks: readonly Uint8Array[], status: number): typeof fetch {
  if (path !== "node" && path !== "node-unpaced") return fetchAnswering(chunks, status);
  const nodeFetch = nodeFetches[path];
  const served = (input: string | URL | Request, init?: RequestInit) => {
    const id = String(nextAnswer++);
    answers.set(id, { chunks, status });
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    const headers = new Headers(init?.headers);
    headers.set("x-answer", id);
    return nodeFetch(`${origin}${url.pathname}${url.search}`, { ...init, headers });
  };
  return served as typeof fetch;
}

/** A client whose every request is answered with `status` and these pieces of body. */
function clientAnswering(chunks: readonly Uint8Array[], status = 200, path: Path = "reader") {
  return new Anthropic({ apiKey: "x", maxRetries: 0, fetch: answering(path, chunks, status) });
}

/** An OpenAI client answering the same way. */
function openaiAnswering(chunks: readonly Uint8Array[], status = 200, path: Path = "reader") {
  return new OpenAI({ apiKey: "x", maxRetries: 0, fetch: answering(path, chunks, status) });
}

const REQUEST: ModelRequest = { messages: [{ role: "user", content: "hi" }], tools: [] };

/** A model of one adapter answering with these pieces, on one path. */
type Make = (chunks: readonly Uint8Array[], path: Path, status?: number) => ModelClient;

const anthropicOn: Make = (chunks, path, status) => {
  const client = clientAnswering(chunks, status, path);
  return path === "sdk"
    ? anthropicSdkReference(client, "m")
    : anthropicModel({ client, model: "m" });
};

/** The events one path yields, and how it failed (code and message), if it did. */
async function readWith(model: ModelClient) {
  const events: StreamEvent[] = [];
  try {
    for await (const batch of model.stream(REQUEST, { signal: new AbortController().signal })) {
      events.push(...batch);
    }
    return { events, error: undefined };
  } catch (err) {
    const e = err as { code?: string; message?: string };
    return { events, error: { code: e.code, message: e.message } };
  }
}

async function read(chunks: readonly Uint8Array[], path: Path, status = 200) {
  return readWith(anthropicOn(chunks, path, status));
}

const encode = (text: string) => new TextEncoder().encode(text);
const frame = (event: string | undefined, data: unknown) =>
  `${event === undefined ? "" : `event: ${event}\n`}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
const START = frame("message_start", {
  type: "message_start",
  message: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "m",
    content: [],
    stop_reason: null,
    usage: { input_tokens: 3, output_tokens: 1 },
  },
});
const TEXT = [
  frame("content_block_start", {
    type: "content_block_start",
    index: 0,
    content_block: { type: "text", text: "" },
  }),
  frame("content_block_delta", {
    type: "content_block_delta",
    index: 0,
    delta: { type: "text_delta", text: "Hello" },
  }),
  frame("content_block_stop", { type: "content_block_stop", index: 0 }),
].join("");
const END = [
  frame("message_delta", {
    type: "message_delta",
    delta: { stop_reason: "end_turn" },
    usage: { output_tokens: 2 },
  }),
  frame("message_stop", { type: "message_stop" }),
].join("");

describe("anthropicModel reads a response the same way on both paths", () => {
  const bodies = recordedBodies("anthropic");
  it.skipIf(bodies.length > 0 || process.env.CI === "true")("has recordings here", () => {
    console.warn(
      `!!! No recorded Anthropic streams at ${REALSTREAMS_DIR}: only the faults are compared.`,
    );
  });
  it.runIf(process.env.CI === "true")("has recordings in CI", () => {
    expect(bodies.length).toBeGreaterThan(0);
  });

  for (const { name, body } of bodies) {
    it(`${name}: the same events whole, byte by byte and in random pieces`, async () => {
      const sdk = await read([body], "sdk");
      expect(sdk.events.length).toBeGreaterThan(0);
      // Byte by byte costs a read per byte: up to 32 KiB (the larger ones in random pieces).
      const ways =
        body.length <= 32_768
          ? (["whole", "bytes", 7, 1_234] as const)
          : (["whole", 7, 1_234] as const);
      for (const how of ways) {
        for (const path of pathsFor(how)) {
          expect(await read(pieces(body, how), path), `${name} ${how} ${path}`).toEqual(sdk);
        }
      }
    }, 60_000);
  }

  const faults: Array<[string, string]> = [
    ["a whole message", START + TEXT + END],
    [
      "pings and a frame without a name are skipped",
      `${frame("ping", { type: "ping" })}${START}${frame(undefined, { type: "ignored" })}${TEXT}${END}`,
    ],
    [
      "an error event mid-stream",
      `${START}${TEXT}${frame("error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } })}${END}`,
    ],
    ["an error event whose data is not JSON", `${START}${frame("error", "upstream went away")}`],
    ["malformed JSON", `${START}${frame("content_block_start", "{not json")}`],
    ["a body cut before message_stop", START + TEXT],
    ["a body cut inside an event", `${START}event: content_block_start\ndata: {"type":"content_`],
    ["an empty body", ""],
  ];
  for (const [what, text] of faults) {
    it(`${what}: the same events and the same failure`, async () => {
      const sdk = await read([encode(text)], "sdk");
      for (const how of ["whole", "bytes", 3] as const) {
        for (const path of OUR_PATHS) {
          expect(await read(pieces(encode(text), how), path), `${what} ${how} ${path}`).toEqual(
            sdk,
          );
        }
      }
    });
  }

  it("an HTTP error before the stream is provider_error on both", async () => {
    const body = encode(
      JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "bad" } }),
    );
    const sdk = await read([body], "sdk", 400);
    expect(sdk.error?.code).toBe("provider_error");
    for (const path of OUR_PATHS) expect(await read([body], path, 400), path).toEqual(sdk);
  });

  it("overlap's reader yields one array per network chunk, the same events flattened", async () => {
    const text = START + TEXT + END;
    const model = anthropicModel({
      client: clientAnswering([encode(START), encode(TEXT + END)]),
      model: "m",
    });
    const batches: StreamEvent[][] = [];
    for await (const batch of model.stream(REQUEST, { signal: new AbortController().signal })) {
      batches.push([...batch]);
    }
    expect(batches.map((b) => b.length)).toEqual([1, 5]);
    expect(batches.flat()).toEqual((await read([encode(text)], "sdk")).events);
  });
});

/** Both paths of an adapter over every recording of its format and over the faults. */
function samePaths(
  title: string,
  format: string,
  make: Make,
  faults: ReadonlyArray<[string, string | Uint8Array]>,
  httpError: string,
): void {
  describe(title, () => {
    const bodies = recordedBodies(format);
    it.runIf(process.env.CI === "true")("has recordings in CI", () => {
      expect(bodies.length).toBeGreaterThan(0);
    });
    for (const { name, body } of bodies) {
      it(`${name}: the same events whole, byte by byte and in random pieces`, async () => {
        const sdk = await readWith(make([body], "sdk"));
        expect(sdk.events.length).toBeGreaterThan(0);
        const ways =
          body.length <= 32_768
            ? (["whole", "bytes", 7, 1_234] as const)
            : (["whole", 7, 1_234] as const);
        for (const how of ways) {
          for (const path of pathsFor(how)) {
            expect(await readWith(make(pieces(body, how), path)), `${name} ${how} ${path}`).toEqual(
              sdk,
            );
          }
        }
      }, 60_000);
    }
    for (const [what, fault] of faults) {
      const body = typeof fault === "string" ? encode(fault) : fault;
      it(`${what}: the same events and the same failure`, async () => {
        const sdk = await readWith(make([body], "sdk"));
        for (const how of ["whole", "bytes", 3] as const) {
          for (const path of OUR_PATHS) {
            const ours = await readWith(make(pieces(body, how), path));
            expect(ours, `${what} ${how} ${path}`).toEqual(sdk);
          }
        }
      });
    }
    it("an HTTP error before the stream is provider_error on both", async () => {
      const sdk = await readWith(make([encode(httpError)], "sdk", 400));
      expect(sdk.error?.code).toBe("provider_error");
      for (const path of OUR_PATHS) {
        expect(await readWith(make([encode(httpError)], path, 400)), path).toEqual(sdk);
      }
    });
    it("overlap's reader yields one array per read", async () => {
      const [, fault] = faults[0]!;
      const whole = typeof fault === "string" ? encode(fault) : fault;
      const half = Math.floor(whole.length / 2);
      const model = make([whole.subarray(0, half), whole.subarray(half)], "reader");
      const batches: StreamEvent[][] = [];
      for await (const batch of model.stream(REQUEST, { signal: new AbortController().signal })) {
        batches.push([...batch]);
      }
      expect(batches.length).toBeGreaterThan(1);
      expect(batches.flat()).toEqual((await readWith(make([whole], "sdk"))).events);
    });
  });
}

const data = (value: unknown) =>
  `data: ${typeof value === "string" ? value : JSON.stringify(value)}\n\n`;
const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  data({
    id: "c1",
    object: "chat.completion.chunk",
    created: 1,
    model: "m",
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
const CHAT =
  chunk({ role: "assistant", content: "" }) +
  chunk({ content: "Hel" }) +
  chunk({
    tool_calls: [
      { index: 0, id: "call_1", type: "function", function: { name: "f", arguments: '{"a":' } },
    ],
  }) +
  chunk({ tool_calls: [{ index: 0, function: { arguments: "1}" } }] }) +
  chunk({}, "tool_calls") +
  data({
    id: "c1",
    object: "chat.completion.chunk",
    created: 1,
    model: "m",
    choices: [],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  }) +
  data("[DONE]");

samePaths(
  "openaiChatModel reads a response the same way on both paths",
  "chat",
  (chunks, path, status) => {
    const client = openaiAnswering(chunks, status, path);
    return path === "sdk" ? chatSdkReference(client, "m") : openaiChatModel({ client, model: "m" });
  },
  [
    ["a whole response", CHAT],
    ["frames after [DONE] are skipped", `${CHAT}${data("{not json")}${chunk({ content: "late" })}`],
    [
      "an error chunk mid-stream",
      `${chunk({ content: "Hel" })}${data({ error: { type: "server_error", message: "Overloaded" } })}${CHAT}`,
    ],
    [
      "an error chunk with a code only",
      `${chunk({ content: "x" })}${data({ error: { code: 503 } })}`,
    ],
    [
      "an error that is a string",
      `${chunk({ content: "x" })}${data({ error: "upstream went away" })}`,
    ],
    [
      "a named error event",
      `${chunk({ content: "x" })}event: error\ndata: {"error":{"message":"boom","type":"e"}}\n\n`,
    ],
    ["malformed JSON", `${chunk({ content: "x" })}${data("{not json")}`],
    ["a body cut before [DONE]", chunk({ content: "Hel" }) + chunk({}, "stop")],
    ["a body cut inside an event", `${chunk({ content: "Hel" })}data: {"id":"c1","obj`],
    ["comments and unnamed frames", `: keep-alive\n\n${CHAT}`],
    ["an empty body", ""],
  ],
  JSON.stringify({ error: { type: "invalid_request_error", message: "bad" } }),
);

const RESPONSES = [
  [
    "response.created",
    { type: "response.created", response: { id: "r1", status: "in_progress", output: [] } },
  ],
  [
    "response.output_item.added",
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { type: "message", id: "m1", role: "assistant", content: [] },
    },
  ],
  [
    "response.output_text.delta",
    {
      type: "response.output_text.delta",
      output_index: 0,
      content_index: 0,
      item_id: "m1",
      delta: "Hi",
    },
  ],
  [
    "response.output_item.done",
    {
      type: "response.output_item.done",
      output_index: 0,
      item: {
        type: "message",
        id: "m1",
        role: "assistant",
        content: [{ type: "output_text", text: "Hi", annotations: [] }],
      },
    },
  ],
  [
    "response.completed",
    {
      type: "response.completed",
      response: {
        id: "r1",
        status: "completed",
        output: [],
        usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4 },
      },
    },
  ],
]
  .map(([event, value]) => `event: ${event}\n${data(value)}`)
  .join("");

samePaths(
  "openaiResponsesModel reads a response the same way on both paths",
  "responses",
  (chunks, path, status) => {
    const client = openaiAnswering(chunks, status, path);
    return path === "sdk"
      ? responsesSdkReference(client, "m")
      : openaiResponsesModel({ client, model: "m" });
  },
  [
    ["a whole response", RESPONSES],
    [
      "an error event mid-stream",
      `${RESPONSES.slice(0, 200)}\n\nevent: error\n${data({ type: "error", code: "server_error", message: "Overloaded", param: null })}`,
    ],
    [
      "an error field in a frame",
      `event: response.created\n${data({ error: { message: "boom" } })}`,
    ],
    ["malformed JSON", `event: response.created\ndata: {not json\n\n`],
    ["a body cut before response.completed", RESPONSES.slice(0, RESPONSES.lastIndexOf("event:"))],
    ["an empty body", ""],
  ],
  JSON.stringify({ error: { type: "invalid_request_error", message: "bad" } }),
);

describe("geminiModel gives the same events on both read paths", () => {
  const GEMINI = [
    { candidates: [{ content: { role: "model", parts: [{ text: "Hel" }] } }], responseId: "r1" },
    {
      candidates: [
        {
          content: { role: "model", parts: [{ functionCall: { name: "f", args: { a: 1 } } }] },
          finishReason: "STOP",
        },
      ],
      usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2 },
      responseId: "r1",
    },
  ]
    .map(data)
    .join("");
  const gemini = (chunks: readonly Uint8Array[], path: Path = "reader") =>
    geminiModel({ model: "m", apiKey: "x", maxRetries: 0, fetch: answering(path, chunks, 200) });
  const geminiBodies = recordedBodies("gemini");
  it.runIf(process.env.CI === "true")("has recordings in CI", () => {
    expect(geminiBodies.length).toBeGreaterThan(0);
  });
  for (const { name, body } of geminiBodies) {
    it(`${name}: the same events on the web stream and straight from the socket`, async () => {
      const web = await readWith(gemini([body]));
      expect(web.events.length).toBeGreaterThan(0);
      for (const how of ["whole", "bytes", 7, 1_234] as const) {
        for (const path of pathsFor(how)) {
          expect(await readWith(gemini(pieces(body, how), path)), `${name} ${how} ${path}`).toEqual(
            web,
          );
        }
      }
    }, 60_000);
  }
  const cases: Array<[string, string]> = [
    ["a whole response", GEMINI],
    [
      "an error mid-stream",
      `${GEMINI.slice(0, GEMINI.indexOf("\n\n") + 2)}${data({ error: { status: "UNAVAILABLE", message: "busy" } })}`,
    ],
    ["an event that is not JSON", `${GEMINI.slice(0, GEMINI.indexOf("\n\n") + 2)}${data("{nope")}`],
    ["a body cut before its finishReason", GEMINI.slice(0, GEMINI.indexOf("\n\n") + 2)],
  ];
  for (const [what, text] of cases) {
    it(`${what}: the same events in any pieces, on both paths`, async () => {
      const one = await readWith(gemini([encode(text)]));
      for (const how of ["whole", "bytes", 5] as const) {
        const batches: StreamEvent[] = [];
        let error: { code?: string; message?: string } | undefined;
        try {
          for await (const batch of gemini(pieces(encode(text), how)).stream(REQUEST, {
            signal: new AbortController().signal,
          })) {
            batches.push(...batch);
          }
        } catch (err) {
          const e = err as { code?: string; message?: string };
          error = { code: e.code, message: e.message };
        }
        expect({ events: batches, error }, `${what} ${how}`).toEqual(one);
        for (const path of ["node", "node-unpaced"] as const) {
          expect(
            await readWith(gemini(pieces(encode(text), how), path)),
            `${what} ${how} ${path}`,
          ).toEqual(one);
        }
      }
      expect(one.events.length).toBeGreaterThan(0);
    });
  }
});

/** An SDK client answering with these pieces: a handler giving a Node stream, or Node's HTTP handler over a real server. */
const bedrockOn = (chunks: readonly Uint8Array[], path: Path, status = 200): ModelClient => {
  const overHttp = path === "node" || path === "node-unpaced";
  const client = new BedrockRuntimeClient({
    region: "us-east-1",
    credentials: { accessKeyId: "x", secretAccessKey: "x" },
    maxAttempts: 1,
    ...(overHttp
      ? { endpoint: origin, requestHandler: new NodeHttpHandler() }
      : {
          requestHandler: {
            handle: async () => ({
              response: {
                statusCode: status,
                reason: "",
                headers: {
                  "content-type":
                    status === 200 ? "application/vnd.amazon.eventstream" : "application/json",
                  "x-amzn-requestid": "r1",
                },
                // An error's body stays a Node stream: the SDK reads it before any stream.
                body:
                  path === "sdk" && status === 200
                    ? sdkOnlyBody(chunks)
                    : Readable.from(chunks.map((c) => Buffer.from(c))),
              },
            }),
          } as never,
        }),
  });
  if (overHttp) {
    const id = String(nextAnswer++);
    answers.set(id, { chunks, status });
    client.middlewareStack.add(
      (next) => (args) => {
        (args.request as { headers: Record<string, string> }).headers["x-answer"] = id;
        return next(args);
      },
      { step: "build", name: "answerId" },
    );
  }
  return bedrockModel({ client, modelId: "m" });
};

/**
 * A body as a handler other than Node's gives it (an async iterable, not a Node stream): the SDK's
 * own event stream reads it, the reference of overlap's read.
 */
async function* sdkOnlyBody(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}

/** Node's HTTP/2 handler, its bodies handed to the SDK's own event stream (see sdkOnlyBody). */
function sdkOnlyHandler(inner: NodeHttp2Handler) {
  return {
    handle: async (request: never, options: never) => {
      const result = await inner.handle(request, options);
      const body = result.response.body as AsyncIterable<Uint8Array>;
      result.response.body = (async function* () {
        yield* body;
      })();
      return result;
    },
  } as unknown as NodeHttp2Handler;
}
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
const BEDROCK_START = awsEvent("messageStart", { role: "assistant", p: "abc" });
const BEDROCK_TEXT = concat(
  awsEvent("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Hel" }, p: "a" }),
  awsEvent("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "lo 你好" }, p: "ab" }),
  awsEvent("contentBlockStop", { contentBlockIndex: 0 }),
);
const BEDROCK_CALL = concat(
  awsEvent("contentBlockStart", {
    contentBlockIndex: 1,
    start: { toolUse: { toolUseId: "t1", name: "f" } },
  }),
  awsEvent("contentBlockDelta", { contentBlockIndex: 1, delta: { toolUse: { input: '{"a":' } } }),
  awsEvent("contentBlockDelta", { contentBlockIndex: 1, delta: { toolUse: { input: "1}" } } }),
  awsEvent("contentBlockStop", { contentBlockIndex: 1 }),
);
const BEDROCK_REDACTED = awsEvent("contentBlockDelta", {
  contentBlockIndex: 0,
  delta: { reasoningContent: { redactedContent: Buffer.from("secret").toString("base64") } },
});
const BEDROCK_STOP = concat(
  awsEvent("messageStop", { stopReason: "tool_use" }),
  awsEvent("metadata", { usage: { inputTokens: 3, outputTokens: 5 }, metrics: { latencyMs: 9 } }),
);
const bedrockWhole = concat(BEDROCK_START, BEDROCK_TEXT, BEDROCK_CALL, BEDROCK_STOP);
const corrupt = (() => {
  const bytes = concat(BEDROCK_START, BEDROCK_TEXT);
  bytes[bytes.length - 6] = (bytes[bytes.length - 6] as number) ^ 0xff; // a payload byte
  return bytes;
})();
const BEDROCK_FAULTS: Array<[string, Uint8Array]> = [
  ["a whole message with a call", bedrockWhole],
  ["redacted reasoning (a blob)", concat(BEDROCK_START, BEDROCK_REDACTED, BEDROCK_STOP)],
  [
    "a citation with a location the SDK does not know and fields it drops",
    concat(
      BEDROCK_START,
      awsEvent("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Cited." } }),
      awsEvent("contentBlockDelta", {
        contentBlockIndex: 0,
        delta: {
          citation: {
            title: "Doc",
            extra: 1,
            sourceContent: [{ text: "quote", extra: 2 }],
            location: { futureKind: { start: 1 } },
          },
        },
      }),
      awsEvent("contentBlockDelta", {
        contentBlockIndex: 0,
        delta: { citation: { title: "Web", location: { web: { url: "https://x.test" } } } },
      }),
      awsEvent("contentBlockStop", { contentBlockIndex: 0 }),
      BEDROCK_STOP,
    ),
  ],
  [
    "a modeled exception mid-stream",
    concat(
      BEDROCK_START,
      BEDROCK_TEXT,
      awsException("throttlingException", { message: "Too many tokens" }),
    ),
  ],
  [
    "a modeled exception without a message",
    concat(BEDROCK_START, BEDROCK_TEXT, awsException("serviceUnavailableException", {})),
  ],
  [
    "an exception the SDK does not model",
    concat(BEDROCK_START, BEDROCK_TEXT, awsException("weirdException", { message: "odd" })),
  ],
  [
    "an error message",
    concat(
      BEDROCK_START,
      encodeEventStreamMessage(
        { ":message-type": "error", ":error-code": "InternalFailure", ":error-message": "boom" },
        "",
      ),
    ),
  ],
  ["a body cut before messageStop", concat(BEDROCK_START, BEDROCK_TEXT)],
  ["a body cut inside a message", bedrockWhole.subarray(0, BEDROCK_START.length + 7)],
  ["a message whose checksum does not match", corrupt],
  ["an empty body", new Uint8Array(0)],
];
samePaths(
  "bedrockModel reads a response the same way on both paths",
  "bedrock",
  bedrockOn,
  BEDROCK_FAULTS,
  JSON.stringify({ message: "The model is not ready." }),
);

describe("bedrockModel's own read: retries and the socket", () => {
  it("a stream whose first message is a retryable exception is asked again, on both paths", async () => {
    const answers = [
      awsException("throttlingException", { message: "Too many requests" }),
      concat(BEDROCK_START, BEDROCK_TEXT, BEDROCK_STOP),
    ];
    const read = async (sdkOnly: boolean) => {
      let calls = 0;
      const client = new BedrockRuntimeClient({
        region: "us-east-1",
        credentials: { accessKeyId: "x", secretAccessKey: "x" },
        maxAttempts: 2,
        requestHandler: {
          handle: async () => ({
            response: {
              statusCode: 200,
              reason: "",
              headers: { "content-type": "application/vnd.amazon.eventstream" },
              body: sdkOnly
                ? sdkOnlyBody([answers[calls++] ?? new Uint8Array(0)])
                : Readable.from([Buffer.from(answers[calls++] ?? new Uint8Array(0))]),
            },
          }),
        } as never,
      });
      const result = await readWith(bedrockModel({ client, modelId: "m" }));
      return { calls, result };
    };
    const sdk = await read(true);
    expect(sdk.calls).toBe(2);
    expect(sdk.result.error).toBeUndefined();
    expect(await read(false)).toEqual(sdk);
  });

  it("overlap's read yields one array per read, on a fake handler and over a socket", async () => {
    const half = BEDROCK_START.length + BEDROCK_TEXT.length;
    const batches: StreamEvent[][] = [];
    for await (const batch of bedrockOn(
      [bedrockWhole.subarray(0, half), bedrockWhole.subarray(half)],
      "reader",
    ).stream(REQUEST, { signal: new AbortController().signal })) {
      batches.push([...batch]);
    }
    expect(batches.length).toBeLessThanOrEqual(3);
    expect(batches.flat()).toEqual((await readWith(bedrockOn([bedrockWhole], "sdk"))).events);
    // Over a real socket (Node's HTTP handler) too.
    let overHttp = 0;
    for await (const _ of bedrockOn([bedrockWhole], "node-unpaced").stream(REQUEST, {
      signal: new AbortController().signal,
    }))
      overHttp++;
    expect(overHttp).toBeLessThanOrEqual(3);
  });
});

describe("bedrockModel over HTTP/2 (the SDK's default handler for Bedrock)", () => {
  it("reads the event stream of an HTTP/2 response as the SDK does, whole and cut", async () => {
    const body = new Uint8Array(
      Buffer.concat([
        awsEvent("messageStart", { role: "assistant" }),
        awsEvent("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Hi" } }),
        awsEvent("contentBlockStop", { contentBlockIndex: 0 }),
        awsEvent("messageStop", { stopReason: "end_turn" }),
        awsEvent("metadata", { usage: { inputTokens: 1, outputTokens: 1 } }),
      ]),
    );
    let answer: Uint8Array = body;
    const server = createHttp2Server((req, res) => {
      req.resume();
      res.writeHead(200, {
        "content-type": "application/vnd.amazon.eventstream",
        "x-amzn-requestid": "r2",
      });
      const half = Math.floor(answer.length / 2);
      res.write(answer.subarray(0, half));
      setTimeout(() => {
        if (answer === body) res.end(answer.subarray(half));
        else res.stream.close(http2Constants.NGHTTP2_INTERNAL_ERROR); // cut mid-body
      }, 5);
    });
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const model = (sdkOnly: boolean) =>
      bedrockModel({
        client: new BedrockRuntimeClient({
          region: "us-east-1",
          endpoint,
          credentials: { accessKeyId: "x", secretAccessKey: "x" },
          requestHandler: sdkOnly ? sdkOnlyHandler(new NodeHttp2Handler()) : new NodeHttp2Handler(),
          maxAttempts: 1,
        }),
        modelId: "m",
      });
    try {
      const sdk = await readWith(model(true));
      expect(sdk.error).toBeUndefined();
      expect(sdk.events.map((e) => e.type)).toContain("message_stop");
      expect(await readWith(model(false))).toEqual(sdk);
      // Read by overlap (one array per network chunk: the body came in two writes), not the SDK.
      let batches = 0;
      for await (const _ of model(false).stream(REQUEST, {
        signal: new AbortController().signal,
      }))
        batches++;
      expect(batches).toBeLessThanOrEqual(3);
      expect(sdk.events.length).toBeGreaterThan(3);
      answer = body.subarray(0, body.length - 10);
      const cutSdk = await readWith(model(true));
      const cutOurs = await readWith(model(false));
      expect(cutOurs.events).toEqual(cutSdk.events);
      expect(cutOurs.error?.code).toBe("stream_interrupted");
      expect(cutSdk.error?.code).toBe("stream_interrupted");
    } finally {
      server.close();
    }
  });
});
