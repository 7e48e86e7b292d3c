/**
 * Every adapter starts each call at its end-of-call signal while the response is still arriving,
 * on every read path: real recorded responses (the recordings' directory, see
 * realstreams.testkit.ts) are replayed paced, a piece at a time (a byte, for bodies up to about
 * 1,500 bytes) 1 ms apart, and each call whose signal is not in the body's last frame (read off
 * the recording itself, recorded-calls.testkit.ts) must be dispatched (its `tool-call` event)
 * before the last byte went out. The read paths: fetch's web stream (a stand-in fetch whose
 * `Response` body is a real `ReadableStream`) and Node's socket (`nodeHttpFetch`, paced reads, a
 * local server writing the pieces); Bedrock's: overlap's read of a Node body and the AWS SDK's own
 * event stream; the AI SDK's: `@ai-sdk/anthropic`'s parts. Gemini's signatures are checked on the
 * way: every recorded `thoughtSignature` is on the round's message, on every path.
 */

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { createAnthropic } from "@ai-sdk/anthropic";
import Anthropic from "@anthropic-ai/sdk";
import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelClient } from "../agent/model-client.js";
import { StreamedRound } from "../round/streamed-round.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { defineJsonSchemaTool } from "../tools/define-json-schema-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { aiSdkModel } from "./ai-sdk/ai-sdk-model.js";
import { anthropicModel } from "./anthropic/anthropic.js";
import { bedrockModel } from "./bedrock/bedrock.js";
import { geminiModel } from "./google/google.js";
import { createNodeHttpFetch } from "./node/node-http-fetch.js";
import { openaiChatModel } from "./openai/openai.js";
import { openaiResponsesModel } from "./openai/openai-responses.js";
import { REALSTREAMS_DIR } from "./realstreams.testkit.js";
import {
  earlyCalls,
  type RecordedFormat,
  type RecordedResponse,
  recordedResponses,
} from "./recorded-calls.testkit.js";

/** About this many pieces per response, 1 ms apart: a byte each up to 1,500 bytes. */
const PIECES = 1_500;
const DELAY_MS = 1;
/** The recordings replayed per format: those with the most calls that can start early. */
const PER_FORMAT = 3;

/** When the last piece of the body went out. */
interface Clock {
  lastPieceAt: number;
}

function piecesOf(body: Uint8Array, paced: boolean): Uint8Array[] {
  const size = paced ? Math.max(1, Math.ceil(body.length / PIECES)) : body.length;
  const out: Uint8Array[] = [];
  for (let at = 0; at < body.length; at += size) out.push(body.subarray(at, at + size));
  return out;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The pieces, `DELAY_MS` apart (none when not paced), noting when the last went out. */
async function* paced(body: Uint8Array, clock: Clock, pace: boolean): AsyncGenerator<Uint8Array> {
  const pieces = piecesOf(body, pace);
  for (const [i, piece] of pieces.entries()) {
    if (pace) await sleep(DELAY_MS);
    if (i === pieces.length - 1) clock.lastPieceAt = performance.now();
    yield piece;
  }
}

/** A stand-in fetch answering with the body as a real web stream, paced. */
function webFetch(body: Uint8Array, clock: Clock, pace: boolean): typeof fetch {
  const answer = async () => {
    const pieces = paced(body, clock, pace);
    return new Response(
      new ReadableStream<Uint8Array>({
        async pull(controller) {
          const next = await pieces.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
      }),
      { status: 200, headers: { "content-type": "text/event-stream" } },
    );
  };
  return answer as unknown as typeof fetch;
}

/** A local server writing the body of the next answer paced: Node's socket path. */
let server: Server;
let origin = "";
let nextAnswer: { body: Uint8Array; clock: Clock; pace: boolean } | undefined;
beforeAll(async () => {
  server = createServer(async (req, res) => {
    req.resume();
    const answer = nextAnswer;
    if (!answer) {
      res.writeHead(500).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    for await (const piece of paced(answer.body, answer.clock, answer.pace)) res.write(piece);
    res.end();
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

/** `nodeHttpFetch` with its default paced reads, sending every request to the local server. */
const nodeFetch = createNodeHttpFetch();
function socketFetch(body: Uint8Array, clock: Clock, pace: boolean): typeof fetch {
  const send = (input: string | URL | Request, init?: RequestInit) => {
    nextAnswer = { body, clock, pace };
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    return nodeFetch(`${origin}${url.pathname}${url.search}`, init);
  };
  return send as typeof fetch;
}

/** A model of one adapter reading `body` on one path. */
type Make = (body: Uint8Array, clock: Clock, pace: boolean) => ModelClient;

/** The neutral events of one unpaced read (the calls' names, for the tools). */
async function eventsOf(model: ModelClient): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  try {
    for await (const batch of model.stream(
      { messages: [{ role: "user", content: "go" }], tools: [] },
      { signal: new AbortController().signal },
    )) {
      events.push(...batch);
    }
  } catch {
    // a recording that ends in a failure: its events so far
  }
  return events;
}

/** One paced round: when each call was dispatched (in block order), and the round's message. */
async function pacedRound(make: Make, body: Uint8Array) {
  const names = new Set(
    (await eventsOf(make(body, { lastPieceAt: 0 }, false))).flatMap((e) =>
      e.type === "content_block_start" && e.content_block.type === "tool_use"
        ? [e.content_block.name]
        : [],
    ),
  );
  const executor = new ToolExecutor(
    [...names].map((name) =>
      defineJsonSchemaTool({
        name,
        description: name,
        inputSchema: { type: "object" },
        run: () => "ok",
      }),
    ),
  );
  const dispatched = new Map<number, number>();
  const clock: Clock = { lastPieceAt: Number.POSITIVE_INFINITY };
  const round = new StreamedRound({
    executor,
    sink: (event) => {
      if (event.type === "tool-call" && !dispatched.has(event.index)) {
        dispatched.set(event.index, performance.now());
      }
    },
  });
  const result = await round.relay(
    make(body, clock, true).stream(
      { messages: [{ role: "user", content: "go" }], tools: executor.specs() },
      { signal: new AbortController().signal },
    ),
  );
  const inOrder = [...dispatched.entries()].sort(([a], [b]) => a - b).map(([, at]) => at);
  return { dispatched: inOrder, lastPieceAt: clock.lastPieceAt, result };
}

/** The recordings of a format with calls that can start early, the richest first. */
function candidates(format: RecordedFormat): RecordedResponse[] {
  return recordedResponses(format)
    .filter((r) => earlyCalls(r).length > 0)
    .sort((a, b) => earlyCalls(b).length - earlyCalls(a).length || a.body.length - b.body.length)
    .slice(0, PER_FORMAT);
}

function signaturesIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(signaturesIn);
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, v]) =>
    key === "thoughtSignature" && typeof v === "string" ? [v] : signaturesIn(v),
  );
}

function recordedSignatures(body: Uint8Array): string[] {
  return [...new TextDecoder().decode(body).matchAll(/"thoughtSignature":\s*"([^"]*)"/g)].map(
    (m) => m[1] as string,
  );
}

/** The paced property for one adapter, on each of its read paths. */
function startsEarly(
  title: string,
  format: RecordedFormat,
  paths: Record<string, Make>,
  check?: (body: Uint8Array, result: Awaited<ReturnType<typeof pacedRound>>["result"]) => void,
): void {
  describe(title, () => {
    const responses = candidates(format);
    it.skipIf(responses.length > 0 || process.env.CI === "true")("has recordings here", () => {
      console.warn(`!!! No recorded ${format} streams at ${REALSTREAMS_DIR}: nothing replayed.`);
    });
    it.runIf(process.env.CI === "true")("has recordings in CI", () => {
      expect(responses.length).toBeGreaterThan(0);
    });
    for (const response of responses) {
      for (const [path, make] of Object.entries(paths)) {
        it(`${response.name} (${path}): each call ending before the last frame starts before the last byte`, async () => {
          const { dispatched, lastPieceAt, result } = await pacedRound(make, response.body);
          const early = earlyCalls(response);
          const late = early.filter((k) => !((dispatched[k] ?? Infinity) < lastPieceAt));
          expect(
            late,
            `calls (block order) dispatched at ${dispatched.map((t) => Math.round(t - lastPieceAt))} ms from the last byte`,
          ).toEqual([]);
          check?.(response.body, result);
        }, 60_000);
      }
    }
  });
}

startsEarly("anthropicModel", "anthropic", {
  web: (body, clock, pace) =>
    anthropicModel({
      client: new Anthropic({ apiKey: "x", maxRetries: 0, fetch: webFetch(body, clock, pace) }),
      model: "m",
    }),
  node: (body, clock, pace) =>
    anthropicModel({
      client: new Anthropic({ apiKey: "x", maxRetries: 0, fetch: socketFetch(body, clock, pace) }),
      model: "m",
    }),
});

const openai = (fetch: typeof globalThis.fetch) =>
  new OpenAI({ apiKey: "x", maxRetries: 0, fetch });
startsEarly("openaiChatModel", "chat", {
  web: (body, clock, pace) =>
    openaiChatModel({ client: openai(webFetch(body, clock, pace)), model: "m" }),
  node: (body, clock, pace) =>
    openaiChatModel({ client: openai(socketFetch(body, clock, pace)), model: "m" }),
});

startsEarly("openaiResponsesModel", "responses", {
  web: (body, clock, pace) =>
    openaiResponsesModel({ client: openai(webFetch(body, clock, pace)), model: "m" }),
  node: (body, clock, pace) =>
    openaiResponsesModel({ client: openai(socketFetch(body, clock, pace)), model: "m" }),
});

startsEarly(
  "geminiModel",
  "gemini",
  {
    web: (body, clock, pace) =>
      geminiModel({ model: "m", apiKey: "x", maxRetries: 0, fetch: webFetch(body, clock, pace) }),
    node: (body, clock, pace) =>
      geminiModel({
        model: "m",
        apiKey: "x",
        maxRetries: 0,
        fetch: socketFetch(body, clock, pace),
      }),
  },
  (body, result) => {
    expect(signaturesIn(result.assistant.content)).toEqual(recordedSignatures(body));
  },
);

/** Bedrock with a handler answering the body paced: a Node stream (overlap's read) or not. */
const bedrockOn =
  (nodeBody: boolean): Make =>
  (body, clock, pace) =>
    bedrockModel({
      modelId: "m",
      client: new BedrockRuntimeClient({
        region: "us-east-1",
        credentials: { accessKeyId: "x", secretAccessKey: "x" },
        maxAttempts: 1,
        requestHandler: {
          handle: async () => ({
            response: {
              statusCode: 200,
              reason: "",
              headers: { "content-type": "application/vnd.amazon.eventstream" },
              body: nodeBody ? Readable.from(paced(body, clock, pace)) : paced(body, clock, pace),
            },
          }),
        } as never,
      }),
    });
startsEarly("bedrockModel", "bedrock", {
  "overlap's read": bedrockOn(true),
  "the SDK's event stream": bedrockOn(false),
});

startsEarly("aiSdkModel (@ai-sdk/anthropic)", "anthropic", {
  web: (body, clock, pace) =>
    aiSdkModel(createAnthropic({ apiKey: "x", fetch: webFetch(body, clock, pace) as never })("m"), {
      maxRetries: 0,
    }),
});
